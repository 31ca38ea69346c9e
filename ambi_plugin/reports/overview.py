"""A run at a glance, for ``ambi demo``: a short summary (tasks, items, how many tasks have every metric and which
metrics are NaN, where the files are), one row per task, and a legend of the metric names and cells that are not
obvious. The full table (every metric of every task) stays :func:`ambi_plugin.reports.results.format_results_table`.
"""

from __future__ import annotations

import math
from pathlib import Path

from ambi_plugin.reports.results import COUNT_METRICS, format_value, task_metrics

# What a reader needs to read the table; one line each, only for the names that appear in it.
LEGEND: dict[str, str] = {
    "acc": "share of items answered correctly (an answer no parser could read counts as wrong)",
    "exact_match": "multi-label choice: share of items whose set of letters is exactly the gold set",
    "fp_ratio": "FP / (FP + FN), True / Yes as positive: how much of the error is saying True / Yes (a bias "
    "indicator, not a score)",
    "ap50": "average precision of the boxes at IoU 0.5 (ap50_single / ap50_combined: images with one / several "
    "objects)",
    "hit_rate": "share of images whose every ground-truth box is found at IoU > 0.5",
    "desc_score": "mean description score, 0 to 2",
    "human_like_rate": "share of the illusion items answered as humans perceive them",
    "no_illusion_rate": "share of the illusion items answered by the pixel values",
    "na_rate": "share of the illusion items whose answer matches neither the human nor the pixel answer, "
    "unreadable answers included (the three rates sum to 1; the paper's N/A, not a missing value)",
    "control_acc": "accuracy on the control items (no illusion)",
    "unparsed_rate": "share of the answers no parser could read",
    "unparsed": "number of answers no parser could read (their ids and texts: `ambi results`)",
    "judge_errors": "number of items whose judge verdict could not be read (they count as wrong)",
}
SUBSET = (
    "<metric>_<name>: the metric over part of the items: one view of an open answer (acc_near, acc_layer1) or the "
    "items with one value of a record field (acc_easy, acc_trap, fp_ratio_classic)"
)
NAN = (
    "n/a: the value is NaN: nothing to compute it over in this run (fp_ratio with no false positive nor false "
    "negative, a subset with no items); not a zero and not a failure"
)
COUNTS = "whole numbers are counts (unparsed, judge_errors, items); the other values are shares or scores"


def _nan(value: float) -> bool:
    return isinstance(value, float) and math.isnan(value)


def headline(metrics: dict[str, float]) -> str | None:
    """The task's first metric that is a score (not a count, not the unparsed share)."""
    return next((m for m in metrics if m not in COUNT_METRICS and m != "unparsed_rate"), None)


def _items(results: dict, task: str) -> int | None:
    entry = (results.get("n-samples") or {}).get(task)
    value = entry.get("effective") if isinstance(entry, dict) else None
    return value if isinstance(value, int) else None


def task_rows(results: dict) -> str:
    """A Markdown table, one row per task: items, its headline metric, unparsed answers, the metrics that are NaN."""
    rows = [("task", "items", "metric", "value", "unparsed", "n/a (NaN) metrics")]
    for task, metrics in sorted(task_metrics(results).items()):
        main = headline(metrics)
        nan = [m for m, v in metrics.items() if _nan(v)]
        items = _items(results, task)
        unparsed = metrics.get("unparsed")
        rows.append((
            task,
            "?" if items is None else str(items),
            main or "-",
            format_value(metrics[main], main) if main else "-",
            "-" if unparsed is None else format_value(unparsed, "unparsed"),
            ", ".join(nan) if nan else "none",
        ))  # fmt: skip
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def summary(results: dict, *, expected: list[str] | None = None, files: dict[str, str] | None = None) -> str:
    """The few lines to read first: tasks and items, tasks with every metric and those with NaN, where the files
    are (``files``: label -> path, in order)."""
    got = task_metrics(results)
    wanted = sorted(expected) if expected else sorted(got)
    items = {t: _items(results, t) for t in got}
    counted = [n for n in items.values() if n is not None]
    per_task = sorted(set(counted))
    lines = [f"tasks: {len([t for t in wanted if t in got])} of {len(wanted)} have results"]
    missing = [t for t in wanted if t not in got]
    if missing:
        lines[-1] += f" (none for: {', '.join(missing)})"
    if counted:
        each = f"{per_task[0]} per task" if len(per_task) == 1 else f"{per_task[0]} to {per_task[-1]} per task"
        lines.append(f"items: {sum(counted)} ({each})")
    with_nan = {t: [m for m, v in ms.items() if _nan(v)] for t, ms in got.items()}
    with_nan = {t: ms for t, ms in with_nan.items() if ms}
    nan_list = "; ".join(f"{t} ({', '.join(ms)})" for t, ms in sorted(with_nan.items()))
    lines.append(
        f"scored: {len(got) - len(with_nan)} of {len(got)} tasks have a number for every metric"
        + (f"; NaN (n/a) in {len(with_nan)}: {nan_list}" if with_nan else "")
    )
    unread = sum(int(ms["unparsed"]) for ms in got.values() if "unparsed" in ms and not _nan(ms["unparsed"]))
    if counted:
        lines.append(f"answers no parser could read: {unread} of {sum(counted)}")
    for label, path in (files or {}).items():
        lines.append(f"{label}: {path}")
    return "\n".join(lines)


def legend(results: dict) -> str:
    """One line per metric name (and kind of cell) that appears in the run's table."""
    names = {m for ms in task_metrics(results).values() for m in ms}
    shown = [n for n in LEGEND if n in names]
    subsets = sorted(n for n in names if n not in LEGEND and not n.startswith("ap50_"))
    lines = [f"{n}: {LEGEND[n]}" for n in shown]
    if subsets:
        lines.append(SUBSET)
    if any(_nan(v) for ms in task_metrics(results).values() for v in ms.values()):
        lines.append(NAN)
    lines.append(COUNTS)
    return "\n".join(lines)


def write_full_table(results: dict, path: Path) -> Path:
    """The full table (every metric of every task) as a Markdown file."""
    from ambi_plugin.reports.results import format_results_table

    path.write_text(format_results_table(results) + "\n", encoding="utf-8")
    return path


__all__ = ["LEGEND", "headline", "legend", "summary", "task_rows", "write_full_table"]
