"""IllusionBench's LLM-assisted evaluation (Appendix B-C), beside the rule-based parsers.

* True/false and multiple choice: the judge sees the paper's prompts (verbatim, in ``ambi_plugin.judge``)
  :data:`ROUNDS` times; the verdict is the side with at least :data:`MIN_VOTES` votes. An item whose
  verdict cannot be read is *unscored*: it counts as wrong and is reported (``judge_unscored_rate``).
* Description: the 0/1/2 conflict rating, :data:`ROUNDS` rounds averaged per item; the task reports the
  mean over items and the standard deviation **over items** (PROTOCOL: Table IV).
* FP ratio under the judge: a wrong verdict on a False statement is a false positive (the model said
  True), on a True statement a false negative.
* The paper re-reviewed by hand every item the judge marked wrong: :func:`review_queue` exports them;
  a reviewer fills ``correct`` (or ``score``), and the file is applied as *overrides* at scoring time
  (``ambi score --overrides F``, handed to its run through the run state; in lmms-eval runs
  ``$AMBI_ILLUSIONBENCH_OVERRIDES``): :func:`run_overrides`.

Item keys added to the rule-based item: ``correct_llm``, ``pred_bool_llm``, ``score_llm``,
``judge_unscored``, ``judge_votes``, ``judge_raw``, ``overridden``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import iter_jsonl
from ambi_plugin.core.parsing import option_label
from ambi_plugin.core.scoring import metric_names, score_item

ROUNDS = 5
MIN_VOTES = 3
OVERRIDES_ENV = "AMBI_ILLUSIONBENCH_OVERRIDES"

LLM_BASES: dict[str, tuple[str, ...]] = {
    "true_false": ("acc_llm", "fp_ratio_llm"),
    "choice": ("acc_llm",),
    "description": ("desc_score_llm",),
}
LLM_EXTRA: dict[str, tuple[str, ...]] = {
    "true_false": ("judge_unscored_rate",),
    "choice": ("judge_unscored_rate",),
    "description": ("desc_score_llm_std", "judge_unscored_rate"),
}


def rule_metric_names(rec: dict, by: Iterable[str] = ("image_category", "difficulty")) -> list[str]:
    """The rule-based metrics of an IllusionBench record, broken down; descriptions add the std over items."""
    names = metric_names(rec, by=tuple(by))
    if rec["task_type"] == "description":
        names.insert(1, "desc_score_std")
    return names


def llm_metric_names(rec: dict, by: Iterable[str] = ("image_category", "difficulty")) -> list[str]:
    """Rule-based and LLM-assisted metrics side by side, each broken down by ``by``."""
    from ambi_plugin.core.scoring import breakdown_value

    ttype = rec["task_type"]
    names = rule_metric_names(rec, by) + list(LLM_BASES[ttype]) + list(LLM_EXTRA[ttype])
    for field in by:
        value = breakdown_value(rec, field)
        if value is not None:
            names.extend(f"{base}_{value}" for base in LLM_BASES[ttype])
    return names


def mc_question_and_options(rec: dict) -> str:
    """The question and its options as the model saw them (presentation order, "i." labels)."""
    opts = "\n".join(f"{option_label(i, 'roman')}. {o}" for i, o in enumerate(rec["options"]))
    return f"{rec['question']}\n{opts}"


def mc_correct_option(rec: dict) -> str:
    i = rec["answer_index"]
    return f"{option_label(i, 'roman')}. {rec['options'][i]}"


def _empty(response: Any) -> bool:
    return response is None or not str(response).strip()


def judge_item(rec: dict, response: Any, *, judge=None) -> dict:
    """The judge's verdict (or rating) for one response. An empty response is wrong without asking."""
    ttype = rec["task_type"]
    if ttype not in LLM_BASES:
        raise ValueError(f"record id={rec.get('id')!r}: no LLM-assisted protocol for task_type {ttype!r}")
    text = "" if response is None else str(response)
    if _empty(text):
        base: dict[str, Any] = {"judge_unscored": False, "judge_votes": [], "judge_raw": ["empty response"]}
        if ttype == "description":
            return {**base, "score_llm": 0.0}
        return {**base, "correct_llm": False, "pred_bool_llm": None}
    if judge is None:  # the run's judge (runtime/run_state.py), built on first need
        from ambi_plugin.runtime.run_state import current

        judge = current().judge_for()
    if ttype == "description":
        score = judge.description_score(
            text,
            rec["description"],
            rounds=ROUNDS,
            key_terms=rec.get("key_terms") or None,
            conflict_terms=rec.get("conflict_terms") or None,
        )
        unscored = score.mean is None
        return {
            "score_llm": 0.0 if unscored else float(score.mean),
            "judge_unscored": unscored,
            "judge_votes": list(score.scores),
            "judge_raw": list(score.raw),
        }
    if ttype == "true_false":
        gold = bool(rec["answer_bool"])
        verdict = judge.correct_true_false(
            rec["question"], "True" if gold else "False", text, rounds=ROUNDS, min_votes=MIN_VOTES
        )
    else:
        verdict = judge.correct_multiple_choice(
            mc_question_and_options(rec), mc_correct_option(rec), text, rounds=ROUNDS, min_votes=MIN_VOTES
        )
    unscored = verdict.value is None or bool(getattr(verdict, "error", False))
    out = {
        "correct_llm": (not unscored) and bool(verdict.value),
        "judge_unscored": unscored,
        "judge_votes": list(verdict.votes),
        "judge_raw": list(verdict.raw),
    }
    if ttype == "true_false":
        out["pred_bool_llm"] = None if unscored else (gold if verdict.value else not gold)
    return out


