"""Parity: the same replayed responses give identical results through lmms-eval and through VLMEvalKit.

Both harnesses run for real in fresh processes: lmms-eval's CLI with ``ambi_replay`` and ``--log_samples``,
VLMEvalKit's run.py (through ``python -m ambi_plugin.vlmeval``) with the replay model registered into
``supported_VLM``. For every task of every benchmark (on generated or real fixture data) the tests compare
every number lmms-eval reports (a numeric stderr would have to match too), the item count, every item
score (our item file against lmms-eval's logged samples) and every prompt (VLMEvalKit's prediction
``question`` against lmms-eval's logged input), exactly. Each record's answer (gold, wrong or garbage) is
chosen by a hash of its id, so a record paired with another record's response changes the item scores.
"""

from __future__ import annotations

import pytest
from illusion_fixtures import illusionbench_copy, illusionvqa_copy
from vlmeval_run import assert_same_run, lmms_samples, run_vlmeval, vlmeval_outputs, write_hashed_answers

from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.runtime.task import all_tasks

pytestmark = pytest.mark.e2e

LIMIT = 3


def _tasks(*benchmarks: str) -> list[str]:
    return sorted(name for name, spec in all_tasks().items() if spec.benchmark in benchmarks)


def _compare(lmms_eval, tmp_path, tasks: list[str], env: dict) -> None:
    assert tasks
    answers = tmp_path / "answers.jsonl"
    assert write_hashed_answers(answers, tasks, LIMIT) > 0
    lmms = lmms_eval(replay_args(answers, ",".join(tasks), "--limit", str(LIMIT)), tmp_path / "lmms", env=env)
    work = tmp_path / "vlmeval"
    proc = run_vlmeval(
        ["--data", *tasks, "--model", "ambi_replay", "--limit", str(LIMIT)],
        work=work,
        env={**env, "AMBI_REPLAY_PREDICTIONS": str(answers)},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert_same_run(lmms.results, lmms_samples(lmms), vlmeval_outputs(work), tasks)


def test_synth_and_ambibench_parity(lmms_eval, tmp_path, offline_env, monkeypatch):
    monkeypatch.setenv("AMBI_SYNTH_N", "3")
    env = {**offline_env, "AMBI_SYNTH_N": "3"}
    _compare(lmms_eval, tmp_path, _tasks("ambi_synth", "ambibench"), env)


def test_illusionbench_and_illusionvqa_parity(lmms_eval, tmp_path, offline_env, monkeypatch, shared_data):
    data = {
        "AMBI_ILLUSIONBENCH_DIR": str(illusionbench_copy(tmp_path / "data")),
        "AMBI_ILLUSIONVQA_DIR": str(illusionvqa_copy(tmp_path / "data", shared_data)),
    }
    for key, val in data.items():
        monkeypatch.setenv(key, val)
    _compare(lmms_eval, tmp_path, _tasks("illusionbench", "illusionvqa"), {**offline_env, **data})


def test_viabench_parity(lmms_eval, tmp_path, offline_env, monkeypatch, shared_data):
    from viabench_fixtures import build_copy  # the real val split + fixtures

    data = str(build_copy(tmp_path / "data", shared_data))
    monkeypatch.setenv("AMBI_VIABENCH_DIR", data)
    _compare(lmms_eval, tmp_path, _tasks("viabench"), {**offline_env, "AMBI_VIABENCH_DIR": data})


def test_rcid_parity(lmms_eval, tmp_path, offline_env, monkeypatch):
    from ambi_plugin.benchmarks.rcid import build_synthetic

    data = str(build_synthetic(tmp_path / "data", n=8))
    monkeypatch.setenv("AMBI_RCID_DIR", data)
    _compare(lmms_eval, tmp_path, _tasks("rcid"), {**offline_env, "AMBI_RCID_DIR": data})


BOX_TASKS = ["ambibench_mixed_localization", "ambibench_multiscene_localization"]  # YAMLs with per-model entries


def _boxes_in(rec: dict, entry: dict) -> str:
    from ambi_plugin.core.coords import from_original_pixels

    boxes = [from_original_pixels(b["box"], {**rec, **entry}) for b in rec["boxes"]]
    return "[" + ", ".join("({:.0f}, {:.0f}, {:.0f}, {:.0f})".format(*b) for b in boxes) + "]"


def test_qwen2_5_vl_entry_scores_boxes_as_lmms_eval_does(tmp_path, offline_env):
    """A VLMEvalKit model named Qwen2.5-VL-* gets the YAML's ``qwen2_5_vl`` entry (boxes in pixels of the
    resized input) from the launcher: the same numbers, items and prompts as lmms-eval under that entry."""
    import json

    from vlmeval_run import lmms_eval_as

    from ambi_plugin.data.replayfiles import task_records
    from ambi_plugin.data.taskdocs import read_docs
    from ambi_plugin.runtime.taskindex import expand_tasks
    from ambi_plugin.vlmeval.dataset import class_name

    specs = all_tasks()
    rows, docs_and_answers = [], {}
    for info in expand_tasks(BOX_TASKS):
        entry = specs[info.name].prompt_kwargs["qwen2_5_vl"]
        assert entry["box_format"] == "qwen_resized"
        answers = {str(r["id"]): _boxes_in(r, entry) for r in task_records(info)}
        rows += [{"task": info.name, "id": rid, "response": text} for rid, text in answers.items()]
        docs = read_docs(specs[info.name])
        docs_and_answers[info.name] = (docs, [answers[str(json.loads(d["record"])["id"])] for d in docs])
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))

    lmms = lmms_eval_as("qwen2_5_vl", BOX_TASKS, answers, 100, tmp_path / "lmms.json", offline_env)
    model = "Qwen2.5-VL-7B-Instruct"  # a replay model under a Qwen2.5-VL name: the launcher maps the name
    config = tmp_path / "config.json"
    config.write_text(json.dumps({
        "model": {model: {"class": "AmbiReplayVLM", "predictions": str(answers)}},
        "data": {t: {"class": class_name(t)} for t in BOX_TASKS},
    }))  # fmt: skip
    work = tmp_path / "vlmeval"
    proc = run_vlmeval(["--config", str(config)], work=work, env=offline_env)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "lmms-eval entry 'qwen2_5_vl'" in proc.stderr
    ours = vlmeval_outputs(work, model=model)
    assert_same_run(lmms, lmms["samples"], ours, BOX_TASKS)
    for task in BOX_TASKS:
        score = ours[task]["score"]
        assert score["prompt_entry"] == "qwen2_5_vl" and score["model_settings"]["box_format"] == "qwen_resized"
        assert score["metrics"]["hit_rate"] == 1.0, task  # every box, read in the model's coordinates, hits
        default = specs[task].evaluate(*docs_and_answers[task])  # the same answers read as original pixels
        assert default.metrics["hit_rate"] < 1.0, task


