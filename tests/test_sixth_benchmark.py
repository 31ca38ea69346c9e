"""A benchmark is one folder: a sixth, toy benchmark outside ambi-plugin, registered through the same mechanism the
five use (a registry entry; found through ``$AMBI_BENCHMARKS``), appears everywhere without any other file touched.

The toy is a package in a temporary folder: ``toybench/__init__.py`` registers its entry (title, local-copy layout,
task group, preflight hint, a paper table with a reference row, a results-JSON extra), ``toybench/task_yamls/``
holds its task and group, ``toybench/data/`` its records and images; its entry also declares a command of its own
(``ambi toybench-runs``) and an importer (``ambi import toybench``). It shows up in ``ambi tasks``, ``ambi data``,
``ambi --help``, ``ambi import``, the preflight, ``ambi eval`` (the real lmms-eval CLI, ``ambi_replay`` model, ``--limit``), ``ambi score``,
``ambi report`` and VLMEvalKit's dataset list; and the package folder is left as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from ambi_plugin.paths import BENCHMARKS_ENV

PKG = Path(__file__).resolve().parents[1] / "ambi_plugin"
TASK, GROUP = "toybench_shapes_yes_no", "toybench_all"

ENTRY = '''"""ToyBench: is there a circle? One folder: this registration, task_yamls/, data/."""

import json
import shutil

from ambi_plugin.benchmarks.layout import Column, Layout
from ambi_plugin.benchmarks.registry import BenchmarkEntry, Command, Importer, register

TABLE = Layout("toy_table_1", "toybench", "ToyBench Table 1: yes/no accuracy (%)",
               (Column("Shapes", (("toybench_shapes_yes_no", "acc"),)),))
REFERENCE = {"tables": {"toy_table_1": {"title": "Table 1", "unit": "percent", "digits": 1, "columns": ["Shapes"],
                                        "rows": [{"name": "Toy Paper Model", "values": [62.5]}]}}}


def _extra(results):
    ran = [t for t in results.get("configs") or {} if t.startswith("toybench_")]
    return {"shapes": "circles and squares", "tasks": ran} if ran else None


def _runs_arguments(parser):
    parser.add_argument("results", nargs="+", help="results JSONs of repeated runs")


def _runs(args, tools):
    out = tools.repeated_runs(args.results)
    print(f"{out['runs']} run(s)\\n{out['text']}")
    return 0


def _import_arguments(im):
    im.add_argument("--toy-question", default="Is there a circle?", help="toybench: the question of every record")


def _import(jsonl, images, out, args):
    rows = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    shutil.copytree(images, out / "images")
    with (out / "toybench_shapes.jsonl").open("w") as fh:
        for i, row in enumerate(rows):
            fh.write(json.dumps({"id": f"toy{i}", "benchmark": "toybench", "category": "shapes",
                                 "task_type": "yes_no", "image": "images/" + row["image"],
                                 "question": args.toy_question, "answer_bool": row["circle"]}) + "\\n")
    return {"toybench_shapes": len(rows)}


register(BenchmarkEntry(
    "toybench",
    title="ToyBench",
    local_only="its records ship in the toybench folder: point AMBI_TOYBENCH_DIR at toybench/data",
    layouts="toybench/data as shipped (toybench_shapes.jsonl beside images/)",
    groups="toybench_all",
    fetch_hint="export {var}=<the toybench/data folder of the toybench package>",
    task_prefixes=("toybench_",),
    paper_layouts=lambda: (TABLE,),
    reference=lambda: REFERENCE,
    results_extra=("toybench", _extra),
    commands=(Command("toybench-runs", "ToyBench: mean and std of repeated runs", _runs_arguments, _runs),),
    importer=Importer(_import, _import_arguments),
))
'''

TASK_YAML = """task: toybench_shapes_yes_no
dataset_path: ambi://toybench
dataset_name: toybench_shapes
output_type: generate_until
test_split: test
doc_to_visual: !function ambi_plugin.runtime.hooks.doc_to_visual
doc_to_text: !function ambi_plugin.runtime.hooks.doc_to_text
doc_to_target: !function ambi_plugin.runtime.hooks.doc_to_target
process_results: !function ambi_plugin.runtime.hooks.process_results
generation_kwargs: {max_new_tokens: 16, do_sample: false, temperature: 0}
lmms_eval_specific_kwargs:
  default:
    prompt: "{question} Answer yes or no."
