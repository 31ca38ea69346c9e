"""True/false statements: a reply read against the statement it judges when it has no word "true" or "false".

Used by :func:`ambi_plugin.core.parsing.parse_bool` (``kind="true_false"``) given the item's statement, on top of
the restatement rules of :mod:`ambi_plugin.core.restate` (content words, synonyms and antonyms, the last clause
that restates decides). What a statement adds:

* Its framing ("In the figure, ...") is not part of the claim, and a chain of thought may conclude without its
  trailing qualifier ("along a vertical axis", "between 2004 and 2006").
* "meets the criteria for being a X" states "is a X"; a reply cut off mid-word ("does not have reflection") is
  read with that word completed when it begins a word of the statement.
* In a chain of thought, concluding sentences decide; without one, the reply's last sentence, then its first (an
  answer given up front) when it names every word of the statement.
* A definition ("A diameter of a circle is ...") states nothing about the figure.
"""

from __future__ import annotations

import re

from ambi_plugin.core.restate import _CONCLUDES, _QUESTION, _QUOTED, _SENTENCE, _last_restatement, _question_text, _read

# where to look, not what is claimed: "In the left chart in the figure, the two lines ..."
_FRAMING = frozenset("figure figures chart charts graph graphs diagram diagrams plot plots panel subplot along".split())
# "meets the criteria for being a quadrilateral" states "is a quadrilateral"; "does not meet ..." denies it
_MEETS = re.compile(
    r"\b(?:meets?|meeting|satisf(?:y|ies)|fulfill?s?|matches|match)\s+(?:all\s+)?(?:of\s+)?the\s+"
    r"(?:criteria|criterion|definition|requirements?|conditions?)\s+(?:of|for)\s+(?:being\s+)?",
    re.IGNORECASE,
)
# a statement's trailing qualifier: "... has reflectional symmetry | along a vertical axis", "... intersect | between"
_QUALIFIER = re.compile(r"\s(?:along|between|from|within|in\s+(?:this|the)\s+(?:figure|image|chart|graph|diagram))\b")

# a definition: "A diameter of a circle is ...", "A quadrilateral is defined as ..."
_DEFINITION = re.compile(
    r"[\W_]*(?:a|an)\s+\w+(?:\s+of\s+(?:a|an)\s+\w+)?\s+(?:is|are|has|have|means)\b", re.IGNORECASE
)
# a chain of thought's conclusion, besides _CONCLUDES: "Based on the definition, ...", "**Conclusion**: ..."
_CONCLUDES_TOO = re.compile(r"\bbased\s+on\s+(?:th(?:e|is|ese)|our|my)\b|\bconclusion\b", re.IGNORECASE)
# an answer marker left empty at the end of a reply ("Final answer:", "*Answer*:", "**"): nothing follows it
_EMPTY_ANSWER = re.compile(r"(?:\n\s*[*_#]*\s*(?:final\s+)?answer\s*[*_]*\s*:?\s*[*_]*|\n\s*[*_#]+)\s*$", re.IGNORECASE)


def _states_nothing(clause: str) -> bool:
    return _DEFINITION.match(clause) is not None


def statement_verdict(span: str, statement: str, *, conclusions_only: bool = False) -> bool | None:
    """True when the reply states ``statement``, False when it states its negation, None when it does neither.
    ``conclusions_only``: the reply is a chain of thought (see the module docstring for what decides)."""
    text = _question_text(statement)
    q_concepts, q_neg = _read(text)
    for w in _FRAMING:
        q_concepts.pop(w, None)
    if not q_concepts:
        return None
    cut = _QUALIFIER.search(text, 12)
    core = frozenset(_read(text[: cut.start()])[0].keys() - _FRAMING) if cut else frozenset()
    body = _EMPTY_ANSWER.sub("", _MEETS.sub("is a ", _QUOTED.sub(" ", _QUESTION.sub(" ", span))))
    complete = re.search(r"[.!?]\s*$", body) is not None and body.count("(") <= body.count(")")
    if not complete:  # cut off: its last word may be the start of one of the statement's
        m = re.search(r"([a-z]{4,})\W*$", body, re.IGNORECASE)
        full = m and next((c for c in q_concepts if c.startswith(m.group(1).lower()) and c != m.group(1).lower()), None)
        if full:
            body = body[: m.start(1)] + full
    sentences = [m.group(0) for m in _SENTENCE.finditer(body)]
    kw = {"core": core, "skip": _states_nothing}
    if not conclusions_only:
        return _last_restatement(sentences, q_concepts, q_neg, False, **kw)
    concluding = [x for x in sentences if _CONCLUDES.search(x) or _CONCLUDES_TOO.search(x)]
    verdict = _last_restatement(concluding, q_concepts, q_neg, True, **kw)
    if verdict is None and complete:  # a last sentence cut off ("intersects the pink line (T=0.") states nothing
        verdict = _last_restatement(sentences[-1:], q_concepts, q_neg, True, **kw)
    if verdict is None:  # a heading ("Intersecting Lines Analysis") or a premise is no answer: every word counts
        verdict = _last_restatement(sentences[:1], q_concepts, q_neg, True, every_word=True, **kw)
    return verdict
