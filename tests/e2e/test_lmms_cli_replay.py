"""End to end through the real lmms-eval CLI, in fresh processes, with no --include_path.

Gold answers must give every metric its best value, deliberately wrong answers its worst, and
garbage must be counted as unparseable. lmms-eval exits 0 even when a run fails, so every
assertion reads the results JSON.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from ambi_plugin.core.schema import read_records
from ambi_plugin.lmms.datasets import source_root
from ambi_plugin.replayfile import expand_tasks, write_reference_predictions
from ambi_plugin.report import find_results_json, task_metrics

pytestmark = pytest.mark.e2e

SUITE = "ambi_synth_all"


def run_lmms(tmp_path, env, predictions, tasks=SUITE, extra=()):
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "ambi_replay",
        "--model_args",
        f"predictions={predictions}",
        "--tasks",
        tasks,
        "--batch_size",
        "1",
        "--output_path",
        str(out),
        "--log_samples",
        *extra,
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    try:
        path = find_results_json(out)
    except FileNotFoundError:
        pytest.fail(
            f"lmms-eval wrote no results JSON (rc={proc.returncode})\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
        )
    return json.loads(path.read_text()), proc


def expected_values(task: str, mode: str) -> dict[str, float]:
    """The value every metric must take for gold / wrong answers (NaN = must be NaN)."""
    recs = read_records(source_root("ambi://synth") / f"{task}.jsonl")
    ttype = recs[0]["task_type"]
    good = mode == "gold"
    one, zero = (1.0, 0.0) if good else (0.0, 1.0)
    exp: dict[str, float] = {"unparsed_rate": 0.0}
    if ttype == "perception":
        kind = recs[0]["prompt_kind"]
        exp.update(acc=one, control_acc=one, na_rate=0.0 if good else 1.0)
        exp["human_like_rate"] = (1.0 if kind == "human" else 0.0) if good else 0.0
        exp["no_illusion_rate"] = (1.0 if kind == "pixel" else 0.0) if good else 0.0
    elif ttype in ("choice", "open", "region"):
        exp["acc"] = one
        for v in recs[0].get("views") or []:
            if len(recs[0]["views"]) > 1:
                exp[f"acc_{v['name']}"] = one
    elif ttype == "multi_choice":
        exp["exact_match"] = one
    elif ttype in ("true_false", "yes_no"):
        exp["acc"] = one
        # gold: no errors, FP ratio undefined (NaN); wrong: every item is an error
        n_false = sum(1 for r in recs if not r["answer_bool"])
        exp["fp_ratio"] = math.nan if good else n_false / len(recs)
    elif ttype == "localization":
        exp.update(ap50=one, hit_rate=one)
        groups = {b.get("group") for r in recs for b in r["boxes"]}
        exp["ap50_single"] = one if "single" in groups else math.nan
        exp["ap50_combined"] = one if "combined" in groups else math.nan
    elif ttype == "description":
        exp["desc_score"] = 2.0 if good else 0.0
    del zero
    return exp


@pytest.mark.parametrize("mode", ["gold", "wrong"])
def test_replay_scores_best_and_worst(tmp_path, offline_env, mode):
    preds = tmp_path / f"{mode}.jsonl"
    write_reference_predictions(preds, tasks=SUITE, mode=mode)
    results, proc = run_lmms(tmp_path, offline_env, preds)
    got = task_metrics(results)
    tasks = [t.name for t in expand_tasks(SUITE)]
    assert sorted(got) == sorted(tasks), proc.stderr[-3000:]
    for task in tasks:
        exp = expected_values(task, mode)
        assert sorted(got[task]) == sorted(exp), f"{task}: metrics {sorted(got[task])} != {sorted(exp)}"
        for metric, want in exp.items():
            val = got[task][metric]
            if math.isnan(want):
                assert math.isnan(val), f"{task}.{metric} = {val}, expected NaN"
            else:
                assert val == pytest.approx(want), f"{task}.{metric} = {val}, expected {want} ({mode})"


def test_garbage_is_counted_unparseable(tmp_path, offline_env):
    preds = tmp_path / "garbage.jsonl"
    tasks = "ambi_synth_contrast_pixel,ambi_synth_geometric_tf,ambi_synth_localization,ambi_synth_multichoice"
    write_reference_predictions(preds, tasks=tasks, mode="garbage")
    results, _ = run_lmms(tmp_path, offline_env, preds, tasks=tasks)
    got = task_metrics(results)
    for task, metrics in got.items():
        assert metrics["unparsed_rate"] == 1.0, task
        score = metrics.get("acc", metrics.get("exact_match", metrics.get("ap50")))
        assert score == 0.0, task


def test_missing_prediction_names_task_and_id(tmp_path, offline_env):
    preds = tmp_path / "partial.jsonl"
    task = "ambi_synth_geometric_yn"
    write_reference_predictions(preds, tasks=task, mode="gold")
    lines = preds.read_text().splitlines()
    dropped = json.loads(lines[1])
    preds.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "lmms_eval",
        "--model",
        "ambi_replay",
        "--model_args",
        f"predictions={preds}",
        "--tasks",
        task,
        "--output_path",
        str(out),
    ]
    proc = subprocess.run(cmd, env=offline_env, capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert "no saved response" in log and dropped["id"] in log and task in log
    assert not list(out.rglob("*results*.json"))