def apply_override(rec: dict, item: dict, override: Mapping[str, Any] | None) -> dict:
    """A reviewer's decision replaces the judge's: ``correct`` (T/F, MC) or ``score`` (0-2, descriptions)."""
    if not override:
        return item
    ttype = rec["task_type"]
    if ttype == "description" and override.get("score") is not None:
        score = float(override["score"])
        if not 0.0 <= score <= 2.0:
            raise ValueError(f"override for record id={rec.get('id')!r}: score {score} is outside 0..2")
        item.update(score_llm=score, judge_unscored=False, overridden=True)
    elif ttype != "description" and override.get("correct") is not None:
        ok = bool(override["correct"])
        item.update(correct_llm=ok, judge_unscored=False, overridden=True)
        if ttype == "true_false":
            gold = bool(rec["answer_bool"])
            item["pred_bool_llm"] = gold if ok else not gold
    return item


def score_item_llm(rec: dict, response: Any, *, judge=None, override: Mapping[str, Any] | None = None) -> dict:
    """The rule-based item score plus the judge's verdict (and a reviewer's override, if any)."""
    from ambi_plugin.runtime.run_state import current

    item = score_item(rec, response, judge_provider=current().judge_for)  # the run's judge where the rules need one
    item["response"] = "" if response is None else str(response)
    item.update(judge_item(rec, response, judge=judge))
    return apply_override(rec, item, override)


# ----------------------------------------------------------------------------- review queue and overrides


def review_queue(task: str, records: Iterable[dict], items: Iterable[dict]) -> list[dict]:
    """Rows for a human reviewer: every item the judge marked wrong or could not score (descriptions: only
    the unscored). Fill ``correct`` (true/false) or ``score`` (0-2) and pass the file as overrides."""
    rows = []
    for rec, item in zip(records, items, strict=True):
        ttype = rec["task_type"]
        flagged = item.get("judge_unscored") or (ttype != "description" and not item.get("correct_llm"))
        if not flagged or item.get("overridden"):
            continue
        row: dict[str, Any] = {"task": task, "id": str(rec["id"]), "task_type": ttype}
        if ttype == "true_false":
            row.update(question=rec["question"], gold="True" if rec["answer_bool"] else "False", correct=None)
        elif ttype == "choice":
            row.update(question=mc_question_and_options(rec), gold=mc_correct_option(rec), correct=None)
        else:
            row.update(golden=rec["description"], score=None)
        row.update(
            response=item.get("response", ""), judge_votes=item.get("judge_votes"), judge_raw=item.get("judge_raw")
        )
        rows.append(row)
    return rows


def load_overrides(path: str | Path) -> dict[tuple[str, str], dict]:
    """{(task or "*", record id): override} from a JSONL file (a filled review queue)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"overrides file {str(path)!r} does not exist")
    out: dict[tuple[str, str], dict] = {}
    for lineno, row in iter_jsonl(path, what="overrides file", objects=True, error=ValueError):
        if row.get("id") is None:
            raise ValueError(f"{path}:{lineno}: an override needs the record 'id'")
        if row.get("correct") is None and row.get("score") is None:
            continue  # an unreviewed queue row
        out[(str(row.get("task") or "*"), str(row["id"]))] = row
    return out


def overrides_for(overrides: Mapping[tuple[str, str], dict], task: str) -> dict[tuple[str, str], dict]:
    """The overrides that apply to ``task``, each under ``("*", id)``: a row naming ``task`` wins over one naming
    no task; rows naming another task are left out (what a run of ``task`` is handed: :func:`run_overrides`)."""
    ids = dict.fromkeys(rid for _, rid in overrides)
    found = {rid: find_override(overrides, task, rid) for rid in ids}
    return {("*", rid): row for rid, row in found.items() if row is not None}


def find_override(overrides: Mapping[tuple[str, str], dict], task: str | None, rid: Any) -> dict | None:
    """The override of record ``rid`` in ``task`` (rows without a task apply to any task; ``task=None``
    matches any row with that id: IllusionBench ids name their task type, ``img.jpg:tf0``)."""
    if not overrides:
        return None
    if task is None:
        return next((row for (_, key), row in overrides.items() if key == str(rid)), None)
    return overrides.get((task, str(rid))) or overrides.get(("*", str(rid)))


@lru_cache(maxsize=4)
def _env_overrides(path: str) -> dict[tuple[str, str], dict]:
    return load_overrides(path)


def env_overrides() -> dict[tuple[str, str], dict]:
    """Overrides named by ``$AMBI_ILLUSIONBENCH_OVERRIDES`` (read once per process), else {}."""
    path = os.environ.get(OVERRIDES_ENV)
    return _env_overrides(path) if path else {}


def run_overrides() -> dict[tuple[str, str], dict]:
    """The reviewed decisions this run applies: those handed to it (:attr:`ambi_plugin.runtime.run_state.RunState.
    overrides`, ``ambi score --overrides``), else those of ``$AMBI_ILLUSIONBENCH_OVERRIDES`` (an lmms-eval run)."""
    from ambi_plugin.runtime.run_state import current

    given = current().overrides
    return env_overrides() if given is None else given
