"""``process_results`` of the IllusionBench tasks (thin: scoring lives in ``ambi_plugin.benchmarks``).

* :func:`process_results`: rule-based metrics broken down by image category and difficulty
  (``acc_classic``, ``fp_ratio_trap``, ``desc_score_hard`` ...), plus ``desc_score_std`` for descriptions;
* :func:`process_results_llm`: the same side by side with the paper's LLM-assisted protocol
  (``acc_llm``, ``fp_ratio_llm``, ``desc_score_llm`` and their breakdowns, ``judge_unscored_rate``);
  the reviewer overrides of the run are applied (:func:`ambi_plugin.benchmarks.illusionbench.llm.run_overrides`:
  those handed to the run, ``ambi score --overrides``; in an lmms-eval run ``$AMBI_ILLUSIONBENCH_OVERRIDES``).

Each function carries ``metric_names(record)`` so ``ambi validate-tasks`` can check the YAML's metric list.
"""

from __future__ import annotations

from ambi_plugin.benchmarks.illusionbench.llm import (
    find_override,
    llm_metric_names,
    rule_metric_names,
    run_overrides,
    score_item_llm,
)
from ambi_plugin.runtime.hooks import record_of, score_response


def _text(results: list) -> str:
    response = results[0] if results else ""
    if not isinstance(response, str):
        response = getattr(response, "text", None) or str(response)
    return response


def process_results(doc: dict, results: list) -> dict:
    rec = record_of(doc)
    return dict.fromkeys(rule_metric_names(rec), score_response(rec, results))


def process_results_llm(doc: dict, results: list) -> dict:
    rec = record_of(doc)
    override = find_override(run_overrides(), None, rec.get("id"))
    item = score_item_llm(rec, _text(results), override=override)
    return dict.fromkeys(llm_metric_names(rec), item)


process_results.metric_names = rule_metric_names  # type: ignore[attr-defined]
process_results_llm.metric_names = llm_metric_names  # type: ignore[attr-defined]
