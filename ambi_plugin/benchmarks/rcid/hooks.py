"""``process_results`` of the RCID task YAMLs: the task type's metrics plus the PROTOCOL breakdowns.

Each illusion type reports ``<base>_<value>`` for a fixed set of breakdown values (``prompts.BREAKDOWNS``),
whatever the data holds, so every run's results JSON has the same names (NaN for a subset with no items,
e.g. a Hub copy without layout information).
"""

from __future__ import annotations

from collections.abc import Callable

from ambi_plugin.core.scoring import BREAKDOWN_BASES, METRICS_BY_TYPE

from . import prompts as P


def metric_names_for(illusion_type: str) -> list[str]:
    ttype = "color_naming" if illusion_type == "filter" else "perception"
    names = list(METRICS_BY_TYPE[ttype])
    for value in P.BREAKDOWNS[illusion_type][1]:
        names.extend(f"{base}_{value}" for base in BREAKDOWN_BASES[ttype])
    return names


def _make(illusion_type: str) -> Callable[[dict, list], dict]:
    from ambi_plugin.runtime.hooks import record_of, score_response

    names = metric_names_for(illusion_type)

    def process_results(doc: dict, results: list) -> dict:
        return dict.fromkeys(names, score_response(record_of(doc), results))

    process_results.__name__ = f"{illusion_type}_results"
    process_results.metric_names = lambda record: list(names)  # type: ignore[attr-defined]
    return process_results


contrast_results = _make("contrast")
stripe_results = _make("stripe")
filter_results = _make("filter")

__all__ = ["contrast_results", "filter_results", "metric_names_for", "stripe_results"]
