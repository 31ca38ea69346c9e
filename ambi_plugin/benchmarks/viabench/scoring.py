"""VIA-Bench scoring: the Match and Judge protocols side by side, "Not Sure" rates, the random baseline.

``score_item(rec, response)`` gives one item score with both protocols' decisions; ``aggregate(metric,
items)`` reduces item scores. Metrics (each also ``<metric>_<category>`` over one category's items):

===================  ===================================================================================
``acc_match``        accuracy, Match protocol (our regex extracts the final option label)
``acc_judge``        accuracy, Judge protocol (the configured judge's ``mcq_match``; offline by default)
``not_sure_rate``    share of items whose Match label is "Not Sure" (``not_sure_rate_judge``: the judge's)
``unparsed_rate``    share of items from which Match extracted no label (empty answers included)
``unparsed``         number of those items (their ids and answers: ``ambi results``)
``empty_count``      number of empty answers (scored wrong in both protocols; paper section 4.2)
``judge_errors``     number of items whose judge reply could not be read (scored wrong)
``random_baseline``  expected accuracy of a uniform random choice: mean of 1 / #options, "Not Sure" included
===================  ===================================================================================

Accuracies are over items with a known answer (NaN when none has one: the public challenge split); the
rates and the baseline are over all items. Match and Judge are independent (PROTOCOL): the judge is asked
about every non-empty answer, whatever Match found.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from ambi_plugin.benchmarks.viabench import spec as S
from ambi_plugin.benchmarks.viabench.match import match_label
from ambi_plugin.benchmarks.viabench.variants import not_sure_index

BASES: tuple[str, ...] = (
    "acc_match",
    "acc_judge",
    "not_sure_rate",
    "not_sure_rate_judge",
    "unparsed_rate",
    "unparsed",
    "empty_count",
    "judge_errors",
    "random_baseline",
)
BREAKDOWN_BASES: tuple[str, ...] = ("acc_match", "acc_judge", "not_sure_rate", "not_sure_rate_judge", "random_baseline")
HIGHER_IS_BETTER: dict[str, bool] = {
    "acc_match": True,
    "acc_judge": True,
    "not_sure_rate": False,
    "not_sure_rate_judge": False,
    "unparsed_rate": False,
    "unparsed": False,
    "empty_count": False,
    "judge_errors": False,
    "random_baseline": True,
}


def random_baseline(records: Sequence[dict]) -> float:
    """PROTOCOL: mean over items of 1 / (number of options, "Not Sure" included)."""
    return _mean([1.0 / len(r["options"]) for r in records])


def metric_names(*, by_category: bool) -> list[str]:
    names = list(BASES)
    if by_category:
        names += [f"{base}_{cat}" for cat in S.CATEGORIES for base in BREAKDOWN_BASES]
    return names


def _judge_choice(rec: dict, response: str, judge: Any) -> tuple[int | None, bool, list[str]]:
    if judge is None:  # the run's judge (runtime/run_state.py), built on first need
        from ambi_plugin.runtime.run_state import current

        judge = current().judge_for()
    choice = judge.mcq_match(rec.get("question") or "", list(rec["options"]), response)
    if choice.error or choice.value is None:
        return None, True, list(choice.raw)
    return int(choice.value), False, list(choice.raw)


def score_item(rec: dict, response: Any, *, judge: Any = None) -> dict:
    """Both protocols' decisions for one response. Never raises on the response."""
    text = "" if response is None else (response if isinstance(response, str) else str(response))
    n = len(rec["options"])
    gold = rec.get("answer_index")
    ns = not_sure_index(rec)
    empty = not text.strip()
    m = match_label(text, rec["options"])
    item: dict[str, Any] = {
        "id": rec.get("id"),
        "task_type": rec.get("task_type") or "choice",  # marks a logged item as ours (reports, ambi score)
        "category": rec.get("category"),
        "n_options": n,
        "gold": gold,
        "not_sure_index": ns,
        "response": text,
        "empty": empty,
        "match_pred": m.index,
        "match_reason": m.reason,
        "parsed": m.index is not None,  # Match read a label (what ``unparsed`` counts)
        "parse_reason": m.reason,
        "variant": rec.get("variant") or {},
    }
    if empty:  # section 4.2: no completion counts as incorrect; the judge is not asked
        judge_pred, judge_error, raw = None, False, ["empty response"]
    else:
        judge_pred, judge_error, raw = _judge_choice(rec, text, judge)
    item.update(judge_pred=judge_pred, judge_error=judge_error, judge_raw=raw)
    known = gold is not None
    item["correct_match"] = (m.index == gold) if known else None
    item["correct_judge"] = (judge_pred == gold and not judge_error) if known else None
    item["not_sure_match"] = ns is not None and m.index == ns
    item["not_sure_judge"] = ns is not None and judge_pred == ns
    return item


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _acc(key: str) -> Callable[[list[dict]], float]:
    return lambda items: _mean([1.0 if it[key] else 0.0 for it in items if it.get(key) is not None])


AGGREGATIONS: dict[str, Callable[[list[dict]], float]] = {
    "acc_match": _acc("correct_match"),
    "acc_judge": _acc("correct_judge"),
    "not_sure_rate": lambda items: _mean([1.0 if it["not_sure_match"] else 0.0 for it in items]),
    "not_sure_rate_judge": lambda items: _mean([1.0 if it["not_sure_judge"] else 0.0 for it in items]),
    # an item error (the image could not be shown) is counted as one only, never also as unparsed
    "unparsed_rate": lambda items: _mean(
        [1.0 if it["match_pred"] is None else 0.0 for it in items if not it.get("item_error")]
    ),
    "unparsed": lambda items: float(sum(1 for it in items if it["match_pred"] is None and not it.get("item_error"))),
    "empty_count": lambda items: float(sum(1 for it in items if it["empty"])),
    "judge_errors": lambda items: float(sum(1 for it in items if it["judge_error"])),
    "random_baseline": lambda items: _mean([1.0 / it["n_options"] for it in items]),
}


def split_metric(metric: str) -> tuple[str, str | None]:
    """``acc_match_gsi`` -> (``acc_match``, ``gsi``); a base name -> (name, None)."""
    if metric in AGGREGATIONS:
        return metric, None
    for cat in S.CATEGORIES:
        base = metric.removesuffix(f"_{cat}")
        if base != metric and base in AGGREGATIONS:
            return base, cat
    raise KeyError(
        f"Expected a VIA-Bench metric in ({', '.join(AGGREGATIONS)}) or <metric>_<category> with a category in "
        f"({', '.join(S.CATEGORIES)}) but got {metric!r}"
    )


def aggregate(metric: str, items: Sequence[dict]) -> float:
    base, cat = split_metric(metric)
    items = [it for it in items if cat is None or it.get("category") == cat]
    return float(AGGREGATIONS[base](items))


def explain(rec: dict, response: Any, *, judge: Any = None) -> list[str]:
    """How one answer was read and scored (``ambi score --explain``): Match and Judge side by side."""
    item = score_item(rec, response, judge=judge)
    return [f"raw answer: {response!r}", f"Match: {item['match_pred']} ({item['match_reason']})",
            f"judge: {item['judge_pred']}", f"gold: {rec.get('answer_index')}",
            f"score: Match {'correct' if item['correct_match'] else 'wrong'}, "
            f"Judge {'correct' if item['correct_judge'] else 'wrong'}"]  # fmt: skip
