"""Repeated runs of one benchmark: N lmms-eval results JSONs -> the mean and sample standard deviation of every
metric of its tasks over the runs (NaN values, no item with a known answer, are left out of the mean; ``n`` keeps
how many runs had a value). The benchmark's entry lays the result out (``repeated_runs``: VIA-Bench's per-category
Match / Judge table); a benchmark without one gets a row per task and metric.

A benchmark command reaches this through the tools the CLI hands it (``benchmarks/commands.py``:
``CommandTools.repeated_runs``), e.g. ``ambi viabench runs``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

from ambi_plugin.benchmarks.registry import get
from ambi_plugin.reports.results import find_results_json, task_metrics
from ambi_plugin.reports.stats import mean_std


def load_runs(
    paths: Sequence[Path | str], keep: Callable[[str], bool] = lambda task: True
) -> list[dict[str, dict[str, float]]]:
    """{task: {metric: value}} of each run (a results JSON or an lmms-eval output folder), the tasks ``keep``
    accepts."""
    runs = []
    for p in paths:
        found = find_results_json(Path(p))
        metrics = task_metrics(json.loads(found.read_text(encoding="utf-8")))
        runs.append({t: m for t, m in metrics.items() if keep(t)})
    if not runs:
        raise ValueError("aggregating repeated runs needs at least one results JSON")
    return runs


def aggregate_runs(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """{task: {metric: {"mean", "std", "n"}}} over runs (NaN values skipped)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    tasks = sorted({t for run in runs for t in run})
    for task in tasks:
        metrics = sorted({m for run in runs for m in run.get(task, {})})
        for metric in metrics:
            vals = [run[task][metric] for run in runs if metric in run.get(task, {})]
            vals = [v for v in vals if not math.isnan(v)]
            mean, std = mean_std(vals)
            out.setdefault(task, {})[metric] = {"mean": mean, "std": std, "n": float(len(vals))}
    return out


def _cell(stats: dict) -> str:
    if not stats["n"]:
        return "-"
    if math.isnan(stats["std"]):  # one run: no standard deviation
        return f"{stats['mean']:.4f}"
    return f"{stats['mean']:.4f} ± {stats['std']:.4f}"


def per_task_table(agg: dict[str, dict[str, dict[str, float]]]) -> str:
    """A row per task and metric: mean ± std over the runs, and how many runs had a value."""
    lines = ["| task | metric | mean ± std | runs |", "|---|---|---|---|"]
    for task, metrics in agg.items():
        for metric, stats in metrics.items():
            lines.append(f"| {task} | {metric} | {_cell(stats)} | {int(stats['n'])} |")
    return "\n".join(lines)


def summarize(paths: Sequence[Path | str], benchmark: str) -> dict:
    """Everything a ``runs`` command prints and writes: ``runs`` (how many), ``metrics`` (:func:`aggregate_runs` of
    the benchmark's tasks), ``text`` and whatever else the entry's ``repeated_runs`` lays out."""
    entry = get(benchmark)
    runs = load_runs(paths, entry.owns_task)
    agg = aggregate_runs(runs)
    laid_out = entry.repeated_runs(agg) if entry.repeated_runs else {"text": per_task_table(agg)}
    return {"runs": len(runs), "metrics": agg, **laid_out}
