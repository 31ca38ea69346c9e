"""Per-item scoring and aggregation, harness-neutral.

``score_item(record, response)`` turns one model response into an *item score*: a plain dict
that says whether the answer parsed, whether it is right, and what each metric of the task type
needs. ``aggregate(metric, items)`` reduces a list of item scores to one number. The harness
adapters (lmms-eval, VLMEvalKit) only call these two functions, so a metric exists once.

Metric names (see ``METRICS_BY_TYPE``):

========================  =====================================================================
``acc``                   fraction of items answered correctly (unparseable = wrong)
``acc_<view>``            per-view accuracy of open answers (``acc_near``, ``acc_upright`` ...)
``exact_match``           multi-label choice: the set of letters equals the gold set
``fp_ratio``              FP / (FP + FN), True (or Yes) as positive; NaN when FP + FN = 0
``ap50``                  AP at IoU 0.5 (COCO 101-point interpolation, output order as rank)
``ap50_single``           ``ap50`` over images with one ground-truth object
``ap50_combined``         ``ap50`` over images with several ground-truth objects
``hit_rate``              images whose every ground-truth box is found at IoU > 0.5
``desc_score``            mean 0/1/2 description score
``human_like_rate``       illusion items answered as humans perceive them
``no_illusion_rate``      illusion items answered by the pixel values
``na_rate``               illusion items answered neither way (an unreadable reply included: the
                          three rates sum to 1)
``control_acc``           accuracy on the no-illusion control items
``unparsed_rate``         fraction of responses no parser could read (an ``item_error`` is in neither count)
``unparsed``              number of such responses (ids and texts: the results JSON's ``ambi_plugin.unparsed``)
``judge_errors``          open, region, description: items whose judge verdict could not be read (not correct)
========================  =====================================================================

Open, region and description items are decided by a judge handed in (``judge=``), else by the provider handed in
(``judge_provider=``, called on first need; the runtime hands in its run's: ``core/judging.py``), one ``set_match``
judgement per view, and record ``item["judge"]`` = backend, model, rounds, every raw reply, and whether a verdict
errored.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ambi_plugin.core import metrics as M
from ambi_plugin.core.coords import to_original_pixels
from ambi_plugin.core.judging import item_info, resolve_judge
from ambi_plugin.core.matching import Matcher, OfflineMatcher
from ambi_plugin.core.parsing import parse_answer
from ambi_plugin.core.schema import DEFAULT_FORMAT

METRICS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "choice": ("acc", "unparsed_rate", "unparsed"),
    "multi_choice": ("exact_match", "unparsed_rate", "unparsed"),
    "true_false": ("acc", "fp_ratio", "unparsed_rate", "unparsed"),
    "yes_no": ("acc", "fp_ratio", "unparsed_rate", "unparsed"),
    "open": ("acc", "unparsed_rate", "unparsed", "judge_errors"),  # + acc_<view> for each view name
    "region": ("acc", "unparsed_rate", "unparsed", "judge_errors"),  # + acc_<view>
    "localization": ("ap50", "ap50_single", "ap50_combined", "hit_rate", "unparsed_rate", "unparsed"),
    "description": ("desc_score", "unparsed_rate", "unparsed", "judge_errors"),
    "perception": ("acc", "human_like_rate", "no_illusion_rate", "na_rate", "control_acc", "unparsed_rate", "unparsed"),
    "color_naming": ("acc", "human_like_rate", "no_illusion_rate", "na_rate", "control_acc", "unparsed_rate",
                     "unparsed"),
}  # fmt: skip

HIGHER_IS_BETTER: dict[str, bool] = {
    "acc": True,
    "exact_match": True,
    "fp_ratio": False,  # diagnostic: a bias indicator rather than a score
    "ap50": True,
    "ap50_single": True,
    "ap50_combined": True,
    "hit_rate": True,
    "desc_score": True,
    "human_like_rate": True,
    "no_illusion_rate": True,
    "na_rate": False,
    "control_acc": True,
    "unparsed_rate": False,
    "unparsed": False,
    "judge_errors": False,
    # IllusionBench: std over items of the description score (Table IV), and the LLM-assisted protocol
    "desc_score_std": False,
    "acc_llm": True,
    "fp_ratio_llm": False,
    "desc_score_llm": True,
    "desc_score_llm_std": False,
    "judge_unscored_rate": False,
}

_default_matcher: Matcher | None = None


def default_matcher() -> Matcher:
    """The offline matcher, built once per process (it loads the shipped lexicon)."""
    global _default_matcher
    if _default_matcher is None:
        _default_matcher = OfflineMatcher()
    return _default_matcher


def answer_format(record: dict) -> str:
    return record.get("answer_format") or DEFAULT_FORMAT[record["task_type"]]


# Base metrics that ``metric_names(..., by=...)`` breaks down by record fields (``acc_easy`` ...).
BREAKDOWN_BASES: dict[str, tuple[str, ...]] = {
    "choice": ("acc",),
    "multi_choice": ("exact_match",),
    "true_false": ("acc", "fp_ratio"),
    "yes_no": ("acc", "fp_ratio"),
    "open": ("acc",),
    "region": ("acc",),
    "localization": ("ap50", "hit_rate"),
    "description": ("desc_score",),
    "perception": ("acc", "human_like_rate", "no_illusion_rate", "na_rate", "control_acc"),
    "color_naming": ("acc", "human_like_rate", "no_illusion_rate", "na_rate", "control_acc"),
}


def slug(value: Any) -> str:
    """A breakdown value as it appears in metric names: ``"Real Scene"`` -> ``real_scene``."""
    return _slug(value if isinstance(value, str) else str(value))


def _slug_of(value: str) -> str:
    text = "".join(ch if ch.isalnum() else "_" for ch in value.strip().lower())
    return "_".join(part for part in text.split("_") if part) or "none"


_slug = lru_cache(maxsize=4096)(_slug_of)  # a task's few breakdown values, read for every item: each made once


def breakdown_value(record: dict, field: str) -> str | None:
    """The record's value for a breakdown field (``breakdown[field]``, else a top-level field)."""
    val = (record.get("breakdown") or {}).get(field, record.get(field))
    return None if val is None or val == "" else slug(val)


