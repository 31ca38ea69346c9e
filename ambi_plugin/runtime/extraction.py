"""The optional LLM extraction step: a judge reads the answers the rules could not (off by default).

As VLMEvalKit and lmms-eval's MMBench do, an answer that no rule of ``core/parsing`` could read may be handed to a judge
that says what it commits to. Here it is opt-in and narrow:

* on only with ``--extract-with-judge`` (``ambi eval``, ``ambi score``) or ``AMBI_EXTRACT_WITH_JUDGE=1`` (plain
  lmms-eval, VLMEvalKit);
* only for closed answer formats (:data:`EXTRACTABLE`: option letters, roman numerals, letter sets, yes/no,
  true/false), only for answers the rules left unread, never over a rule's reading, never for an empty answer or an
  item whose image could not be shown (an item error);
* through the configured judge (``AMBI_JUDGE_BACKEND`` ...; ``judge/``), with our prompt ``answer_extraction``
  (``judge/templates.py``): the judge is told not to solve the question and to answer NONE for hedges and refusals;
  its reply is read strictly (``judge/verdicts.read_extraction``): anything but one allowed answer leaves the answer
  unread, with the raw reply kept. Replies are cached like every judgement.

Every item score records how its answer was read: ``read_by`` is ``rule``, ``judge`` or ``none`` (unread), and an item
read by the judge keeps ``extracted`` (what the judge said) and ``extraction_raw``. The ``unparsed`` aggregation counts
``read_by`` per task (``ambi_plugin.read_by`` in the results JSON, ``ambi results``).
"""

from __future__ import annotations

import os
from typing import Any

from ambi_plugin.core.parsing.text import Parsed
from ambi_plugin.core.scoring import SCORERS, answer_format

ENV = "AMBI_EXTRACT_WITH_JUDGE"
EXTRACTABLE = frozenset({"letter", "roman", "letter_set", "yes_no", "true_false"})
_RAW_KEPT = 500  # characters of the judge's reply kept on the item


def enabled(flag: bool | None = None) -> bool:
    """``flag`` when given, else ``AMBI_EXTRACT_WITH_JUDGE`` (1/true/yes/on)."""
    if flag is not None:
        return bool(flag)
    return os.environ.get(ENV, "").strip().lower() in ("1", "true", "yes", "on")


def _value(fmt: str, said: str) -> Any:
    """The parsed value the scorers take, from what the extraction reply said."""
    if fmt in ("yes_no", "true_false"):
        return said in ("yes", "true")
    indices = [ord(c) - ord("A") for c in said.split(",")]
    return frozenset(indices) if fmt == "letter_set" else indices[0]


def read_by_judge(rec: dict, item: dict, response: Any, *, judge: Any = None) -> dict:
    """``item`` (the rules' score of ``response``) with ``read_by`` set; for an unread answer of a closed format,
    what the judge extracts, scored by the task type's own scorer."""
    if item.get("parsed"):
        item["read_by"] = "rule"
        return item
    fmt = answer_format(rec)
    text = response if isinstance(response, str) else ("" if response is None else str(response))
    if fmt not in EXTRACTABLE or not text.strip() or item.get("item_error"):
        item["read_by"] = "none"
        return item
    if judge is None:  # the run's judge (runtime/run_state.py), built on first need
        from ambi_plugin.runtime.run_state import current

        judge = current().judge_for()
    options = list(rec.get("options") or [])
    got = judge.extract_answer(fmt, rec.get("question") or "", options, text)
    raw = (got.raw[-1] if got.raw else "")[-_RAW_KEPT:]
    if got.error or got.value in (None, "none"):
        why = "the judge's reply could not be read" if got.error else "the judge read no answer"
        return {**item, "read_by": "none", "extraction": why, "extraction_raw": raw}
    value = _value(fmt, got.value)
    scored = SCORERS[rec["task_type"]](rec, Parsed(value, True, "judge"), value, lambda: judge)
    return {
        **item,
        **scored,
        "parsed": True,
        "parse_reason": "read by the judge",
        "read_by": "judge",
        "extracted": got.value,
        "extraction_raw": raw,
    }


__all__ = ["ENV", "EXTRACTABLE", "enabled", "read_by_judge"]