metric_list:
  - {metric: acc, aggregation: !function ambi_plugin.runtime.aggregate.acc, higher_is_better: true}
  - {metric: fp_ratio, aggregation: !function ambi_plugin.runtime.aggregate.fp_ratio, higher_is_better: false}
  - {metric: unparsed_rate, aggregation: !function ambi_plugin.runtime.aggregate.unparsed_rate, higher_is_better: false}
  - {metric: unparsed, aggregation: !function ambi_plugin.runtime.aggregate.unparsed, higher_is_better: false}
metadata: {version: 1, benchmark: toybench, category: shapes, task_type: yes_no}
"""
GROUP_YAML = "group: toybench_all\ntask:\n  - toybench_shapes_yes_no\nmetadata: {version: 1, benchmark: toybench}\n"
# six records; the replayed answers: the first three right, the fourth wrong, the last two right
TRUTH = [True, False, True, True, False, True]
ANSWERS = ["Yes.", "no", "yes", "No", "no", "yes"]


def _snapshot(root: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _toy(root: Path) -> Path:
    pkg = root / "toybench"
    (pkg / "task_yamls").mkdir(parents=True)
    (pkg / "data" / "images").mkdir(parents=True)
    (pkg / "__init__.py").write_text(ENTRY)
    (pkg / "task_yamls" / f"{TASK}.yaml").write_text(TASK_YAML)
    (pkg / "task_yamls" / f"_{GROUP}.yaml").write_text(GROUP_YAML)
    with (pkg / "data" / "toybench_shapes.jsonl").open("w") as fh:
        for i, truth in enumerate(TRUTH):
            Image.new("RGB", (24, 24), (40 * i, 200, 0)).save(pkg / "data" / "images" / f"{i}.png")
            rec = {"id": f"toy{i}", "benchmark": "toybench", "category": "shapes", "task_type": "yes_no",
                   "image": f"images/{i}.png", "question": "Is there a circle?", "answer_bool": truth}  # fmt: skip
            fh.write(json.dumps(rec) + "\n")
    return pkg


@pytest.fixture
def toybench(tmp_path, monkeypatch):
    """The toy package on the path, named in $AMBI_BENCHMARKS, its copy in $AMBI_TOYBENCH_DIR; the env for
    subprocesses."""
    from ambi_plugin.benchmarks import registry

    pkg = _toy(tmp_path / "plugins")
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.setenv(BENCHMARKS_ENV, "toybench")
    monkeypatch.setenv("AMBI_TOYBENCH_DIR", str(pkg / "data"))
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "no-config.yaml"))
    yield pkg
    registry.REGISTRY.pop("toybench", None)
    registry._IMPORTED.discard("toybench")
    sys.modules.pop("toybench", None)


def _env(pkg: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(pkg.parent), env.get("PYTHONPATH", "")) if p)
    return env


def test_the_registry_finds_the_toy_and_its_tasks(toybench, capsys):
    from ambi_plugin.benchmarks.registry import get
    from ambi_plugin.cli import main
    from ambi_plugin.runtime.taskindex import expand_tasks

    assert get("toybench").title == "ToyBench" and get("toybench").data_var == "AMBI_TOYBENCH_DIR"
    assert [t.name for t in expand_tasks(GROUP)] == [TASK]
    assert main(["tasks"]) == 0
    listed = [ln.split() for ln in capsys.readouterr().out.splitlines()]
    assert ["toybench_all", "group", "toybench"] == listed[[r[0] for r in listed].index(GROUP)][:3]
    assert [TASK, "task", "toybench", "shapes", "yes_no"] == listed[[r[0] for r in listed].index(TASK)][:5]


def test_ambi_data_and_the_preflight_know_the_toy(toybench, monkeypatch, capsys):
    from ambi_plugin.cli import main
    from ambi_plugin.lmms.preflight import run_preflight

    assert main(["data", "--check", "toybench"]) == 0
    out = capsys.readouterr().out
    assert "toybench: available (tasks: toybench_all)" in out
    assert f"records: 6 in 1 task(s): {TASK} 6" in out
    assert run_preflight([GROUP]).problems == []
    # no copy: ambi data says what to do, the preflight stops with the entry's own hint
    monkeypatch.delenv("AMBI_TOYBENCH_DIR")
    assert main(["data", "--check", "toybench"]) == 1
    out = capsys.readouterr().out
    assert "toybench: missing (tasks: toybench_all)" in out and "point AMBI_TOYBENCH_DIR at toybench/data" in out
    problems = run_preflight([GROUP]).problems
    assert len(problems) == 1 and TASK in problems[0].tasks
    assert problems[0].fix == "export AMBI_TOYBENCH_DIR=<the toybench/data folder of the toybench package>"


def test_the_toy_brings_its_own_command_and_importer(toybench, tmp_path, monkeypatch, capsys):
    """Its entry's ``commands`` and ``importer``: ``ambi toybench-runs`` in ``ambi --help`` (beside the benchmarks'
    other commands, after ``ambi data``) running the generic repeated-runs summary it is handed, and
    ``ambi import toybench`` with the toy's own option, writing a copy ``ambi data`` finds usable."""
    from ambi_plugin.cli import COMMANDS, build_parser, main

    with pytest.raises(SystemExit):
        build_parser().parse_args(["--help"])
    text = capsys.readouterr().out
    listed = [ln.split()[0] for ln in text.splitlines() if ln.startswith("    ") and ln[4] != " "]  # a command a line
    assert listed == list(COMMANDS) and "ToyBench: mean and std of repeated runs" in " ".join(text.split())
    assert listed.index("data") < listed.index("viabench") < listed.index("toybench-runs") < listed.index("judge-cache")

    runs = []
    for i, (acc, other) in enumerate([(0.5, 0.1), (0.75, 0.9)]):
        runs.append(tmp_path / f"run{i}.json")
        res = {TASK: {"acc,none": acc, "acc_stderr,none": 0.1}, "ambi_viabench_ci": {"acc_match,none": other}}
        runs[-1].write_text(json.dumps({"results": res}))
    assert main(["toybench-runs", *map(str, runs)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 run(s)\n") and f"| {TASK} | acc | 0.6250 ± 0.1768 | 2 |" in out  # sample std
    assert "viabench" not in out and "stderr" not in out  # the toy's tasks only, no stderr rows

    shipped = toybench / "data"
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps({"image": f"{i}.png", "circle": t}) + "\n" for i, t in enumerate(TRUTH)))
    copy = tmp_path / "copy"
    args = ["import", "toybench", "--jsonl", str(rows), "--images", str(shipped / "images"), "--out", str(copy)]
    assert main([*args, "--toy-question", "Is a circle drawn?"]) == 0
    assert f"wrote 6 records to {copy}: toybench_shapes 6" in capsys.readouterr().out
    written = [json.loads(line) for line in (copy / "toybench_shapes.jsonl").read_text().splitlines()]
    assert {r["question"] for r in written} == {"Is a circle drawn?"} and [r["answer_bool"] for r in written] == TRUTH
    monkeypatch.setenv("AMBI_TOYBENCH_DIR", str(copy))
    assert main(["data", "--check", "toybench"]) == 0
    assert f"records: 6 in 1 task(s): {TASK} 6" in capsys.readouterr().out


