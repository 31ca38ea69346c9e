"""Per-category tables in the layout of the IllusionBench and IllusionVQA papers (Markdown).

Input: ``values = {column: {metric name: value}}``, metric names as the tasks report them (``acc``,
``acc_impossible_object``, ``fp_ratio_trap``, ``desc_score_llm_hard`` ...), one column per model or
answer set. Missing or NaN cells print as ``n/a``.

==============================  ==========================================================================
``illusionvqa_comprehension``   Table 1 / Table 8: one row per class (paper order) and Total, accuracy in %
                                (2 decimals), columns = answer sets; then Table 5's question types
``illusionvqa_soft_localization``  Table 3: one row per answer set with its prompt type, accuracy in %
``illusionbench_tf``            Table II (accuracy) and Table V (FP ratio): one row per answer set,
                                columns P1-P5, Easy, Neutral, Hard, All (4 decimals)
``illusionbench_mc``            Table III (accuracy), same columns
``illusionbench_description``   Table VI (mean score, same columns) and Table IV (mean +- std over items)
==============================  ==========================================================================

Which metric is which row or column is laid out once, in :mod:`ambi_plugin.reports.layouts` (the layouts
``iv_table_1``, ``iv_table_5``, ``iv_table_3``, ``ib_table_ii`` ... that ``ambi report`` renders too); this module
prints them in the compact form of ``ambi score``: answer sets as columns (IllusionVQA) or rows (IllusionBench).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.core.scoring import slug
from ambi_plugin.reports.layouts import PAPER_LAYOUTS, Column, Layout

Values = Mapping[str, Mapping[str, float]]
KINDS = (
    "illusionvqa_comprehension",
    "illusionvqa_soft_localization",
    "illusionbench_tf",
    "illusionbench_mc",
    "illusionbench_description",
)
LAYOUTS: dict[str, Layout] = {lay.key: lay for lay in PAPER_LAYOUTS}


def _num(v: float | None, *, pct: bool = False, digits: int = 4) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return f"{100 * v:.2f}" if pct else f"{v:.{digits}f}"


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    table = [list(header), *[list(r) for r in rows]]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _metric(column: Column, suffix: str = "") -> str:
    """The metric name of a layout column (``{s}``: the protocol's suffix, "" or "_llm")."""
    return column.sources[0][1].format(s=suffix)


def _count(counts: Mapping[str, int], metric: str) -> int | None:
    """The record count of the class an ``acc_<class>`` column reads (None when not counted)."""
    cls = next((c for c in IV.CATEGORIES if f"acc_{slug(c)}" == metric), None)
    return None if cls is None else counts.get(cls)


def comprehension_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 1 / 8 layout (``iv_table_1``): Class | # | one accuracy column (%) per answer set; Total; unparsed."""
    cols = list(values)
    counts = counts or {}
    *classes, total_col = LAYOUTS["iv_table_1"].columns
    rows = []
    for col in classes:
        n = _count(counts, _metric(col))
        rows.append(
            [col.label, "" if n is None else str(n)] + [_num(values[c].get(_metric(col)), pct=True) for c in cols]
        )
    total = sum(_count(counts, _metric(col)) or 0 for col in classes) if counts else None
    rows.append(
        [total_col.label, "" if total is None else str(total)]
        + [_num(values[c].get(_metric(total_col)), pct=True) for c in cols]
    )
    if any("unparsed" in values[c] for c in cols):
        rows.append(["Unparsed answers", ""] + [str(values[c].get("unparsed", "")) for c in cols])
    return markdown(["Class", "#", *cols], rows)


def question_type_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 5's question types (``iv_table_5``) with their counts and each answer set's accuracy (%)."""
    cols = list(values)
    counts = counts or {}
    rows = []
    for col in LAYOUTS["iv_table_5"].columns:
        n = counts.get(_metric(col).removeprefix("acc_"))
        rows.append(
            [col.label, "" if n is None else str(n)] + [_num(values[c].get(_metric(col)), pct=True) for c in cols]
        )
    return markdown(["Question type", "Count", *cols], rows)


def soft_localization_table(values: Values, prompt_type: str | Mapping[str, str] = "") -> str:
    """Table 3 layout (``iv_table_3``): answer set | prompt type | accuracy (%); ``prompt_type`` one for all, or
    per answer set."""
    (acc,) = LAYOUTS["iv_table_3"].columns
    unparsed = any("unparsed" in vals for vals in values.values())  # a column when any answer set has the count
    rows = []
    for col, vals in values.items():
        pt = prompt_type.get(col, "") if isinstance(prompt_type, Mapping) else prompt_type
        row = [col, pt, _num(vals.get(_metric(acc)), pct=True)]
        if unparsed:
            row.append(str(vals["unparsed"]) if "unparsed" in vals else "n/a")
        rows.append(row)
    header = ["VLM", "Prompt Type", acc.label] + (["Unparsed"] if unparsed else [])
    return markdown(header, rows)


def illusionbench_table(values: Values, key: str, suffix: str = "", *, digits: int = 4) -> str:
    """Tables II / III / V / VI layout (``ib_table_ii`` ...): a row per answer set; P1-P5, Easy, Neutral, Hard, All."""
    columns = LAYOUTS[key].columns
    header = ["VLMs", *(col.label for col in columns)]
    rows = [
        [col, *(_num(vals.get(_metric(c, suffix)), digits=digits) for c in columns)] for col, vals in values.items()
    ]
    return markdown(header, rows)


def description_summary(values: Values, suffix: str = "") -> str:
    """Table IV layout (``ib_table_iv``): mean +- standard deviation over items."""
    mean, std = (_metric(c, suffix) for c in LAYOUTS["ib_table_iv"].columns)
    rows = [[col, f"{_num(vals.get(mean))} \u00b1 {_num(vals.get(std))}"] for col, vals in values.items()]
    return markdown(["VLMs", "Semantic Content Description"], rows)


def paper_tables(
    kind: str,
    values: Values,
    *,
    counts: Mapping[str, int] | None = None,
    prompt_type: str | Mapping[str, str] = "",
    protocols: Sequence[str] = ("rule",),
) -> str:
    """Every table of ``kind`` for ``values`` (``protocols``: "rule" and/or "llm" for IllusionBench)."""
    if kind not in KINDS:
        raise ValueError(f"Expected argument `kind` to be one of {KINDS} but got {kind!r}")
    if kind == "illusionvqa_comprehension":
        parts = ["IllusionVQA-Comprehension accuracy (%) per class (Table 1 / Table 8 layout)"]
        parts.append(comprehension_table(values, counts))
        parts.append("\nQuestion types (Table 5)")
        parts.append(question_type_table(values, counts))
        return "\n".join(parts)
    if kind == "illusionvqa_soft_localization":
        return "IllusionVQA-Soft-Localization accuracy (%) (Table 3 layout)\n" + soft_localization_table(
            values, prompt_type
        )
    out = []
    for proto in protocols:
        sfx = "_llm" if proto == "llm" else ""
        label = "LLM-assisted" if proto == "llm" else "rule-based"
        if kind == "illusionbench_tf":
            out.append(f"IllusionBench true-or-false accuracy, {label} (Table II layout)")
            out.append(illusionbench_table(values, "ib_table_ii", sfx))
            out.append(f"\nIllusionBench true-or-false FP ratio FP/(FP+FN), {label} (Table V layout)")
            out.append(illusionbench_table(values, "ib_table_v", sfx))
        elif kind == "illusionbench_mc":
            out.append(f"IllusionBench multiple-choice accuracy, {label} (Table III layout)")
            out.append(illusionbench_table(values, "ib_table_iii", sfx))
        else:
            out.append(f"IllusionBench description score 0-2, {label} (Table VI layout)")
            out.append(illusionbench_table(values, "ib_table_vi", sfx))
            out.append(f"\nMean \u00b1 std over items, {label} (Table IV layout)")
            out.append(description_summary(values, sfx))
        out.append("")
    return "\n".join(out).rstrip()


def tables_from_results(results: Mapping[str, Any]) -> str:
    """The paper tables of every IllusionBench / IllusionVQA task in an lmms-eval results JSON."""
    from ambi_plugin.reports.answers import ScoreError
    from ambi_plugin.reports.results import task_metrics
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    parts = []
    column = str(results.get("model_name") or (results.get("config") or {}).get("model") or "results")
    for task, metrics in sorted(task_metrics(results).items()):
        info = idx.get(task)
        meta = (info.config.get("metadata") or {}) if info else {}
        kind = meta.get("paper_table")
        if not kind:
            continue
        protocols = ("rule", "llm") if any(k.endswith("_llm") for k in metrics) else ("rule",)
        parts.append(f"## {task}\n")
        parts.append(
            paper_tables(kind, {column: metrics}, prompt_type=str(meta.get("prompt_type", "")), protocols=protocols)
        )
        parts.append("")
    if not parts:
        raise ScoreError("the results JSON holds no IllusionBench or IllusionVQA task of ours")
    return "\n".join(parts).rstrip()


def paper_tables_of_results(path: str | Path) -> str:
    """``ambi score --results``: the paper tables of the results JSON found at ``path`` (a file or an output folder)."""
    from ambi_plugin.inputfiles import named_input
    from ambi_plugin.reports.results import find_results_json

    path = find_results_json(Path(path))
    with named_input(path, "results JSON"):
        return tables_from_results(json.loads(path.read_text(encoding="utf-8")))
