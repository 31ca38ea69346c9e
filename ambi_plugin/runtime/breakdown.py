"""``process_results`` variants that also report metrics broken down by record fields.

A task YAML picks the fields in the function name::

    process_results: !function ambi_plugin.runtime.breakdown.by_image_category_and_difficulty

reports, besides the task type's metrics, ``acc_classic``, ``acc_easy``, ``fp_ratio_trap`` ...
(``<base>_<value>`` for each base metric in ``core.scoring.BREAKDOWN_BASES`` and each value the
record has for those fields). List the same names in ``metric_list``; ``ambi validate-tasks``
checks that they agree.
"""

from __future__ import annotations

from collections.abc import Callable

from ambi_plugin.core.scoring import metric_names
from ambi_plugin.runtime.hooks import record_of, score_response


def fields_of(name: str) -> tuple[str, ...]:
    """``by_image_category_and_difficulty`` -> (``image_category``, ``difficulty``)."""
    if not name.startswith("by_") or len(name) <= 3:
        raise AttributeError(f"breakdown function names read by_<field>[_and_<field>...], got {name!r}")
    return tuple(f for f in name[3:].split("_and_") if f)


def make_process_results(fields: tuple[str, ...]) -> Callable[[dict, list], dict]:
    def process_results(doc: dict, results: list) -> dict:
        rec = record_of(doc)
        item = score_response(rec, results)
        return dict.fromkeys(metric_names(rec, by=fields), item)

    process_results.__name__ = "by_" + "_and_".join(fields)
    process_results.breakdown_fields = fields  # type: ignore[attr-defined]
    return process_results


def __getattr__(name: str) -> Callable[[dict, list], dict]:
    if name.startswith("__"):
        raise AttributeError(name)
    fn = make_process_results(fields_of(name))
    globals()[name] = fn
    return fn
