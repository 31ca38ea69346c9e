"""What ``ambi demo`` prints after its run (:func:`ambi_plugin.cli.demo.demo_report`), on the results JSON of a real
lmms-eval run (``ambi_replay`` answers, so the counts are known): a summary first, one row per task, counts as whole
numbers, a legend of the names and cells that are not obvious, and the full table in a file."""

from __future__ import annotations

import json
import math
import re

import pytest

from ambi_plugin.cli.demo import demo_report
from ambi_plugin.core.answers import reference_response
from ambi_plugin.data.replayfiles import task_records
from ambi_plugin.lmms.cli_run import replay_args
from ambi_plugin.reports.results import task_metrics
from ambi_plugin.runtime.taskindex import expand_tasks, index

pytestmark = pytest.mark.e2e

# contrast_pixel: every other answer garbage (unparsed, na_rate); geometric_yn: all right, so fp_ratio = 0 / 0 (NaN)
TASKS = ("ambi_synth_contrast_pixel", "ambi_synth_geometric_yn")


def test_demo_prints_a_summary_rows_per_task_and_a_legend_and_keeps_the_full_table(tmp_path, lmms_eval):
    rows, garbage = [], 0
    for info in expand_tasks(",".join(TASKS)):
        for k, rec in enumerate(task_records(info)):
            mode = "garbage" if info.name == TASKS[0] and k % 2 else "gold"
            garbage += mode == "garbage"
            rows.append({"task": info.name, "id": str(rec["id"]), "response": reference_response(rec, mode)})
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    run = lmms_eval(replay_args(answers, ",".join(TASKS)), out)
    metrics = task_metrics(run.results)
    assert metrics[TASKS[0]]["unparsed"] == garbage > 0 and math.isnan(metrics[TASKS[1]]["fp_ratio"])

    text, missing = demo_report(run.results_path, output=out, log_path=out / "lmms-eval.log")
    assert missing == sorted(set(index()["ambi_synth_all"].members) - set(TASKS))
    lines = text.splitlines()
    first_table = next(i for i, ln in enumerate(lines) if ln.startswith("| task"))
    head = "\n".join(lines[:first_table])  # the summary comes first
    n_items = len(rows)
    assert f"tasks: 2 of 18 have results (none for: {', '.join(missing)})" in head
    assert f"items: {n_items} ({n_items // 2} per task)" in head
    assert f"scored: 1 of 2 tasks have a number for every metric; NaN (n/a) in 1: {TASKS[1]} (fp_ratio)" in head
    assert f"answers no parser could read: {garbage} of {n_items}" in head
    assert f"results JSON: {run.results_path}" in head and "per-item answers: 2 file(s)" in head
    # one row per task, counts as whole numbers
    table = [ln for ln in lines[first_table:] if ln.startswith("| ambi_")]
    assert len(table) == 2
    cells = {ln.split("|")[1].strip(): [c.strip() for c in ln.split("|")[2:-1]] for ln in table}
    assert cells[TASKS[0]][:4] == [str(n_items // 2), "acc", f"{metrics[TASKS[0]]['acc']:.4f}", str(garbage)]
    assert cells[TASKS[1]][-1] == "fp_ratio" and cells[TASKS[0]][-1] == "none"
    # the legend explains the names and cells of this run, and only those
    legend = text[text.index("legend:") :]
    for name in ("acc:", "na_rate:", "unparsed:", "fp_ratio:", "n/a: the value is NaN"):
        assert f"\n  {name}" in legend, name
    assert "ap50:" not in legend and "judge_errors:" not in legend
    # every metric of every task, in a file, counts as whole numbers
    full = (out / "results_table.md").read_text()
    assert f"results_table.md (or `ambi results {out}`)" in text
    for task, ms in metrics.items():
        for metric in ms:
            assert re.search(rf"\| {task} +\| {metric} +\|", full), (task, metric)
    assert re.search(rf"\| {TASKS[0]} +\| unparsed +\| {garbage} +\|", full)
    assert re.search(rf"\| {TASKS[1]} +\| fp_ratio +\| n/a +\|", full)
