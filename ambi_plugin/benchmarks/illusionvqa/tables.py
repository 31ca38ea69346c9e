"""IllusionVQA's paper tables (Table 1 / 8 per class, Table 5's question types, Table 3) as layouts for the reports
(:mod:`ambi_plugin.benchmarks.layout`), and their compact form for ``ambi score`` (answer sets as columns)."""

from __future__ import annotations

from collections.abc import Mapping

from ambi_plugin.benchmarks.illusionvqa.description import CATEGORIES, QUESTION_TYPE_TITLES, TITLES
from ambi_plugin.benchmarks.layout import Column, Layout, TableData, Values, Variant, cell, markdown
from ambi_plugin.core.scoring import slug

KINDS = ("illusionvqa_comprehension", "illusionvqa_soft_localization")

_CLASSES = tuple(Column(TITLES[c], ((None, f"acc_{slug(c)}"),)) for c in CATEGORIES)
_COMP = (Variant("0-shot", ("ambi_illusionvqa_comprehension",)),
         Variant("4-shot", ("ambi_illusionvqa_comprehension_4shot",)))  # fmt: skip
LAYOUTS = (
    Layout("iv_table_1", "illusionvqa", "IllusionVQA Table 1 / Table 8: comprehension accuracy (%) per class",
           (*_CLASSES, Column("Total", ((None, "acc"),))), _COMP, transpose=True),
    Layout("iv_table_5", "illusionvqa", "IllusionVQA Table 5 question types: accuracy (%)",
           tuple(Column(title, ((None, f"acc_{qt}"),)) for qt, title in QUESTION_TYPE_TITLES.items()), _COMP),
    Layout("iv_table_3", "illusionvqa", "IllusionVQA Table 3: soft-localization accuracy (%)",
           (Column("Accuracy", ((None, "acc"),)),),
           (Variant("0-shot", ("ambi_illusionvqa_soft_localization",)),
            Variant("4-shot", ("ambi_illusionvqa_soft_localization_4shot",)),
            Variant("4-shot + CoT", ("ambi_illusionvqa_soft_localization_4shot_cot",))), chart=False),
)  # fmt: skip
_BY_KEY = {lay.key: lay for lay in LAYOUTS}


def _pct(v: float | None) -> str:
    return cell(v, 2, scale=100)


def _metric(column: Column) -> str:
    return column.sources[0][1]


def _count(counts: Mapping[str, int], metric: str) -> int | None:
    """The record count of the class an ``acc_<class>`` column reads (None when not counted)."""
    cls = next((c for c in CATEGORIES if f"acc_{slug(c)}" == metric), None)
    return None if cls is None else counts.get(cls)


def comprehension_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 1 / 8 layout (``iv_table_1``): Class | # | one accuracy column (%) per answer set; Total; unparsed."""
    cols = list(values)
    counts = counts or {}
    *classes, total_col = _BY_KEY["iv_table_1"].columns
    rows = []
    for col in classes:
        n = _count(counts, _metric(col))
        rows.append([col.label, "" if n is None else str(n)] + [_pct(values[c].get(_metric(col))) for c in cols])
    total = sum(_count(counts, _metric(col)) or 0 for col in classes) if counts else None
    rows.append(
        [total_col.label, "" if total is None else str(total)] + [_pct(values[c].get(_metric(total_col))) for c in cols]
    )
    if any("unparsed" in values[c] for c in cols):
        rows.append(["Unparsed answers", ""] + [str(values[c].get("unparsed", "")) for c in cols])
    return markdown(["Class", "#", *cols], rows)


def question_type_table(values: Values, counts: Mapping[str, int] | None = None) -> str:
    """Table 5's question types (``iv_table_5``) with their counts and each answer set's accuracy (%)."""
    cols = list(values)
    counts = counts or {}
    rows = []
    for col in _BY_KEY["iv_table_5"].columns:
        n = counts.get(_metric(col).removeprefix("acc_"))
        rows.append([col.label, "" if n is None else str(n)] + [_pct(values[c].get(_metric(col))) for c in cols])
    return markdown(["Question type", "Count", *cols], rows)


def soft_localization_table(values: Values, prompt_type: str | Mapping[str, str] = "") -> str:
    """Table 3 layout (``iv_table_3``): answer set | prompt type | accuracy (%); ``prompt_type`` one for all, or
    per answer set."""
    (acc,) = _BY_KEY["iv_table_3"].columns
    unparsed = any("unparsed" in vals for vals in values.values())  # a column when any answer set has the count
    rows = []
    for col, vals in values.items():
        pt = prompt_type.get(col, "") if isinstance(prompt_type, Mapping) else prompt_type
        row = [col, pt, _pct(vals.get(_metric(acc)))]
        if unparsed:
            row.append(str(vals["unparsed"]) if "unparsed" in vals else "n/a")
        rows.append(row)
    header = ["VLM", "Prompt Type", acc.label] + (["Unparsed"] if unparsed else [])
    return markdown(header, rows)


def paper_tables(kind: str, data: TableData) -> str:
    """Every table of ``kind`` (``illusionvqa_comprehension`` / ``_soft_localization``) for ``data``."""
    values, counts = data.values, data.counts
    if kind == "illusionvqa_comprehension":
        parts = ["IllusionVQA-Comprehension accuracy (%) per class (Table 1 / Table 8 layout)"]
        parts.append(comprehension_table(values, counts))
        parts.append("\nQuestion types (Table 5)")
        parts.append(question_type_table(values, counts))
        return "\n".join(parts)
    return "IllusionVQA-Soft-Localization accuracy (%) (Table 3 layout)\n" + soft_localization_table(
        values, data.prompt_type
    )


__all__ = ["KINDS", "LAYOUTS", "comprehension_table", "paper_tables", "question_type_table", "soft_localization_table"]
