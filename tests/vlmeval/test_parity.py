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
from ambi_plugin.vlmeval.spec import all_specs

pytestmark = pytest.mark.e2e

LIMIT = 3


def _tasks(*benchmarks: str) -> list[str]:
    return sorted(name for name, spec in all_specs().items() if spec.benchmark in benchmarks)


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

    from ambi_plugin.replayfile import expand_tasks, task_records
    from ambi_plugin.vlmeval.dataset import class_name
    from ambi_plugin.vlmeval.scoring import score_task
    from ambi_plugin.vlmeval.spec import read_docs

    specs = all_specs()
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
        default = score_task(specs[task], *docs_and_answers[task])  # the same answers read as original pixels
        assert default.metrics["hit_rate"] < 1.0, task
