"""Repeated runs (section 4.2: five runs averaged; Appendix C): VIA-Bench's table of the mean and sample standard
deviation over N runs, per category and variant (Match / Judge), from what the generic summary gathers
(:func:`ambi_plugin.reports.repeated_runs.summarize`: every metric of every VIA-Bench task over the runs).

Each run is one lmms-eval invocation (a different seed, temperature, or ``$AMBI_VIABENCH_PERMUTE_SEED``).
A category's row comes from its own task (``ambi_viabench_<cat>[_variant]``) or, for the validation task
with categories, from its ``<metric>_<cat>`` breakdown. NaN values (no item with a known answer) are left
out of the mean and the number of runs that had a value is kept (``n``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ambi_plugin.benchmarks.viabench import spec as S

PREFIX = "ambi_viabench_"


def _variant_of(task: str) -> tuple[str, str]:
    """``ambi_viabench_gsi_zs_cot`` -> (``gsi``, ``zs_cot``); ``ambi_viabench_val_blind`` -> (``val``, ``blind``)."""
    rest = task.removeprefix(PREFIX)
    for variant, (suffix, _, _) in S.VARIANTS.items():
        if suffix and rest.endswith(suffix):
            return rest.removesuffix(suffix), variant
    return rest, "normal"


def category_table(agg: Mapping[str, Mapping[str, dict]]) -> dict[str, dict[str, dict[str, dict]]]:
    """{variant: {category: {"match": stats, "judge": stats, "not_sure": stats}}} (stats: ``{"mean", "std", "n"}``
    of :func:`ambi_plugin.reports.repeated_runs.aggregate_runs`)."""
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


def summary(agg: Mapping[str, Mapping[str, dict]]) -> dict:
    """The entry's ``repeated_runs``: the per-category table (``categories``) and its text."""
    table = category_table(agg)
    return {"categories": table, "text": format_table(table)}
