"""Repeated runs (section 4.2: five runs averaged; Appendix C): N lmms-eval results JSONs -> mean and sample
standard deviation of every VIA-Bench metric, and the paper's per-category Match / Judge table.

Each run is one lmms-eval invocation (a different seed, temperature, or ``$AMBI_VIABENCH_PERMUTE_SEED``).
A category's row comes from its own task (``ambi_viabench_<cat>[_variant]``) or, for the validation task
with categories, from its ``<metric>_<cat>`` breakdown. NaN values (no item with a known answer) are left
out of the mean and the number of runs that had a value is kept (``n``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.reports.results import find_results_json, task_metrics
from ambi_plugin.reports.stats import mean_std

PREFIX = "ambi_viabench_"


def load_runs(paths: list[Path | str]) -> list[dict[str, dict[str, float]]]:
    """{task: {metric: value}} of each run (a results JSON or an lmms-eval output folder), VIA-Bench tasks only."""
    runs = []
    for p in paths:
        found = find_results_json(Path(p))
        metrics = task_metrics(json.loads(found.read_text(encoding="utf-8")))
        runs.append({t: m for t, m in metrics.items() if t.startswith(PREFIX)})
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


def _variant_of(task: str) -> tuple[str, str] | None:
    """``ambi_viabench_gsi_zs_cot`` -> (``gsi``, ``zs_cot``); ``ambi_viabench_val_blind`` -> (``val``, ``blind``)."""
    rest = task.removeprefix(PREFIX)
    for variant, (suffix, _, _) in S.VARIANTS.items():
        if suffix and rest.endswith(suffix):
            return rest.removesuffix(suffix), variant
    return rest, "normal"


def category_table(agg: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, dict[str, dict]]]:
    """{variant: {category: {"match": stats, "judge": stats, "not_sure": stats}}} (stats as in :func:`aggregate_runs`)."""
    table: dict[str, dict[str, dict[str, dict]]] = {}
    for task, metrics in agg.items():
        source, variant = _variant_of(task)
        for cat in S.CATEGORIES:
            suffix = "" if source == cat else (f"_{cat}" if source == "val" else None)
            if suffix is None or f"acc_match{suffix}" not in metrics:
                continue
            row = {
                "match": metrics[f"acc_match{suffix}"],
                "judge": metrics[f"acc_judge{suffix}"],
                "not_sure": metrics.get(f"not_sure_rate{suffix}"),
            }
            if row["match"]["n"] or cat not in table.get(variant, {}):
                table.setdefault(variant, {})[cat] = row
    return table


def _cell(stats: dict | None) -> str:
    if not stats or not stats["n"]:
        return "-"
    if math.isnan(stats["std"]):  # one run: no standard deviation (as in ambi report)
        return f"{100 * stats['mean']:.2f}"
    return f"{100 * stats['mean']:.2f} ± {100 * stats['std']:.2f}"


def format_table(table: dict[str, dict[str, dict[str, dict]]]) -> str:
    """Table 3.2's layout per variant: Avg (mean of the 12 cells when all are present), then Match / Judge, then
    Not Sure: how often Match read "Not Sure", the unweighted mean over the categories that have a value."""
    head = "| variant | Avg. | " + " | ".join(f"{c.upper()} Match | {c.upper()} Judge" for c in S.CATEGORIES)
    lines = [head + " | Not Sure |", "|" + "---|" * (3 + 2 * len(S.CATEGORIES))]
    for variant in S.VARIANTS:
        rows = table.get(variant)
        if not rows:
            continue
        cells = [rows.get(c, {}).get(k) for c in S.CATEGORIES for k in ("match", "judge")]
        means = [c["mean"] for c in cells if c and c["n"]]
        avg = f"{100 * sum(means) / len(means):.2f}" if len(means) == len(cells) else "-"
        ns = [rows[c]["not_sure"]["mean"] for c in S.CATEGORIES if (rows.get(c) or {}).get("not_sure")]
        ns = [v for v in ns if not math.isnan(v)]
        ns_cell = f"{100 * sum(ns) / len(ns):.2f}" if ns else "-"
        body = " | ".join(_cell(c) for c in cells)
        lines.append(f"| {S.VARIANTS[variant][1]} | {avg} | {body} | {ns_cell} |")
    return "\n".join(lines)


def summarize(paths: list[Path | str]) -> dict:
    """Everything the ``runs`` command prints and writes."""
    runs = load_runs(paths)
    agg = aggregate_runs(runs)
    table = category_table(agg)
    return {"runs": len(runs), "metrics": agg, "categories": table, "text": format_table(table)}