# -- the answers models really give, in every prediction format ------------------------------------------
# One task per task type (the synthetic suite has all ten); record k of each task gets REALISTIC(gold, wrong)[k].
REALISTIC_TASKS = [
    "ambi_synth_contrast_pixel",  # perception
    "ambi_synth_filter_pixel",  # color_naming
    "ambi_synth_geometric_tf",  # true_false
    "ambi_synth_geometric_yn",  # yes_no
    "ambi_synth_geometric_mc",  # choice
    "ambi_synth_multichoice",  # multi_choice
    "ambi_synth_hybrid_open",  # open
    "ambi_synth_region",  # region
    "ambi_synth_localization",  # localization
    "ambi_synth_description",  # description
]
NA_STRINGS = ["None", "N/A", "NA", "null", "nan", "NaN", "n/a", ""]


def realistic(gold: str, wrong: str) -> list[str]:
    """16 answers as models give them: pandas' NA strings (``None`` is also what our localization prompt asks
    for when there is no object), ``=``-leading text, control characters, tabs and newlines, a 40,000-character
    chain of thought (answer at its end, and at its start), unicode, the plain gold and wrong answers."""
    thinking = "Let me look at the image step by step; the shapes and their sizes matter here. "
    cot_end = (thinking * 600)[: 40000 - len(gold) - 9] + f"\nAnswer: {gold}"
    cot_start = f"Answer: {gold}\n" + (thinking * 600)[: 40000 - len(gold) - 9]
    return [
        *NA_STRINGS,
        f"={gold}",
        f"\x02{gold}\x1b[0m\x00",
        f"Answer:\t{gold}\r\n\nReason:\tit is\nso.",
        cot_end,
        f"答案：{gold} ✓ — «sûr» 👍",
        gold,
        wrong,
        cot_start,
    ]


def xlsx_damages(answer: str) -> bool:
    """What an xlsx prediction file is known to damage: a formula, control characters, > 32,767 characters."""
    import re

    return answer.startswith("=") or bool(re.search(r"[\x00-\x08\x0b-\x1f]", answer)) or len(answer) > 32767