def metric_names(record: dict, by: Sequence[str] = ()) -> list[str]:
    """The metric names an item of this record reports.

    Open types add ``acc_<view>`` per view; each field in ``by`` adds ``<base>_<value>`` for the
    record's value of that field (``acc_easy``, ``fp_ratio_classic`` ...), so lmms-eval aggregates
    each subset over exactly the items in it.
    """
    names = list(METRICS_BY_TYPE[record["task_type"]])
    if record["task_type"] in ("open", "region") and record.get("views_positional", True):
        views = record.get("views") or []
        if len(views) > 1:
            names[1:1] = [f"acc_{v.get('name') or i}" for i, v in enumerate(views)]
    for field in by:
        # every value the dataset has for the field (set by the harness adapter), so each item reports
        # the same names and a subset with no items (e.g. under --limit) still shows up, as NaN
        values = (record.get("breakdown_values") or {}).get(field)
        if not values:
            own = breakdown_value(record, field)
            values = [own] if own is not None else []
        for value in values:
            names.extend(f"{base}_{value}" for base in BREAKDOWN_BASES[record["task_type"]])
    return names


def _parse(record: dict, response: Any):
    fmt = answer_format(record)
    kw: dict[str, Any] = {}
    if fmt in ("letter", "roman"):
        kw = {
            "n_options": len(record["options"]),
            "style": record.get("option_style") or fmt,
            "options": record["options"],
        }
    elif fmt == "letter_set":
        kw = {"n_options": len(record["options"]), "none_index": record.get("none_index")}
    elif fmt in ("yes_no", "true_false"):
        kw = {"question": record.get("question")}  # a reply that restates the question is read against it
    return parse_answer(response, fmt, **kw)


def _split_views(parsed_value: Any, fmt: str) -> list[list[str]]:
    """Prediction terms per position: comma lists and layers are positional; an object (or free text) is one
    view of one term."""
    if fmt == "layers":
        return [list(layer) for layer in parsed_value]
    if fmt == "comma_list":
        return [[item] for item in parsed_value]
    return [[str(parsed_value)]]


