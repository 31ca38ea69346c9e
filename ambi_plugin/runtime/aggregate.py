"""Aggregation functions for task YAMLs: ``!function ambi_plugin.runtime.aggregate.<metric>``.

Each name is a metric of :mod:`ambi_plugin.core.scoring` (``acc``, ``fp_ratio``, ``ap50``,
``acc_near`` ...); the function reduces the item scores ``process_results`` produced.
Any ``acc_<view>`` and ``<metric>_<value>`` name works (``acc_easy``, ``fp_ratio_classic``), so a
new category or breakdown needs no code.
"""

from __future__ import annotations

from collections.abc import Callable

from ambi_plugin.core.scoring import AGGREGATIONS, _split_name, aggregate


def _make(metric: str) -> Callable[[list], float]:
    def agg(items: list) -> float:
        return aggregate(metric, list(items))

    agg.__name__ = metric
    agg.__qualname__ = metric
    agg.__doc__ = f"Aggregate item scores into '{metric}'."
    return agg


def unparsed(items: list) -> float:
    """The number of unparsed answers; the task's examples are kept for the results JSON (runtime/unparsed.py)."""
    from ambi_plugin.runtime.unparsed import note

    items = list(items)
    note(items)
    return aggregate("unparsed", items)


def __getattr__(name: str) -> Callable[[list], float]:
    if name in AGGREGATIONS or (not name.startswith("__") and _split_name(name) is not None):
        fn = _make(name)
        globals()[name] = fn
        return fn
    raise AttributeError(
        f"module {__name__!r} has no aggregation {name!r}; known: {', '.join(sorted(AGGREGATIONS))}, acc_<view>"
    )
