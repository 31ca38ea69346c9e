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
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.core.scoring import slug

Values = Mapping[str, Mapping[str, float]]
KINDS = (
    "illusionvqa_comprehension",
    "illusionvqa_soft_localization",
    "illusionbench_tf",
    "illusionbench_mc",
    "illusionbench_description",
)


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


def comprehension_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 1 / 8 layout: Class | # | one accuracy column (%) per answer set; Total; unparsed answers."""
    cols = list(values)
    counts = counts or {}
    rows = []
    for cat in IV.CATEGORIES:
        n = counts.get(cat)
        rows.append(
            [IV.TITLES[cat], "" if n is None else str(n)]
            + [_num(values[c].get(f"acc_{slug(cat)}"), pct=True) for c in cols]
        )
    total = sum(counts.get(cat, 0) for cat in IV.CATEGORIES) if counts else None
    rows.append(["Total", "" if total is None else str(total)] + [_num(values[c].get("acc"), pct=True) for c in cols])
    if any("unparsed" in values[c] for c in cols):
        rows.append(["Unparsed answers", ""] + [str(values[c].get("unparsed", "")) for c in cols])
    return markdown(["Class", "#", *cols], rows)


def question_type_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 5's question types with their counts and each answer set's accuracy (%)."""
    cols = list(values)
    counts = counts or {}
    rows = []
    for qt, title in IV.QUESTION_TYPE_TITLES.items():
        n = counts.get(qt)
        rows.append([title, "" if n is None else str(n)] + [_num(values[c].get(f"acc_{qt}"), pct=True) for c in cols])
    return markdown(["Question type", "Count", *cols], rows)


def soft_localization_table(values: Values, prompt_type: str | Mapping[str, str] = "") -> str:
    """Table 3 layout: answer set | prompt type | accuracy (%); ``prompt_type`` one for all, or per answer set."""
    rows = []
    for col, vals in values.items():
        pt = prompt_type.get(col, "") if isinstance(prompt_type, Mapping) else prompt_type
        row = [col, pt, _num(vals.get("acc"), pct=True)]
        if "unparsed" in vals:
            row.append(str(vals["unparsed"]))
        rows.append(row)
    header = ["VLM", "Prompt Type", "Accuracy"] + (["Unparsed"] if rows and len(rows[0]) == 4 else [])
    return markdown(header, rows)


def illusionbench_table(values: Values, base: str, *, digits: int = 4) -> str:
    """Tables II / III / V / VI layout: a row per answer set; P1-P5, Easy, Neutral, Hard, All."""
    keys = [*IB.CATEGORIES, *IB.DIFFICULTIES]
    header = ["VLMs", *(IB.TITLES[k] for k in keys), "All"]
    rows = [
        [col, *(_num(vals.get(f"{base}_{k}"), digits=digits) for k in keys), _num(vals.get(base), digits=digits)]
        for col, vals in values.items()
    ]
    return markdown(header, rows)


def description_summary(values: Values, base: str = "desc_score") -> str:
    """Table IV layout: mean +- standard deviation over items."""
    rows = [[col, f"{_num(vals.get(base))} \u00b1 {_num(vals.get(base + '_std'))}"] for col, vals in values.items()]
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
            out.append(illusionbench_table(values, "acc" + sfx))
            out.append(f"\nIllusionBench true-or-false FP ratio FP/(FP+FN), {label} (Table V layout)")
            out.append(illusionbench_table(values, "fp_ratio" + sfx))
        elif kind == "illusionbench_mc":
            out.append(f"IllusionBench multiple-choice accuracy, {label} (Table III layout)")
            out.append(illusionbench_table(values, "acc" + sfx))
        else:
            out.append(f"IllusionBench description score 0-2, {label} (Table VI layout)")
            out.append(illusionbench_table(values, "desc_score" + sfx))
            out.append(f"\nMean \u00b1 std over items, {label} (Table IV layout)")
            out.append(description_summary(values, "desc_score" + sfx))
        out.append("")
    return "\n".join(out).rstrip()


def tables_from_results(results: Mapping[str, Any]) -> str:
    """The paper tables of every IllusionBench / IllusionVQA task in an lmms-eval results JSON."""
    from ambi_plugin.reports.answers import ScoreError
    from ambi_plugin.reports.results import task_metrics
    from ambi_plugin.taskindex import index

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
