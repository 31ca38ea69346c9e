"""The functions VIA-Bench's task YAMLs point to (``!function ambi_plugin.benchmarks.viabench.lmms.<name>``).

Thin: prompts come from :mod:`ambi_plugin.runtime.hooks` (``build_prompt``), scoring from
:mod:`ambi_plugin.benchmarks.viabench.scoring`. Kwargs of ``lmms_eval_specific_kwargs`` read here:

* ``system_prompt``: the variant's system prompt. Chat backends (``doc_to_messages``) get it as a system
  turn; simple backends (``doc_to_text``) get it before the prompt, separated by a blank line.
* ``blind: true``: no image is given (blind evaluation; the question text is unchanged).

Option permutation and polarity flipping (:mod:`~ambi_plugin.benchmarks.viabench.variants`) are applied to
the record before the prompt is built and before it is scored, so both see the same options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ambi_plugin.benchmarks.viabench import scoring
from ambi_plugin.benchmarks.viabench.variants import prepare
from ambi_plugin.runtime import hooks


def record(doc: dict) -> dict:
    """The doc's record as this run presents it (variants applied)."""
    return prepare(hooks.record_of(doc))


def _kwargs(kwargs: dict | None) -> dict:
    return dict(kwargs or {})


def doc_to_visual(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list:
    kwargs = _kwargs(lmms_eval_specific_kwargs)
    if kwargs.get("blind"):
        return []
    return hooks.doc_to_visual(doc, kwargs)


def user_prompt(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    return hooks.build_prompt(record(doc), _kwargs(lmms_eval_specific_kwargs))


def doc_to_text(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> str:
    kwargs = _kwargs(lmms_eval_specific_kwargs)
    text = user_prompt(doc, kwargs)
    system = str(kwargs.get("system_prompt") or "")
    return f"{system}\n\n{text}" if system else text


def doc_to_messages(doc: dict, lmms_eval_specific_kwargs: dict | None = None) -> list[dict]:
    """A system turn (the variant's system prompt), then one user turn: the image, then the prompt
    (Appendix C: ``[Image][Prompt]``); blind: the prompt alone."""
    kwargs = _kwargs(lmms_eval_specific_kwargs)
    content: list[dict] = [{"type": "image", "url": im} for im in doc_to_visual(doc, kwargs)]
    content.append({"type": "text", "text": user_prompt(doc, kwargs)})
    messages = []
    if kwargs.get("system_prompt"):
        messages.append({"role": "system", "content": [{"type": "text", "text": str(kwargs["system_prompt"])}]})
    messages.append({"role": "user", "content": content})
    return messages


def doc_to_target(doc: dict) -> str:
    rec = record(doc)
    idx = rec.get("answer_index")
    return "" if idx is None else f"Answer: [{chr(ord('A') + int(idx))}]"


def _response(results: list) -> Any:
    response = results[0] if results else ""
    if not isinstance(response, str):  # chat backends may return result objects
        response = getattr(response, "text", None) or ("" if response is None else str(response))
    return response


def _score(doc: dict, results: list) -> dict:
    """An item whose image could not be read is scored as an empty answer (runtime/item_errors.py)."""
    from ambi_plugin.runtime import item_errors

    rec = record(doc)
    item = scoring.score_item(rec, item_errors.scored_response(rec, _response(results)))
    return item_errors.mark(item, rec)


def process_results(doc: dict, results: list) -> dict:
    """Single-category tasks: the base metrics."""
    return dict.fromkeys(scoring.metric_names(by_category=False), _score(doc, results))


def process_results_by_category(doc: dict, results: list) -> dict:
    """The validation task: the base metrics and each per category (NaN where no item has that category)."""
    return dict.fromkeys(scoring.metric_names(by_category=True), _score(doc, results))


process_results.metric_names = lambda rec: scoring.metric_names(by_category=False)  # type: ignore[attr-defined]
process_results_by_category.metric_names = lambda rec: scoring.metric_names(by_category=True)  # type: ignore[attr-defined]


def _make(metric: str) -> Callable[[list], float]:
    def agg(items: list) -> float:
        return scoring.aggregate(metric, list(items))

    agg.__name__ = agg.__qualname__ = metric
    agg.__doc__ = f"Aggregate VIA-Bench item scores into '{metric}'."
    return agg


def unparsed(items: list) -> float:
    """The number of answers Match could not read; the examples are kept for the results JSON."""
    from ambi_plugin.runtime.unparsed import note

    items = list(items)
    note(items)
    return scoring.aggregate("unparsed", items)


def __getattr__(name: str) -> Callable[[list], float]:
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        scoring.split_metric(name)
    except KeyError as exc:
        raise AttributeError(str(exc)) from None
    fn = _make(name)
    globals()[name] = fn
    return fn
