"""A new category is a YAML file alone: records + YAML in the user's own folders, no code."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from PIL import Image

from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.paths import tasks_dir
from ambi_plugin.reports.results import find_results_json, task_metrics

pytestmark = pytest.mark.e2e

YAML = """include: {tasks}/_templates/_open
task: mybench_ducks_open
dataset_path: ambi://local
dataset_name: ducks
lmms_eval_specific_kwargs:
  default:
    prompt: "What two animals can you see? Answer 'Object1, Object2'."
metric_list:
  - {{metric: acc, aggregation: !function ambi_plugin.runtime.aggregate.acc, higher_is_better: true}}
  - {{metric: acc_near, aggregation: !function ambi_plugin.runtime.aggregate.acc_near, higher_is_better: true}}
  - {{metric: acc_far, aggregation: !function ambi_plugin.runtime.aggregate.acc_far, higher_is_better: true}}
  - {{metric: unparsed_rate, aggregation: !function ambi_plugin.runtime.aggregate.unparsed_rate, higher_is_better: false}}
  - {{metric: judge_errors, aggregation: !function ambi_plugin.runtime.aggregate.judge_errors, higher_is_better: false}}
metadata: {{version: 1, benchmark: mybench, category: ducks, task_type: open}}
"""


def test_yaml_only_category_runs_through_lmms_eval(tmp_path, lmms_eval):
    data, yamls = tmp_path / "records", tmp_path / "my_tasks"
    (data / "images").mkdir(parents=True)
    yamls.mkdir()
    answers = []
    with (data / "ducks.jsonl").open("w") as fh:
        for i in range(4):
            Image.new("RGB", (32, 32), (i * 40, 0, 0)).save(data / "images" / f"{i}.png")
            fh.write(
                json.dumps(
                    {
                        "id": str(i),
                        "benchmark": "mybench",
                        "category": "ducks",
                        "task_type": "open",
                        "image": f"images/{i}.png",
                        "views": [{"name": "near", "labels": ["duck"]}, {"name": "far", "labels": ["rabbit|bunny"]}],
                    }
                )
                + "\n"
            )
            # two right, one with the far view wrong, one with both wrong
            resp = ["Ducks, bunny", "duck, rabbit", "duck, fox", "hat, shoe"][i]
            answers.append({"task": "mybench_ducks_open", "id": str(i), "response": resp})
    (yamls / "mybench_ducks_open.yaml").write_text(YAML.format(tasks=tasks_dir()))
    preds = tmp_path / "answers.jsonl"
    preds.write_text("".join(json.dumps(a) + "\n" for a in answers))
    args = replay_args(preds, "mybench_ducks_open", "--include_path", str(yamls))
    results = lmms_eval(args, tmp_path / "out", env={"AMBI_DATA_DIR": str(data)}, timeout=600).results
    got = task_metrics(results)["mybench_ducks_open"]
    assert got["acc"] == pytest.approx(0.5)
    assert got["acc_near"] == pytest.approx(0.75)
    assert got["acc_far"] == pytest.approx(0.5)
    assert got["unparsed_rate"] == 0.0
    assert got["judge_errors"] == 0.0


def _setup(tmp_path, records: list[dict]) -> tuple[dict, list[str]]:
    data, yamls = tmp_path / "records", tmp_path / "my_tasks"
    (data / "images").mkdir(parents=True, exist_ok=True)
    yamls.mkdir(exist_ok=True)
    Image.new("RGB", (32, 32), (200, 0, 0)).save(data / "images" / "0.png")
    (data / "ducks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (yamls / "mybench_ducks_open.yaml").write_text(YAML.format(tasks=tasks_dir()))
    preds = tmp_path / "answers.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"task": "mybench_ducks_open", "id": r["id"], "response": "duck, rabbit"}) + "\n"
            for r in records
        )
    )
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "ambi_replay",
        "--model_args",
        f"predictions={preds}",
        "--tasks",
        "mybench_ducks_open",
        "--include_path",
        str(yamls),
    ]
    return {"AMBI_DATA_DIR": str(data)}, cmd


def _record(i: int, image: str = "images/0.png") -> dict:
    return {
        "id": str(i),
        "benchmark": "mybench",
        "category": "ducks",
        "task_type": "open",
        "image": image,
        "views": [{"name": "near", "labels": ["duck"]}, {"name": "far", "labels": ["rabbit"]}],
    }


def test_record_missing_a_field_names_file_line_and_field(tmp_path, offline_env):
    bad = _record(1)
    del bad["views"]
    extra, cmd = _setup(tmp_path, [_record(0), bad])
    out = tmp_path / "out"
    proc = subprocess.run(
        [*cmd, "--output_path", str(out)], env={**offline_env, **extra}, capture_output=True, text=True, timeout=600
    )
    log = proc.stdout + proc.stderr
    assert "ducks.jsonl:2" in log and "'views'" in log and "id='1'" in log, log[-3000:]
    assert not list(out.rglob("*results*.json"))


def test_unreadable_image_keeps_earlier_results(tmp_path, offline_env):
    extra, cmd = _setup(tmp_path, [_record(0)])
    out = tmp_path / "out"
    env = {**offline_env, **extra}
    subprocess.run([*cmd, "--output_path", str(out)], env=env, capture_output=True, text=True, timeout=600)
    first = find_results_json(out)
    before = first.read_bytes()
    assert task_metrics(json.loads(before))["mybench_ducks_open"]["acc"] == 1.0
    # now the same task over a record whose image is broken, into the same output folder
    (tmp_path / "records" / "images" / "0.png").write_bytes(b"broken")
    (tmp_path / "records" / "ducks.jsonl").write_text(json.dumps(_record(5)) + "\n")
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"task": "mybench_ducks_open", "id": "5", "response": "duck, rabbit"}) + "\n"
    )
    cmd[cmd.index("--model_args") + 1] += ",check_visuals=true"
    proc = subprocess.run([*cmd, "--output_path", str(out)], env=env, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert "id='5'" in log and "'image'" in log, log[-3000:]
    assert first.read_bytes() == before
    # the broken image is that item's error (issue 20): the run completes, the item is counted and scored wrong
    (second,) = [p for p in out.rglob("*results*.json") if p != first]
    results = json.loads(second.read_text())
    errors = results["ambi_plugin"]["item_errors"]["mybench_ducks_open"]
    assert errors["count"] == 1 and errors["items"][0]["id"] == "5" and "'image'" in errors["items"][0]["reason"]
    assert task_metrics(results)["mybench_ducks_open"]["acc"] == 0.0


def test_scaffolded_category_derives_metrics_and_joins_a_group(tmp_path, lmms_eval):
    """`ambi new-category` writes a YAML with no metric list that joins `ambibench_hybrid`; a second YAML joins
    `ambibench_all` itself, a third names both. lmms-eval runs `--tasks ambibench_all`: the first and the third run
    inside the hybrid group (itself inside ambibench_all), the second directly in ambibench_all, each with
    acc_<view> for its records' views."""
    from ambi_plugin.cli import main

    yamls, data = tmp_path / "my_tasks", tmp_path / "records"
    args = ["new-category", "--benchmark", "ambibench", "--category", "ducks", "--task-type", "open",
            "--prompt", "What two animals can you see? Answer 'Object1, Object2'.", "--views", "near,far",
            "--group", "ambibench_hybrid", "--yaml-dir", str(yamls), "--data-dir", str(data)]  # fmt: skip
    assert main(args) == 0
    text = (yamls / "ambibench_ducks_open.yaml").read_text()
    assert "acc_near" not in text and '"join_groups": ["ambibench_hybrid"]' in text  # view metrics are derived
    assert "include:" not in text and str(tasks_dir()) not in text  # no absolute path (issue 20)
    # the same records under another task name that joins ambibench_all directly (metadata.join_groups, by hand)
    (yamls / "ambibench_geese_open.yaml").write_text(
        text.replace("task: ambibench_ducks_open", "task: ambibench_geese_open").replace(
            '"join_groups": ["ambibench_hybrid"]', '"join_groups": ["ambibench_all"]'
        )
    )
    # and one that names a group and a group nested in it: it joins the inner one only (lmms-eval refuses a task
    # that is twice in a called group)
    (yamls / "ambibench_swans_open.yaml").write_text(
        text.replace("task: ambibench_ducks_open", "task: ambibench_swans_open").replace(
            '"join_groups": ["ambibench_hybrid"]', '"join_groups": ["ambibench_all", "ambibench_hybrid"]'
        )
    )
    answers = []
    with (data / "ducks.jsonl").open("w") as fh:
        for i in range(4):
            Image.new("RGB", (32, 32), (i * 40, 0, 0)).save(data / "images" / f"{i}.png")
            fh.write(json.dumps(_record(i, f"images/{i}.png")) + "\n")
            resp = ["Ducks, rabbit", "duck, rabbit", "duck, fox", "hat, shoe"][i]
            answers.append({"task": "ambibench_ducks_open", "id": str(i), "response": resp})
            answers.append({"task": "ambibench_geese_open", "id": str(i), "response": ["duck, rabbit", "x, y"][i % 2]})
            answers.append({"task": "ambibench_swans_open", "id": str(i), "response": "duck, rabbit"})
    from ambi_plugin.data.replayfiles import write_reference_predictions

    preds = tmp_path / "answers.jsonl"
    write_reference_predictions(preds, tasks="ambibench_all", mode="gold")  # the group's own tasks
    preds.write_text(preds.read_text() + "".join(json.dumps(a) + "\n" for a in answers))
    args = replay_args(preds, "ambibench_all", "--include_path", str(yamls))
    results = lmms_eval(args, tmp_path / "out", env={"AMBI_DATA_DIR": str(data)}, timeout=900).results
    got = task_metrics(results)["ambibench_ducks_open"]
    assert got["acc"] == pytest.approx(0.5)
    assert got["acc_near"] == pytest.approx(0.75) and got["acc_far"] == pytest.approx(0.5)
    geese = task_metrics(results)["ambibench_geese_open"]
    assert geese["acc"] == pytest.approx(0.5) and geese["acc_near"] == geese["acc_far"] == pytest.approx(0.5)
    assert task_metrics(results)["ambibench_hybrid_open"]["acc"] == 1.0  # the group's own tasks ran too
    members = results["group_subtasks"]
    assert "ambibench_ducks_open" in members["ambibench_hybrid"] and "ambibench_hybrid" in members["ambibench_all"]
    assert "ambibench_geese_open" in members["ambibench_all"]
    assert "ambibench_geese_open" not in members["ambibench_hybrid"]
    assert (
        "ambibench_swans_open" in members["ambibench_hybrid"] and "ambibench_swans_open" not in members["ambibench_all"]
    )
    assert task_metrics(results)["ambibench_swans_open"]["acc"] == 1.0


