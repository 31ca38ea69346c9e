"""Which task metric is which cell of each paper table: the layouts every benchmark declares on its registry entry.

A :class:`~ambi_plugin.benchmarks.layout.Layout` per table (columns and variants, driven by metric names; see
:mod:`ambi_plugin.benchmarks.layout`). Each benchmark keeps its own (``benchmarks/<b>/tables.py``) and names them on
its registry entry (``paper_layouts``); this module collects them (:func:`paper_layouts`, also as
``PAPER_LAYOUTS``), adds the pseudo-tasks a benchmark derives from its tasks' metrics (:func:`derived_metrics`), and
lays out a per-task table for every task no paper table covers (:func:`generic_layout`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ambi_plugin.benchmarks.layout import Column, Layout, Source, Variant

__all__ = [
    "GENERIC_AUX",
    "Column",
    "Layout",
    "Source",
    "Variant",
    "derived_metrics",
    "derived_tasks",
    "generic_layout",
    "paper_layouts",
    "paper_tasks",
]


def paper_layouts() -> tuple[Layout, ...]:
    """Every paper table of every registered benchmark, in registry order."""
    from ambi_plugin.benchmarks.registry import entries

    return tuple(lay for e in entries().values() if e.paper_layouts is not None for lay in e.paper_layouts())


def __getattr__(name: str):
    if name == "PAPER_LAYOUTS":  # read when asked: a benchmark registered later has its tables in it too
        return paper_layouts()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def paper_tasks() -> set[str]:
    """Every task a paper layout reads (so the generic per-task tables skip them)."""
    out = set()
    for lay in paper_layouts():
        for var in lay.variants:
            for col in lay.columns:
                out.update(t for t, _ in lay.sources(col, var))
    return out


def derived_metrics(metrics: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """``metrics`` ({task: {metric: value}}) with the pseudo-tasks the benchmarks gather from their tasks (the
    entries' ``derived_metrics``) added."""
    from ambi_plugin.benchmarks.registry import entries

    out = {t: dict(v) for t, v in metrics.items()}
    for entry in entries().values():
        if entry.derived_metrics is not None:
            out.update(entry.derived_metrics(metrics))
    return out


def derived_tasks(metrics: Mapping[str, Mapping[str, float]]) -> set[str]:
    """The tasks a pseudo-task gathers (a task of a benchmark with ``derived_metrics``): they have no table of
    their own."""
    from ambi_plugin.benchmarks.registry import entries

    owners = [e for e in entries().values() if e.derived_metrics is not None]
    return {t for t in metrics if any(e.owns_task(t) for e in owners)}


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