@pytest.fixture(scope="module")
def realistic_run(tmp_path_factory):
    """One lmms-eval run of the realistic answers (shared by every format) and the answers per task/doc."""
    import json
    import os

    from vlmeval_run import lmms_samples

    from ambi_plugin.core.answers import reference_response
    from ambi_plugin.data.replayfiles import task_records
    from ambi_plugin.lmms.cli_run import run_lmms_eval
    from ambi_plugin.runtime.taskindex import expand_tasks

    root = tmp_path_factory.mktemp("realistic")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "AMBI_SYNTH_N": "16"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AMBI_SYNTH_N", "16")
        rows, given = [], {}
        for info in expand_tasks(REALISTIC_TASKS):
            recs = task_records(info)
            assert len(recs) == 16, info.name
            for k, rec in enumerate(recs):
                answer = realistic(reference_response(rec, "gold"), reference_response(rec, "wrong"))[k]
                rows.append({"task": info.name, "id": str(rec["id"]), "response": answer})
                given[(info.name, k)] = answer
    answers = root / "answers.jsonl"
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    lmms = run_lmms_eval(replay_args(answers, ",".join(REALISTIC_TASKS)), output=root / "lmms", env=env)
    assert lmms.results is not None, lmms.tail()
    return {"root": root, "env": env, "answers": answers, "lmms": lmms, "samples": lmms_samples(lmms), "given": given}


def _realistic_vlmeval(run: dict, fmt: str | None):
    work = run["root"] / f"vlmeval-{fmt or 'default'}"
    env = {k: v for k, v in run["env"].items() if k != "PRED_FORMAT"}
    if fmt:
        env["PRED_FORMAT"] = fmt
    proc = run_vlmeval(
        ["--data", *REALISTIC_TASKS, "--model", "ambi_replay"],
        work=work,
        env={**env, "AMBI_REPLAY_PREDICTIONS": str(run["answers"])},
        launcher=("-m", "ambi_plugin.cli", "vlmeval"),  # `ambi vlmeval`
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc, vlmeval_outputs(work)


@pytest.mark.parametrize("fmt", [None, "json", "tsv"])
def test_realistic_answers_score_identically_in_lossless_formats(realistic_run, fmt):
    """The default of ``ambi vlmeval`` (json), and json / tsv set by the user: every number, item and prompt equal
    lmms-eval's for every task type, no answer damaged."""
    proc, ours = _realistic_vlmeval(realistic_run, fmt)
    want = fmt or "json"
    said = "(PRED_FORMAT set by you)" if fmt else "(PRED_FORMAT=json: answers kept exactly"
    assert f"ambi vlmeval: prediction files in {want} {said}" in proc.stderr
    assert "ambi-plugin: warning" not in proc.stderr
    assert_same_run(realistic_run["lmms"].results, realistic_run["samples"], ours, REALISTIC_TASKS)
    for task in REALISTIC_TASKS:
        assert ours[task]["file"].suffix == f".{want}", task
        assert ours[task]["score"]["prediction_format"] == want and ours[task]["score"]["damaged_answers"] == 0


def test_realistic_answers_in_xlsx_differ_only_where_damage_was_counted(realistic_run):
    """``PRED_FORMAT=xlsx`` (VLMEvalKit's default): scored without error; an item whose score differs from
    lmms-eval's is one the file damaged, every damaged answer is counted and marked, and one warning names json."""
    from vlmeval_run import plain

    proc, ours = _realistic_vlmeval(realistic_run, "xlsx")
    assert sorted(ours) == sorted(REALISTIC_TASKS)
    assert proc.stderr.count("ambi-plugin: warning: the xlsx prediction file") == 1
    assert "PRED_FORMAT=json keeps answers exactly" in proc.stderr
    differing = 0
    for task in REALISTIC_TASKS:
        got = ours[task]
        expected = {k for k in range(16) if xlsx_damages(realistic_run["given"][(task, k)])}
        assert expected, task  # every task has answers xlsx damages
        assert got["score"]["prediction_format"] == "xlsx"
        assert got["score"]["damaged_answers"] == len(expected), task
        assert {i for i, row in got["items"].items() if "damaged" in row} == expected, task
        assert got["score"]["n"] == len(realistic_run["samples"][task]) == 16
        for doc_id, sample in realistic_run["samples"][task].items():
            item = got["items"][doc_id]
            same = all(plain(item["scores"][m]) == plain(sample[m]) for m in item["scores"])
            assert same or doc_id in expected, f"{task} doc {doc_id}: differs but no damage was counted"
            differing += not same
            assert got["questions"][doc_id] == sample["input"], f"{task} doc {doc_id}: prompts differ"
    assert differing > 0  # the damage is real: some scores move