def _code_blocks(text: str) -> list[str]:
    """The indented code blocks of a Markdown section (a list item's blocks included), dedented, in order."""
    import textwrap

    blocks, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("    ") or (current and not line.strip()):
            current.append(line)
            continue
        if current:
            blocks.append(textwrap.dedent("\n".join(current).rstrip("\n")))
            current = []
    return blocks


def test_the_doc_shows_what_the_scaffold_writes(tmp_path, offline_env):
    """docs/adding-a-category.md: its command is run as shown; the YAML, the record and the next steps it shows
    are exactly what the scaffold writes and prints."""
    import shlex
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-category.md").read_text(encoding="utf-8")
    scaffold = doc[doc.index("## Scaffold it") : doc.index("## Run it")]
    run_it = doc[doc.index("## Run it") : doc.index("## What makes it work")]
    command, yaml_shown, record_shown = _code_blocks(scaffold)
    (next_shown,) = _code_blocks(run_it)
    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[:2] == ["ambi", "new-category"]
    proc = subprocess.run([sys.executable, "-m", "ambi_plugin.cli", *argv[1:]], env=offline_env, cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    (yaml_path,) = (tmp_path / "my_tasks").glob("*.yaml")
    assert yaml_path.name == "ambibench_ducks_open.yaml" and f"`my_tasks/{yaml_path.name}`" in scaffold
    assert yaml_shown + "\n" == yaml_path.read_text(encoding="utf-8")
    written = (tmp_path / "my_records" / "ducks.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(written) == 1 and json.loads(record_shown.replace("\n", "")) == json.loads(written[0])
    printed = proc.stdout[proc.stdout.index("next:") :].rstrip("\n")
    assert next_shown == printed
