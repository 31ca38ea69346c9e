"""Which task metric is which cell of each paper table: one :class:`Layout` per table.

A layout has columns and variants. A row of a table is one model (one run group) in one variant
(0-shot / 4-shot, rule / LLM-assisted, normal / CoT / blind, pixel / human prompts ...). A column names
where its value comes from as ``(task, metric)`` candidates, formatted with the variant's fields, the
first one present wins (``task`` None: each of the variant's tasks in turn). Everything is driven by
metric names, so a results JSON built by hand, an lmms-eval run, or a task added later all render the
same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ambi_plugin.benchmarks import illusionbench as IB
from ambi_plugin.benchmarks import illusionvqa as IV
from ambi_plugin.core.scoring import slug
from ambi_plugin.reports import ambibench as AT

Source = tuple["str | None", str]


@dataclass(frozen=True)
class Column:
    label: str
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Variant:
    label: str
    tasks: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    key: str
    benchmark: str
    title: str
    columns: tuple[Column, ...]
    variants: tuple[Variant, ...] = (Variant(""),)
    scale: float = 100.0  # results hold fractions; percent tables show 100 x
    digits: int = 2
    avg: bool = False  # an AVG column: unweighted mean of the available cells
    rank: bool = False  # a Rank column (by AVG, within the table's rows)
    transpose: bool = False  # print columns as rows (IllusionVQA Table 1 / 8)
    chart: bool = True  # draw a per-column bar chart
    note: str = ""

    def sources(self, column: Column, variant: Variant) -> Iterable[tuple[str, str]]:
        for task, metric in column.sources:
            metric = metric.format(**variant.fields)
            if task is None:
                for t in variant.tasks:
                    yield t.format(**variant.fields), metric
            else:
                yield task.format(**variant.fields), metric


def _cols(cols: Sequence[tuple[str, str, str]]) -> tuple[Column, ...]:
    return tuple(Column(label, ((task, metric),)) for label, task, metric in cols)


TABLE9_COLUMNS = (
    ("Multi-Scene (open)", "ambibench_multiscene_open", "acc"),
    ("Mix (open)", "ambibench_mixed_open", "acc"),
    ("Color", "ambibench_color_open", "acc"),
    ("Multi-View", "ambibench_multiview_open", "acc"),
    ("Hybrid", "ambibench_hybrid_open", "acc"),
)
# Table 10's category pairs (object level vs scene level / mixed).
TABLE10_PAIRS = tuple((a, b) for b in ("Multi-Scene (open)", "Mix (open)") for a in ("Color", "Multi-View", "Hybrid"))

AMBIBENCH = (
    Layout("ab_table_1", "ambibench", "AmbiBench Table 1 (%)", _cols(AT.TABLE1_COLUMNS), avg=True,
           note="AVG = unweighted mean of the available columns, '-' skipped (PROTOCOL)."),
    Layout("ab_table_2", "ambibench", "AmbiBench Table 2 (%; loc = AP@0.5)", _cols(AT.TABLE2_COLUMNS), avg=True,
           note="AVG = unweighted mean; no weighting reproduces the paper's printed Table 2 AVG (PROTOCOL)."),
    Layout("ab_hit_rates", "ambibench", "AmbiBench localization hit rates at IoU 0.5 (%)",
           _cols(AT.TABLE2_HIT_RATES)),
    Layout("ab_table_12", "ambibench", "AmbiBench Table 12 (%)", _cols(AT.TABLE12_COLUMNS)),
    Layout("ab_table_14", "ambibench", "AmbiBench Table 14 (%)", _cols(AT.TABLE14_COLUMNS)),
    Layout("ab_table_9", "ambibench", "AmbiBench Table 9: categories over repeated runs (%; mean +- std)",
           _cols(TABLE9_COLUMNS), note="Repeated runs of one model (seeds / temperature 1) give mean +- std (A.6)."),
)  # fmt: skip

_IB_KEYS = (*IB.CATEGORIES, *IB.DIFFICULTIES)
_IB_VARIANTS = {
    "tf": (Variant("rule-based", ("ambi_illusionbench_tf", "ambi_illusionbench_tf_llm"), {"s": ""}),
           Variant("LLM-assisted", ("ambi_illusionbench_tf_llm",), {"s": "_llm"})),
    "mc": (Variant("rule-based", ("ambi_illusionbench_mc", "ambi_illusionbench_mc_llm"), {"s": ""}),
           Variant("LLM-assisted", ("ambi_illusionbench_mc_llm",), {"s": "_llm"})),
    "description": (Variant("rule-based", ("ambi_illusionbench_description", "ambi_illusionbench_description_llm"),
                            {"s": ""}),
                    Variant("LLM-assisted", ("ambi_illusionbench_description_llm",), {"s": "_llm"})),
}  # fmt: skip


def _ib(key: str, title: str, kind: str, base: str) -> Layout:
    cols = [Column(IB.TITLES[k], ((None, f"{base}{{s}}_{k}"),)) for k in _IB_KEYS]
    cols.append(Column("All", ((None, f"{base}{{s}}"),)))
    return Layout(key, "illusionbench", title, tuple(cols), _IB_VARIANTS[kind], scale=1.0, digits=4)


ILLUSIONBENCH = (
    _ib("ib_table_ii", "IllusionBench Table II: true-or-false accuracy", "tf", "acc"),
    _ib("ib_table_iii", "IllusionBench Table III: multiple-choice accuracy", "mc", "acc"),
    _ib("ib_table_v", "IllusionBench Table V: FP ratio FP/(FP+FN) on true-or-false", "tf", "fp_ratio"),
    _ib("ib_table_vi", "IllusionBench Table VI: description score (0-2)", "description", "desc_score"),
    Layout("ib_table_iv", "illusionbench", "IllusionBench Table IV: description score, mean and std over items",
           (Column("Mean", ((None, "desc_score{s}"),)), Column("Std", ((None, "desc_score{s}_std"),))),
           _IB_VARIANTS["description"], scale=1.0, digits=4, chart=False),
)  # fmt: skip

_IV_CLASSES = tuple(Column(IV.TITLES[c], ((None, f"acc_{slug(c)}"),)) for c in IV.CATEGORIES)
_IV_COMP = (Variant("0-shot", ("ambi_illusionvqa_comprehension",)),
            Variant("4-shot", ("ambi_illusionvqa_comprehension_4shot",)))  # fmt: skip
ILLUSIONVQA = (
    Layout("iv_table_1", "illusionvqa", "IllusionVQA Table 1 / Table 8: comprehension accuracy (%) per class",
           (*_IV_CLASSES, Column("Total", ((None, "acc"),))), _IV_COMP, transpose=True),
    Layout("iv_table_5", "illusionvqa", "IllusionVQA Table 5 question types: accuracy (%)",
           tuple(Column(title, ((None, f"acc_{qt}"),)) for qt, title in IV.QUESTION_TYPE_TITLES.items()), _IV_COMP),
    Layout("iv_table_3", "illusionvqa", "IllusionVQA Table 3: soft-localization accuracy (%)",
           (Column("Accuracy", ((None, "acc"),)),),
           (Variant("0-shot", ("ambi_illusionvqa_soft_localization",)),
            Variant("4-shot", ("ambi_illusionvqa_soft_localization_4shot",)),
            Variant("4-shot + CoT", ("ambi_illusionvqa_soft_localization_4shot_cot",))), chart=False),
)  # fmt: skip

# VIA-Bench: every category from the all-category task (acc_match_<cat>) or from its own task (acc_match).
VIA_CATEGORIES = ("va", "ci", "mi", "gi", "gsi", "vi")
VIA_VARIANTS = (
    Variant("normal", ("ambi_viabench_val", "ambi_viabench"), {"s": ""}),
    Variant("zero-shot CoT", ("ambi_viabench_val_zs_cot", "ambi_viabench_zs_cot"), {"s": "_zs_cot"}),
    Variant("manual CoT", ("ambi_viabench_val_manual_cot", "ambi_viabench_manual_cot"), {"s": "_manual_cot"}),
    Variant("blind", ("ambi_viabench_val_blind", "ambi_viabench_blind"), {"s": "_blind"}),
)
VIA_COLUMNS = tuple(Column(f"{c.upper()} {p.title()}", ((None, f"acc_{p}_{c}"), (f"ambi_viabench_{c}{{s}}", f"acc_{p}")))
                    for c in VIA_CATEGORIES for p in ("match", "judge"))  # fmt: skip
VIABENCH = (
    Layout("via_main", "viabench", "VIA-Bench Table 3.2: accuracy (%), Match and Judge per category", VIA_COLUMNS,
           VIA_VARIANTS, avg=True, rank=True,
           note="Avg. = mean of the 12 Match and Judge cells; Rank by Avg. within the rows of this table (PROTOCOL)."),
    Layout("via_table_4_1", "viabench", "VIA-Bench Table 4.1: normal versus zero-shot and manual CoT (%)",
           VIA_COLUMNS, VIA_VARIANTS[:3], avg=True,
           note="Avg. = mean of the 12 Match and Judge cells; each CoT row is compared with the paper's CoT row."),
)  # fmt: skip

# RCID: metric names human_like_rate / no_illusion_rate / na_rate / control_acc, per illusion type and prompt
# setting. canonical_rcid() gathers them from the rcid tasks into the pseudo-task "rcid" as
# <base>_<type>_<setting>: the setting is the prompt family (Figure 4) or the Figure 8 variant named by the task.
RCID_TYPES = ("contrast", "stripe", "filter")
RCID_FAMILIES = ("pixel", "human", "neutral")
RCID_FIG8 = (("simple prompt", "neutral"), ("CoT", "cot"), ("illusion emphasized", "illusion"),
             ("few-shot NI", "fewshot_ni"), ("few-shot HL", "fewshot_hl"))  # fmt: skip
RCID_SETTINGS = (*RCID_FAMILIES, *(s for _, s in RCID_FIG8[1:]))
RCID_MEASURES = (("No Illusion", "no_illusion_rate"), ("Human-like", "human_like_rate"), ("N/A", "na_rate"),
                 ("Accuracy (controls)", "control_acc"))  # fmt: skip
RCID_VARIANTS = tuple(Variant(f"{f} prompts", ("rcid",), {"f": f}) for f in RCID_FAMILIES)
RCID = (
    Layout("rcid_figure_4", "rcid", "RCID Figure 4: response proportions (%) per illusion type",
           tuple(Column(f"{t.title()} {label}", (("rcid", f"{m}_{t}_{{f}}"),))
                 for t in RCID_TYPES for label, m in RCID_MEASURES), RCID_VARIANTS,
           note="No Illusion / Human-like / N/A on illusion images; accuracy on the non-illusion controls."),
    Layout("rcid_figure_8", "rcid", "RCID Figure 8: response proportions (%) per prompting method",
           tuple(Column(f"{t.title()} {label}", (("rcid", f"{m}_{t}_{{f}}"),))
                 for t in RCID_TYPES for label, m in RCID_MEASURES[:3]),
           tuple(Variant(label, ("rcid",), {"f": f}) for label, f in RCID_FIG8),
           note="Neutral question (no pixel / human prefix) with each prompting method; the CoT, illusion-hint and "
                "few-shot texts are ours (docs/rcid.md)."),
    Layout("rcid_table_1", "rcid", "RCID Table 1: no-illusion (NI) and human-like (HL) rates (%)",
           tuple(Column(f"{t.title()} {f} {short}", (("rcid", f"{m}_{t}_{f}"),))
                 for t in ("contrast", "filter", "stripe") for f in ("pixel", "human")
                 for short, m in (("NI", "no_illusion_rate"), ("HL", "human_like_rate"))), chart=False,
           note="The paper's rows come from models fine-tuned on non-illusion images first, on test splits that are "
                "not public; a run on the Hub copy (mao1207/RCID, 867 images) is zero-shot on that subset, so compare "
                "with care (docs/rcid.md)."),
)  # fmt: skip

PAPER_LAYOUTS: tuple[Layout, ...] = (*AMBIBENCH, *ILLUSIONBENCH, *ILLUSIONVQA, *VIABENCH, *RCID)
RCID_BASES = ("human_like_rate", "no_illusion_rate", "na_rate", "control_acc")


def paper_tasks() -> set[str]:
    """Every task a paper layout reads (so the generic per-task tables skip them)."""
    out = set()
    for lay in PAPER_LAYOUTS:
        for var in lay.variants:
            for col in lay.columns:
                out.update(t for t, _ in lay.sources(col, var))
    return out


def _rcid_named(task: str, names: Sequence[str]) -> list[str]:
    """The ``names`` that occur in ``task`` as whole ``_``-separated words (``fewshot_ni`` counts as one)."""
    return [n for n in names if f"_{n}_" in f"_{task}_"]


def rcid_setting(task: str) -> tuple[str, bool] | None:
    """(setting, named) of an RCID task: the one prompt family or Figure 8 variant its name names
    (``ambi_rcid_contrast_fewshot_ni`` -> fewshot_ni); ("neutral", False) when it names none (a question with
    no prefix); None when it names several."""
    found = _rcid_named(task, RCID_SETTINGS)
    if len(found) > 1:
        return None
    return (found[0], True) if found else ("neutral", False)


def canonical_rcid(metrics: dict[str, dict[str, float]]) -> dict[str, float]:
    """RCID metrics of every ``*rcid*`` task as ``{<base>_<type>_<setting>: value}``.

    The illusion type comes from the task name (``ambi_rcid_contrast_pixel``) or, for a task over several
    types, from a metric suffix that is exactly a type (``human_like_rate_contrast`` of ``ambi_rcid_pixel``);
    any other suffix (a breakdown such as ``_far`` or ``_left_right``) is not a cell. The setting comes from
    the task name (:func:`rcid_setting`); a task that names its setting wins over one that names none."""
    out: dict[str, tuple[bool, float]] = {}
    for task, vals in metrics.items():
        if "rcid" not in task:
            continue
        setting = rcid_setting(task)
        task_types = _rcid_named(task, RCID_TYPES)
        if setting is None or len(task_types) > 1:
            continue
        for name, val in vals.items():
            base = next((b for b in RCID_BASES if name == b or name.startswith(b + "_")), None)
            if base is None:
                continue
            suffix = name[len(base) + 1 :]
            if suffix and suffix not in RCID_TYPES:
                continue  # a breakdown value, not a cell
            kinds = set(task_types) | ({suffix} if suffix else set())
            if len(kinds) != 1:
                continue  # an overall value over several types, or a type clash
            key = f"{base}_{kinds.pop()}_{setting[0]}"
            if key not in out or (setting[1] and not out[key][0]):
                out[key] = (setting[1], val)
    return {k: v for k, (_, v) in out.items()}


GENERIC_AUX = ("unparsed_rate", "unparsed", "judge_errors", "judge_unscored_rate", "empty_count", "random_baseline")


def generic_layout(task: str, metric_names: Iterable[str]) -> Layout | None:
    """A per-task table for a task no paper layout covers (the synthetic suite, new categories): its
    main metric and that metric's breakdown values (one column and one bar each)."""
    names = [m for m in metric_names if not m.endswith("_std")]
    main = next((m for m in ("acc", "exact_match", "desc_score", "ap50", "human_like_rate") if m in names), None)
    if main is None:
        main = next((m for m in names if m not in GENERIC_AUX), None)
    if main is None:
        return None
    parts = [m[len(main) + 1 :] for m in names if m.startswith(main + "_")]
    cols = [Column(f"all ({main})", ((task, main),)), *(Column(p, ((task, f"{main}_{p}"),)) for p in parts)]
    scale = 1.0 if main == "desc_score" else 100.0
    unit = "score" if scale == 1.0 else "%"
    title = f"{task}: {main} ({unit})" + (" by breakdown value" if parts else "")  # one "all" column: no breakdown
    return Layout(
        f"task:{task}",
        "",
        title,
        tuple(cols),
        scale=scale,
        digits=4 if scale == 1.0 else 2,
    )
