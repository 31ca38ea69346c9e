"""End to end through the real lmms-eval CLI, in fresh processes, with no --include_path.

Gold answers must give every metric its best value, deliberately wrong answers its worst, and
garbage must be counted as unparseable. lmms-eval exits 0 even when a run fails, so every
assertion reads the results JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

from ambi_plugin.core.answers import GARBAGE
from ambi_plugin.core.schema import read_records
from ambi_plugin.core.scoring import AGGREGATIONS, _split_name, slug
from ambi_plugin.data.replayfiles import write_reference_predictions
from ambi_plugin.data.sources import source_root
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.runtime.taskindex import expand_tasks, index

pytestmark = pytest.mark.e2e

SUITE = "ambi_synth_all"


def run_lmms(lmms_eval, tmp_path, predictions, tasks=SUITE):
    run = lmms_eval(replay_args(predictions, tasks), tmp_path / "out", timeout=900)
    return run.results, run


def _base_expected(base: str, recs: list[dict], good: bool) -> float:
    """What ``base`` must be over ``recs`` for gold (good) or deliberately wrong answers."""
    if not recs:
        return math.nan
    one = 1.0 if good else 0.0
    if base in ("acc", "exact_match", "control_acc", "hit_rate", "ap50"):
        return one
    if base in ("unparsed_rate", "unparsed", "judge_errors"):  # the offline judge reads every gold and wrong reply
        return 0.0
    if base == "na_rate":
        return 0.0 if good else 1.0
    if base in ("human_like_rate", "no_illusion_rate"):
        kind = "human" if base == "human_like_rate" else "pixel"
        return (1.0 if recs[0]["prompt_kind"] == kind else 0.0) if good else 0.0
    if base == "fp_ratio":  # gold: no errors, undefined; wrong: every item is an error
        return math.nan if good else sum(1 for r in recs if not r["answer_bool"]) / len(recs)
    if base == "desc_score":
        return 2.0 if good else 0.0
    if base in ("ap50_single", "ap50_combined"):
        group = base.split("_")[1]
        return one if any(b.get("group") == group for r in recs for b in r["boxes"]) else math.nan
    raise AssertionError(f"no expectation for {base}")


def expected_values(task: str, mode: str) -> dict[str, float]:
    """The value every declared metric must take for gold / wrong answers (NaN = must be NaN)."""
    recs = read_records(source_root("ambi://synth") / f"{task}.jsonl")
    declared = [m["metric"] for m in index()[task].config["metric_list"]]
    exp = {}
    for name in declared:
        split = None if name in AGGREGATIONS else _split_name(name)
        if split is None:
            exp[name] = _base_expected(name, recs, mode == "gold")
            continue
        base, value = split
        views = {v["name"] for v in recs[0].get("views") or []}
        subset = (
            recs
            if value in views
            else [r for r in recs if value in {slug(v) for v in (r.get("breakdown") or {}).values()}]
        )
        exp[name] = _base_expected(base, subset, mode == "gold")
    return exp


@pytest.mark.parametrize("mode", ["gold", "wrong"])
def test_replay_scores_best_and_worst(tmp_path, lmms_eval, mode):
    preds = tmp_path / f"{mode}.jsonl"
    write_reference_predictions(preds, tasks=SUITE, mode=mode)
    results, proc = run_lmms(lmms_eval, tmp_path, preds)
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


def test_garbage_is_counted_unparseable(tmp_path, lmms_eval):
    preds = tmp_path / "garbage.jsonl"
    tasks = "ambi_synth_contrast_pixel,ambi_synth_geometric_tf,ambi_synth_localization,ambi_synth_multichoice"
    write_reference_predictions(preds, tasks=tasks, mode="garbage")
    results, _ = run_lmms(lmms_eval, tmp_path, preds, tasks=tasks)
    got = task_metrics(results)
    section = results["ambi_plugin"]["unparsed"]
    for task, metrics in got.items():
        assert metrics["unparsed_rate"] == 1.0, task
        score = metrics.get("acc", metrics.get("exact_match", metrics.get("ap50")))
        assert score == 0.0, task
        # the count in the metrics; up to 20 of the unread answers, with their ids, in the results JSON
        ids = [r["id"] for r in read_records(source_root("ambi://synth") / f"{task}.jsonl")]
        assert metrics["unparsed"] == len(ids), task
        assert section[task]["count"] == len(ids)
        examples = section[task]["examples"]
        assert len(examples) == min(20, len(ids)) and {e["id"] for e in examples} <= set(ids)
        assert all(e["response"] == GARBAGE for e in examples), examples[:2]
    # every logged sample of an unread answer carries its id, the text and why it was not read
    samples = [json.loads(ln) for p in (tmp_path / "out").rglob("*samples_ambi_synth_localization*.jsonl")
               for ln in p.read_text().splitlines() if ln.strip()]  # fmt: skip
    assert samples and all(s["unparsed"]["parsed"] is False and s["unparsed"]["response"] == GARBAGE for s in samples)
    assert all(s["unparsed"]["id"] and s["unparsed"]["parse_reason"] for s in samples)
    # `ambi results` shows the short list
    from ambi_plugin.cli import main

    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["results", str(tmp_path / "out")]) == 0
    shown = out.getvalue()
    assert "Unparsed answers" in shown
    for task in got:
        assert f"{task}: {section[task]['count']} unparsed" in shown
        assert f"  - {section[task]['examples'][0]['id']}: " in shown


def test_missing_prediction_names_task_and_id(tmp_path, lmms_eval):
    preds = tmp_path / "partial.jsonl"
    task = "ambi_synth_geometric_yn"
    write_reference_predictions(preds, tasks=task, mode="gold")
    lines = preds.read_text().splitlines()
    dropped = json.loads(lines[1])
    preds.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    out = tmp_path / "out"
    run = lmms_eval(replay_args(preds, task), out, timeout=600, expect_results=False)
    log = run.stdout + run.stderr
    assert "no saved response" in log and dropped["id"] in log and task in log
    assert not list(out.rglob("*results*.json"))


def test_prediction_matching_no_record_is_reported_with_its_line(tmp_path, lmms_eval):
    preds = tmp_path / "stale.jsonl"
    task = "ambi_synth_geometric_yn"
    write_reference_predictions(preds, tasks=task, mode="gold")
    n_lines = len(preds.read_text().splitlines())
    with preds.open("a") as fh:
        fh.write(json.dumps({"task": task, "id": "no_such_record", "response": "yes"}) + "\n")
    run = lmms_eval(replay_args(preds, task), tmp_path / "out", timeout=600)
    log = run.stdout + run.stderr
    assert f"{preds}:{n_lines + 1} task {task!r} id 'no_such_record'" in log
    assert task_metrics(run.results)[task]["acc"] == 1.0  # reported, not fatal: every record had its answer