def _score_open(record: dict, parsed, judge) -> dict:
    """One ``set_match`` judgement per view (PROTOCOL: positional views; ground truth is Set 1)."""
    views = record["views"]
    names = [v.get("name") or str(i) for i, v in enumerate(views)]
    if not parsed.ok:
        return {"correct": False, "views": dict.fromkeys(names, False), "judge": item_info(judge, [])}
    fmt = answer_format(record)
    segments = _split_views(parsed.value, fmt)
    if record.get("views_positional", True) and len(views) > 1:
        per_view, verdicts = {}, []
        for i, (name, view) in enumerate(zip(names, views)):
            predicted = segments[i] if i < len(segments) else []
            verdicts.append(judge.set_match(list(view["labels"]), predicted))
            per_view[name] = bool(verdicts[-1])  # an errored verdict counts False and in judge_errors
        return {"correct": all(per_view.values()), "views": per_view, "judge": item_info(judge, verdicts)}
    gold = [label for v in views for label in v["labels"]]
    predicted = [term for seg in segments for term in seg]
    verdict = judge.set_match(gold, predicted)
    ok = bool(verdict)
    return {"correct": ok, "views": dict.fromkeys(names, ok), "judge": item_info(judge, [verdict])}


def _score_description(record: dict, parsed, judge) -> dict:
    """The judge's 0/1/2 rating against the golden description (IllusionBench C.1), mean over its rounds.

    The offline judge uses the record's ``key_terms`` / ``conflict_terms`` when it has them. A rating the
    judge could not give counts 0 and in ``judge_errors``.
    """
    if not parsed.ok:
        return {"score": 0.0, "correct": False, "judge": item_info(judge, [])}
    result = judge.description_score(
        str(parsed.value),
        str(record.get("description") or ""),
        key_terms=record.get("key_terms") or None,
        conflict_terms=record.get("conflict_terms") or None,
    )
    score = 0.0 if result.mean is None else float(result.mean)
    return {"score": score, "correct": score == 2.0, "judge": item_info(judge, [result])}


def _judge_for(judge: Any, matcher: Matcher | None, provider: Any = None) -> Any:
    return resolve_judge(judge, matcher, provider)  # handed in, else the provider handed in (core/judging.py)


# One scorer per task type: (record, parse result, parsed value or None, judge getter) -> the item's fields. The
# judge getter is called only by the types a judge decides (open, region, description).
Scorer = Callable[[dict, Any, Any, Callable[[], Any]], dict]


def _score_choice(record: dict, parsed, value, judge) -> dict:
    return {"pred": value, "correct": value is not None and value == record["answer_index"]}


def _score_multi_choice(record: dict, parsed, value, judge) -> dict:
    return {
        "pred": sorted(value) if value is not None else None,
        "correct": M.exact_set_match(value, record["answer_indices"] or [record.get("none_index")]),
    }


def _score_bool(record: dict, parsed, value, judge) -> dict:
    gold = bool(record["answer_bool"])
    return {"pred_bool": value, "gold_bool": gold, "correct": value is not None and value == gold}


def _score_localization(record: dict, parsed, value, judge) -> dict:
    # the model's coordinate system (record / per-model ``box_format``) -> original pixels (core/coords.py)
    pred = to_original_pixels(value, record) if value is not None else []
    gold = [list(b["box"]) for b in record["boxes"]]
    hit = bool(parsed.ok) and M.image_hit(pred, gold)
    return {
        "pred_boxes": pred,
        "gold_boxes": gold,
        # single / combined as the record says (never read from the number of boxes: "old man face" is one box
        # and combined); without one, the item counts in ap50 / hit_rate only
        "group": next((b["group"] for b in record["boxes"] if b.get("group")), "unknown"),
        "hit": hit,
        "correct": hit,
    }


