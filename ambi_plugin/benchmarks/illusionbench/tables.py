"""IllusionBench's paper tables (Tables II-VI) as layouts for the reports (:mod:`ambi_plugin.benchmarks.layout`), and
their compact form for ``ambi score`` (answer sets as rows, P1-P5, Easy, Neutral, Hard, All)."""

from __future__ import annotations

from ambi_plugin.benchmarks.illusionbench import CATEGORIES, DIFFICULTIES, TITLES
from ambi_plugin.benchmarks.layout import Column, Layout, TableData, Values, Variant, cell, markdown

KINDS = ("illusionbench_tf", "illusionbench_mc", "illusionbench_description")

_KEYS = (*CATEGORIES, *DIFFICULTIES)
_VARIANTS = {
    "tf": (Variant("rule-based", ("ambi_illusionbench_tf", "ambi_illusionbench_tf_llm"), {"s": ""}),
           Variant("LLM-assisted", ("ambi_illusionbench_tf_llm",), {"s": "_llm"})),
    "mc": (Variant("rule-based", ("ambi_illusionbench_mc", "ambi_illusionbench_mc_llm"), {"s": ""}),
           Variant("LLM-assisted", ("ambi_illusionbench_mc_llm",), {"s": "_llm"})),
    "description": (Variant("rule-based", ("ambi_illusionbench_description", "ambi_illusionbench_description_llm"),
                            {"s": ""}),
                    Variant("LLM-assisted", ("ambi_illusionbench_description_llm",), {"s": "_llm"})),
}  # fmt: skip


def _ib(key: str, title: str, kind: str, base: str) -> Layout:
    cols = [Column(TITLES[k], ((None, f"{base}{{s}}_{k}"),)) for k in _KEYS]
    cols.append(Column("All", ((None, f"{base}{{s}}"),)))
    return Layout(key, "illusionbench", title, tuple(cols), _VARIANTS[kind], scale=1.0, digits=4)


LAYOUTS = (
    _ib("ib_table_ii", "IllusionBench Table II: true-or-false accuracy", "tf", "acc"),
    _ib("ib_table_iii", "IllusionBench Table III: multiple-choice accuracy", "mc", "acc"),
    _ib("ib_table_v", "IllusionBench Table V: FP ratio FP/(FP+FN) on true-or-false", "tf", "fp_ratio"),
    _ib("ib_table_vi", "IllusionBench Table VI: description score (0-2)", "description", "desc_score"),
    Layout("ib_table_iv", "illusionbench", "IllusionBench Table IV: description score, mean and std over items",
           (Column("Mean", ((None, "desc_score{s}"),)), Column("Std", ((None, "desc_score{s}_std"),))),
           _VARIANTS["description"], scale=1.0, digits=4, chart=False),
)  # fmt: skip
_BY_KEY = {lay.key: lay for lay in LAYOUTS}


def _metric(column: Column, suffix: str = "") -> str:
    """The metric name of a layout column (``{s}``: the protocol's suffix, "" or "_llm")."""
    return column.sources[0][1].format(s=suffix)


def illusionbench_table(values: Values, key: str, suffix: str = "", *, digits: int = 4) -> str:
    """Tables II / III / V / VI layout (``ib_table_ii`` ...): a row per answer set; P1-P5, Easy, Neutral, Hard, All."""
    columns = _BY_KEY[key].columns
    header = ["VLMs", *(col.label for col in columns)]
    rows = [[col, *(cell(vals.get(_metric(c, suffix)), digits) for c in columns)] for col, vals in values.items()]
    return markdown(header, rows)


def description_summary(values: Values, suffix: str = "") -> str:
    """Table IV layout (``ib_table_iv``): mean +- standard deviation over items."""
    mean, std = (_metric(c, suffix) for c in _BY_KEY["ib_table_iv"].columns)
    rows = [[col, f"{cell(vals.get(mean))} \u00b1 {cell(vals.get(std))}"] for col, vals in values.items()]
    return markdown(["VLMs", "Semantic Content Description"], rows)


def paper_tables(kind: str, data: TableData) -> str:
    """Every table of ``kind`` (``illusionbench_tf`` / ``_mc`` / ``_description``) for ``data``, per protocol."""
    values, out = data.values, []
    for proto in data.protocols:
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


__all__ = ["KINDS", "LAYOUTS", "description_summary", "illusionbench_table", "paper_tables"]