def test_a_command_two_parties_claim_is_one_line(toybench, capsys):
    """A benchmark may not take a command ``ambi`` has, nor one another benchmark declares, nor an option of
    ``ambi import`` another importer has: ``ambi`` says which, in one line, before parsing anything."""
    from ambi_plugin.benchmarks.registry import REGISTRY, BenchmarkEntry, Command, Importer, entries, register
    from ambi_plugin.cli import main

    entries()
    for name, taken in (("clash_data", "data"), ("clash_toy", "toybench-runs")):
        register(BenchmarkEntry(name, commands=(Command(taken, "mine", lambda p: None, lambda a, t: 0),)))
        try:
            assert main(["tasks"]) == 2
        finally:
            REGISTRY.pop(name)
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"'ambi {taken}'" in err[0] and name in err[0] and "rename" in err[0], err
    register(BenchmarkEntry("clash_import", importer=Importer(lambda *a: {}, lambda im: im.add_argument("--layout"))))
    try:
        assert main(["tasks"]) == 2  # --layout: AmbiBench's importer has it
    finally:
        REGISTRY.pop("clash_import")
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'clash_import'" in err[0] and "--layout" in err[0] and "rename" in err[0], err


def test_a_benchmark_module_that_cannot_be_imported_stops_ambi_in_one_line(monkeypatch, capsys):
    from ambi_plugin.cli import main

    monkeypatch.setenv(BENCHMARKS_ENV, "no_such_benchmark_module")
    assert main(["tasks"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'no_such_benchmark_module'" in err[0] and BENCHMARKS_ENV in err[0], err


@pytest.mark.e2e
def test_eval_score_and_report_run_the_toy(toybench, tmp_path):
    before = _snapshot(PKG)
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps({"task": TASK, "id": f"toy{i}", "response": a}) + "\n"
                             for i, a in enumerate(ANSWERS)))  # fmt: skip
    out = tmp_path / "out"
    from ambi_plugin.lmms.cli_run import replay_args

    cmd = [sys.executable, "-m", "ambi_plugin.cli", "eval", *replay_args(preds, GROUP), "--limit", "4",
           "--output_path", str(out), "--log_samples"]  # fmt: skip
    proc = subprocess.run(cmd, env=_env(toybench), capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (results_file,) = out.rglob("*_results.json")
    results = json.loads(results_file.read_text())
    assert results["results"][TASK]["acc,none"] == pytest.approx(0.75)  # 3 of the first 4 (--limit 4)
    assert results["ambi_plugin"]["toybench"] == {"shapes": "circles and squares", "tasks": [TASK]}

    from ambi_plugin.cli import main

    score = tmp_path / "score.json"
    assert main(["score", "--task", TASK, "--answers", str(out), "--json", str(score)]) == 0
    values = json.loads(score.read_text())["values"]
    (column,) = values.values()
    assert column["acc"] == pytest.approx(0.75) and column["unparsed"] == 0  # the 4 records the run scored

    report = tmp_path / "report"
    args = ["report", str(out), "--out", str(report), "--format", "md", "--no-plots", "--bootstrap", "0",
            "--compare-paper", "--paper-name", "ambi_replay=Toy Paper Model", "--quiet"]  # fmt: skip
    assert main(args) == 0
    text = (report / "report.md").read_text()
    assert "ToyBench Table 1: yes/no accuracy (%)" in text
    table = text[text.index("ToyBench Table 1") :].split("\n\n")[1]
    assert "75.00" in table and "62.50" in table  # the run's cell beside the paper's reference row
    assert _snapshot(PKG) == before  # no file of ambi-plugin was written


@pytest.mark.e2e
def test_vlmevalkit_lists_the_toy(toybench):
    code = (
        "import vlmeval.dataset as vd\n"
        "from ambi_plugin.vlmeval.registry import register\n"
        f"got = register(['{GROUP}'])\n"
        f"assert list(got) == ['{TASK}'], got\n"
        f"assert '{TASK}' in vd.SUPPORTED_DATASETS\n"
        f"print('listed', vd.SUPPORTED_DATASETS.index('{TASK}'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=_env(toybench), capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert proc.returncode == 0 and "listed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-3000:]


def test_an_installed_package_registers_through_its_entry_point(tmp_path):
    """The same toy, installed: a ``*.dist-info`` with an ``ambi_plugin.benchmarks`` entry point on the path, no
    variable set; a fresh process finds its entry and its tasks."""
    pkg = _toy(tmp_path / "site")
    info = pkg.parent / "toybench-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toybench\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ambi_plugin.benchmarks]\ntoybench = toybench\n")
    env = _env(pkg)
    env.pop(BENCHMARKS_ENV, None)
    code = (
        "from ambi_plugin.benchmarks.registry import get\n"
        "from ambi_plugin.runtime.taskindex import index\n"
        "print(get('toybench').title, sorted(t for t in index() if t.startswith('toybench')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"ToyBench {sorted([GROUP, TASK])}"


def test_a_benchmark_module_that_cannot_be_imported_is_named(monkeypatch):
    from ambi_plugin.benchmarks.registry import BenchmarkPluginError, entries

    monkeypatch.setenv(BENCHMARKS_ENV, "no_such_benchmark_module")
    with pytest.raises(BenchmarkPluginError, match=r"'no_such_benchmark_module'.*\$AMBI_BENCHMARKS"):
        entries()
    monkeypatch.delenv(BENCHMARKS_ENV)
    assert "ambibench" in entries()  # the others are read as before