def _score_perception(record: dict, parsed, value, judge) -> dict:
    # an out-of-range label (-1) parsed but matches neither answer: N/A on illusions, inaccurate on controls
    pixel = record.get("pixel_answer_indices") or [record["pixel_answer_index"]]
    human = record.get("human_answer_indices") or [record["human_answer_index"]]
    is_illusion = bool(record["is_illusion"])
    listed = record.get("pixel_answer_indices") or record.get("human_answer_indices")
    gold = (human if record.get("prompt_kind") == "human" else pixel) if listed else [record["answer_index"]]
    return {
        "pred": value,
        "is_illusion": is_illusion,
        "outcome": M.perception_outcome(value, pixel, human, is_illusion),
        "correct": value is not None and value in gold,
    }


def _score_color_naming(record: dict, parsed, value, judge) -> dict:
    # RCID filter: the first color term against the pixel and the human color lists (core/colors.py)
    from ambi_plugin.core.colors import color_matches

    is_illusion = bool(record["is_illusion"])
    in_pixel, in_human = color_matches(value, record["pixel_colors"]), color_matches(value, record["human_colors"])
    if value is None:
        outcome = "unparsed"
    elif is_illusion:
        outcome = "human_like" if in_human else "no_illusion" if in_pixel else "na"
    else:
        outcome = "accurate" if in_pixel else "inaccurate"
    return {
        "pred": str(value) if value is not None else None,
        "is_illusion": is_illusion,
        "outcome": outcome,
        "correct": in_human if record.get("prompt_kind") == "human" else in_pixel,
    }


SCORERS: dict[str, Scorer] = {
    "choice": _score_choice,
    "multi_choice": _score_multi_choice,
    "true_false": _score_bool,
    "yes_no": _score_bool,
    "open": lambda record, parsed, value, judge: _score_open(record, parsed, judge()),
    "region": lambda record, parsed, value, judge: _score_open(record, parsed, judge()),
    "localization": _score_localization,
    "description": lambda record, parsed, value, judge: _score_description(record, parsed, judge()),
    "perception": _score_perception,
    "color_naming": _score_color_naming,
}


def score_item(
    record: dict,
    response: Any,
    *,
    matcher: Matcher | None = None,
    judge: Any = None,
    judge_provider: Callable[[Any], Any] | None = None,
) -> dict:
    """Score one response against its record with its task type's scorer (:data:`SCORERS`). Never raises on
    the response.

    Open, region and description items use ``judge``, else ``judge_provider(matcher)`` (called only when such an
    item needs a judge; see ``core/judging.py``); ``matcher`` is a shortcut for an offline judge using that Matcher.
    """
    ttype = record["task_type"]
    scorer = SCORERS.get(ttype)
    if scorer is None:  # pragma: no cover - validate_record rejects unknown types
        raise ValueError(f"unknown task_type {ttype!r}")
    parsed = _parse(record, response)
    item: dict[str, Any] = {
        "id": record.get("id"),
        "task_type": ttype,
        "parsed": bool(parsed.ok),
        "parse_reason": parsed.reason,
        "breakdown": record.get("breakdown") or {},
    }
    value = parsed.value if parsed.ok else None
    item.update(scorer(record, parsed, value, lambda: _judge_for(judge, matcher, judge_provider)))
    return item


# ----------------------------------------------------------------------------- aggregation


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _acc(items: list[dict]) -> float:
    return _mean([1.0 if it.get("correct") else 0.0 for it in items])


def _answered(items: list[dict]) -> list[dict]:
    """The items the model was shown: an item error (its image could not be read, ``item_error``) is counted as an
    item error only, never also as an unparsed answer."""
    return [it for it in items if not it.get("item_error")]


def _unparsed(items: list[dict]) -> float:
    return _mean([0.0 if it.get("parsed") else 1.0 for it in _answered(items)])


def _fp_ratio(items: list[dict]) -> float:
    return M.fp_ratio([it.get("pred_bool") for it in items], [it["gold_bool"] for it in items])


def _ap(items: list[dict]) -> float:
    if not items:
        return math.nan
    return M.average_precision([it["pred_boxes"] for it in items], [it["gold_boxes"] for it in items])


