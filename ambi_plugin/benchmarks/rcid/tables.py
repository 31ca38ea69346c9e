"""RCID's paper tables: Table 1 as reference rows, to show beside a run (test set; "based on pixel value" / "based on
human perception" prompts; each cell is (no-illusion rate, human-like rate) in percent, as printed), and the layouts of
Figure 4, Figure 8 and Table 1 for the reports (:mod:`ambi_plugin.benchmarks.layout`), read from the pseudo-task
``rcid`` that :func:`canonical_rcid` gathers from the RCID tasks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ambi_plugin.benchmarks.layout import Column, Layout, Variant

TABLE1: dict[str, dict[str, tuple[float, float]]] = {
    # model: {"<type>_<family>": (no_illusion, human_like)}
    "LLaVA-1.5 (7B)": {
        "contrast_pixel": (35.4, 41.2),
        "contrast_human": (32.4, 37.4),
        "filter_pixel": (20.0, 67.8),
        "filter_human": (19.8, 64.6),
        "stripe_pixel": (30.3, 35.2),
        "stripe_human": (28.3, 40.1),
    },
    "Mixed Training (Ours)": {
        "contrast_pixel": (83.9, 6.9),
        "contrast_human": (8.1, 79.0),
        "filter_pixel": (68.0, 24.3),
        "filter_human": (12.1, 82.3),
        "stripe_pixel": (84.5, 9.8),
        "stripe_human": (15.4, 76.7),
    },
}


def na_rate(no_illusion: float, human_like: float) -> float:
    """The N/A share a Table 1 cell implies (the three rates sum to 100)."""
    return round(100.0 - no_illusion - human_like, 1)


def format_table1() -> str:
    cols = [f"{t}_{f}" for t in ("contrast", "filter", "stripe") for f in ("pixel", "human")]
    lines = ["model | " + " | ".join(cols), "---|" + "---|" * len(cols)]
    for model, row in TABLE1.items():
        lines.append(model + " | " + " | ".join(f"{row[c][0]:.1f} ({row[c][1]:.1f})" for c in cols))
    return "\n".join(lines)


# Metric names human_like_rate / no_illusion_rate / na_rate / control_acc, per illusion type and prompt setting.
# canonical_rcid() gathers them from the rcid tasks into the pseudo-task "rcid" as <base>_<type>_<setting>: the
# setting is the prompt family (Figure 4) or the Figure 8 variant named by the task.
TYPES = ("contrast", "stripe", "filter")
FAMILIES = ("pixel", "human", "neutral")
FIG8 = (("simple prompt", "neutral"), ("CoT", "cot"), ("illusion emphasized", "illusion"),
        ("few-shot NI", "fewshot_ni"), ("few-shot HL", "fewshot_hl"))  # fmt: skip
SETTINGS = (*FAMILIES, *(s for _, s in FIG8[1:]))
MEASURES = (("No Illusion", "no_illusion_rate"), ("Human-like", "human_like_rate"), ("N/A", "na_rate"),
            ("Accuracy (controls)", "control_acc"))  # fmt: skip
BASES = ("human_like_rate", "no_illusion_rate", "na_rate", "control_acc")
PSEUDO_TASK = "rcid"
_VARIANTS = tuple(Variant(f"{f} prompts", (PSEUDO_TASK,), {"f": f}) for f in FAMILIES)
LAYOUTS = (
    Layout("rcid_figure_4", "rcid", "RCID Figure 4: response proportions (%) per illusion type",
           tuple(Column(f"{t.title()} {label}", ((PSEUDO_TASK, f"{m}_{t}_{{f}}"),))
                 for t in TYPES for label, m in MEASURES), _VARIANTS,
           note="No Illusion / Human-like / N/A on illusion images; accuracy on the non-illusion controls."),
    Layout("rcid_figure_8", "rcid", "RCID Figure 8: response proportions (%) per prompting method",
           tuple(Column(f"{t.title()} {label}", ((PSEUDO_TASK, f"{m}_{t}_{{f}}"),))
                 for t in TYPES for label, m in MEASURES[:3]),
           tuple(Variant(label, (PSEUDO_TASK,), {"f": f}) for label, f in FIG8),
           note="Neutral question (no pixel / human prefix) with each prompting method; the CoT, illusion-hint and "
                "few-shot texts are ours (docs/rcid.md)."),
    Layout("rcid_table_1", "rcid", "RCID Table 1: no-illusion (NI) and human-like (HL) rates (%)",
           tuple(Column(f"{t.title()} {f} {short}", ((PSEUDO_TASK, f"{m}_{t}_{f}"),))
                 for t in ("contrast", "filter", "stripe") for f in ("pixel", "human")
                 for short, m in (("NI", "no_illusion_rate"), ("HL", "human_like_rate"))), chart=False,
           note="The paper's rows come from models fine-tuned on non-illusion images first, on test splits that are "
                "not public; a run on the Hub copy (mao1207/RCID, 867 images) is zero-shot on that subset, so compare "
                "with care (docs/rcid.md)."),
)  # fmt: skip


def _named(task: str, names: Sequence[str]) -> list[str]:
    """The ``names`` that occur in ``task`` as whole ``_``-separated words (``fewshot_ni`` counts as one)."""
    return [n for n in names if f"_{n}_" in f"_{task}_"]


def rcid_setting(task: str) -> tuple[str, bool] | None:
    """(setting, named) of an RCID task: the one prompt family or Figure 8 variant its name names
    (``ambi_rcid_contrast_fewshot_ni`` -> fewshot_ni); ("neutral", False) when it names none (a question with
    no prefix); None when it names several."""
    found = _named(task, SETTINGS)
    if len(found) > 1:
        return None
    return (found[0], True) if found else ("neutral", False)


def canonical_rcid(metrics: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
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
        task_types = _named(task, TYPES)
        if setting is None or len(task_types) > 1:
            continue
        for name, val in vals.items():
            base = next((b for b in BASES if name == b or name.startswith(b + "_")), None)
            if base is None:
                continue
            suffix = name[len(base) + 1 :]
            if suffix and suffix not in TYPES:
                continue  # a breakdown value, not a cell
            kinds = set(task_types) | ({suffix} if suffix else set())
            if len(kinds) != 1:
                continue  # an overall value over several types, or a type clash
            key = f"{base}_{kinds.pop()}_{setting[0]}"
            if key not in out or (setting[1] and not out[key][0]):
                out[key] = (setting[1], val)
    return {k: v for k, (_, v) in out.items()}


def derived_metrics(metrics: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """The pseudo-task the layouts read (``{"rcid": canonical_rcid(metrics)}``), or {} when no RCID task ran."""
    cells = canonical_rcid(metrics)
    return {PSEUDO_TASK: cells} if cells else {}