def _outcome_rate(items: list[dict], outcome: str) -> float:
    """The share of illusion items with ``outcome``; an unreadable reply counts as N/A (RCID: neither answer)."""
    counted = {outcome, "unparsed"} if outcome == "na" else {outcome}
    return _mean([1.0 if it["outcome"] in counted else 0.0 for it in items if it.get("is_illusion")])


def _control_acc(items: list[dict]) -> float:
    return _mean([1.0 if it["outcome"] == "accurate" else 0.0 for it in items if not it.get("is_illusion")])


AGGREGATIONS: dict[str, Callable[[list[dict]], float]] = {
    "acc": _acc,
    "exact_match": _acc,
    "unparsed_rate": _unparsed,
    "unparsed": lambda items: float(sum(1 for it in _answered(items) if not it.get("parsed"))),
    "fp_ratio": _fp_ratio,
    "ap50": _ap,
    "ap50_single": lambda items: _ap([it for it in items if it.get("group") == "single"]),
    "ap50_combined": lambda items: _ap([it for it in items if it.get("group") == "combined"]),
    "hit_rate": lambda items: _mean([1.0 if it.get("hit") else 0.0 for it in items]),
    "desc_score": lambda items: _mean([float(it["score"]) for it in items]),
    "human_like_rate": lambda items: _outcome_rate(items, "human_like"),
    "no_illusion_rate": lambda items: _outcome_rate(items, "no_illusion"),
    "na_rate": lambda items: _outcome_rate(items, "na"),
    "control_acc": _control_acc,
    "judge_errors": lambda items: float(sum(1 for it in items if (it.get("judge") or {}).get("error"))),
    # IllusionBench (ambi_plugin.benchmarks.illusionbench.llm): std over items; the judge's verdicts
    # ("correct_llm", "pred_bool_llm", "score_llm"; an unscored verdict counts wrong / 0 and is reported)
    "desc_score_std": lambda items: M.mean_and_std([float(it["score"]) for it in items])[1],
    "acc_llm": lambda items: _mean([1.0 if it.get("correct_llm") else 0.0 for it in items]),
    "fp_ratio_llm": lambda items: M.fp_ratio(
        [it.get("pred_bool_llm") for it in items], [it["gold_bool"] for it in items]
    ),
    "desc_score_llm": lambda items: _mean([float(it.get("score_llm") or 0.0) for it in items]),
    "desc_score_llm_std": lambda items: M.mean_and_std([float(it.get("score_llm") or 0.0) for it in items])[1],
    "judge_unscored_rate": lambda items: _mean([1.0 if it.get("judge_unscored") else 0.0 for it in items]),
}


def _split_name(metric: str) -> tuple[str, str] | None:
    """``fp_ratio_real_scene`` -> (``fp_ratio``, ``real_scene``): the longest known base wins."""
    bases = sorted((b for b in AGGREGATIONS if metric.startswith(b + "_")), key=len, reverse=True)
    return (bases[0], metric[len(bases[0]) + 1 :]) if bases else None


def _has_value(item: dict, value: str) -> bool:
    return any(slug(v) == value for v in (item.get("breakdown") or {}).values())


def aggregate(metric: str, items: list[dict]) -> float:
    """Reduce item scores to one number for ``metric``.

    Besides the names in ``AGGREGATIONS``: ``acc_<view>`` is the accuracy of one view of open
    answers, and ``<base>_<value>`` is ``<base>`` over the items whose breakdown has that value.
    """
    items = list(items)
    if metric in AGGREGATIONS:
        return float(AGGREGATIONS[metric](items))
    split = _split_name(metric)
    if split is None:
        raise KeyError(
            f"Expected a metric in ({', '.join(sorted(AGGREGATIONS))}, acc_<view>, <metric>_<value>) but got {metric!r}"
        )
    base, value = split
    if base == "acc" and any(value in (it.get("views") or {}) for it in items):
        return _mean([1.0 if it["views"][value] else 0.0 for it in items if value in (it.get("views") or {})])
    return float(AGGREGATIONS[base]([it for it in items if _has_value(it, value)]))
