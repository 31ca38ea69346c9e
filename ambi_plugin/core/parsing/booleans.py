"""Yes/no and true/false answers (``parse_bool``).

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import re
from typing import Any

from ambi_plugin.core.parsing.text import _BOOL_MARKER, Parsed, _clean, _fail, _segments, _total
from ambi_plugin.core.restate import hedge_verdict, restated_verdict, uncertain
from ambi_plugin.core.statements import statement_verdict

# ----------------------------------------------------------------------------- booleans

_BOOL_VOCAB: dict[str, tuple[dict[str, bool], dict[str, bool]]] = {
    "true_false": ({"true": True, "correct": True, "false": False, "incorrect": False}, {"yes": True, "no": False}),
    "yes_no": (
        {"yes": True, "yeah": True, "yep": True, "no": False, "nope": False},
        {"true": True, "correct": True, "false": False, "incorrect": False},
    ),
}
_VERDICT = re.compile(
    r"\b(true|false|correct|incorrect|yes|yeah|yep|no(?!\s+(?:answer|idea|clue|comment|response|reply|verdict)\b)|nope)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:[a-z]+\s+)?$", re.IGNORECASE)
_VERDICT_END = re.compile(r"\s*(?:$|[.,;:!\n\u2013\u2014-])")
_NEGATABLE = {"true", "false", "correct", "incorrect"}


def _verdicts(s: str, vocab: dict[str, bool]) -> list[tuple[int, bool]]:
    out = []
    for m in _VERDICT.finditer(s):
        word = m.group(1).lower()
        if word not in vocab:
            continue
        value = vocab[word]
        if word in _NEGATABLE and _NEGATION.search(s[max(0, m.start() - 30) : m.start()]):
            value = not value
        out.append((m.start(), value))
    return out


# a question and answer the model adds after answering: "\n\nAre the flowers dead already?\n\nAnswer: No, ..."
_INVENTED_TURN = re.compile(r"\n[ \t]*(?:question\s*:[^\n]*|[^\n]*\?)[ \t]*\n", re.IGNORECASE)


def _own_turn(s: str) -> str:
    """The reply up to a question-and-answer turn it invents after a verdict (a verdict before it is the answer)."""
    answers = [m.start() for m in re.finditer(r"\banswer\b", s, re.IGNORECASE)]
    verdict = _VERDICT.search(s)
    if not answers or verdict is None:
        return s
    for m in _INVENTED_TURN.finditer(s, verdict.end()):
        if m.start() > verdict.start() and answers[-1] > m.end() - 1:
            return s[: m.start()]
    return s


def _opens_sentence(s: str, pos: int) -> bool:
    """The verdict word at ``pos`` (one :func:`_verdicts` found) opens a sentence and is closed by punctuation:
    "... the video. \n\nYes, the particles ..."."""
    return (
        re.search(r"(?:^|[.!?\n])\s*$", s[:pos]) is not None
        and _VERDICT_END.match(s, _VERDICT.match(s, pos).end()) is not None
    )


def _determiner_no(s: str, pos: int) -> bool:
    """ "no" used as a determiner ("there is no motion"), not as a verdict: a word follows it."""
    return s[pos : pos + 2].lower() == "no" and _DETERMINER_NO.match(s, pos) is not None


_DETERMINER_NO = re.compile(r"no\s+[a-z]", re.IGNORECASE)


def restatement(s: str, question: str, kind: str) -> bool | None:
    """What ``s`` says by restating ``question`` (a true/false item's statement when ``kind`` is ``true_false``): True
    as asked, False negated, None when it restates neither. In a chain of thought (more than three sentences) only its
    conclusions decide."""
    long = len(re.findall(r"[.!?](?:\s|$)|\n", s.strip())) > 3
    read = statement_verdict if kind == "true_false" else restated_verdict
    return read(s, question, conclusions_only=long)


def _read_bool(s: str, kind: str, *, first_only: bool, question: str | None = None) -> Parsed | None:
    """One span's verdict, None when it has none. Order: a verdict word after a marker (``first_only``) or
    opening the span; a hedge opening it ("Not really", "Of course"); given the question, a restatement of it
    (with "no motion" read as a negation, not a verdict); every verdict word of the span if they agree."""
    for vocab in _BOOL_VOCAB[kind]:
        found = _verdicts(s, vocab)
        if question and found and all(_determiner_no(s, pos) for pos, _ in found):
            found = []  # "There is no motion": the restatement decides, below
        if not found:
            continue
        if first_only:
            return Parsed(found[0][1], True)
        head = re.sub(r"[\W_]+", " ", s[: found[0][0]].lower()).split()
        opening = not head or head in (["not"], ["it", "is"], ["it", "is", "not"], ["it", "s"], ["it", "s", "not"])
        if opening and _VERDICT_END.match(s, _VERDICT.match(s, found[0][0]).end()):  # "No, it is not", "Yes."
            return Parsed(found[0][1], True)
        break
    else:
        found = []
    hedge = hedge_verdict(s)
    if hedge is not None:
        return Parsed(hedge, True, "hedge")
    if uncertain(s) and not first_only:  # "I cannot say for certain ...": only a verdict opening a sentence answers
        values = {v for vocab in _BOOL_VOCAB[kind][:1] for pos, v in _verdicts(s, vocab) if _opens_sentence(s, pos)}
        return Parsed(values.pop(), True, "hedged") if len(values) == 1 else _fail("uncertain")
    if question and not any(not _determiner_no(s, pos) for pos, _ in found):
        restated = restatement(s, question, kind)
        if restated is not None:
            return Parsed(restated, True, "restated")
    for vocab in _BOOL_VOCAB[kind]:
        found = [(pos, v) for pos, v in _verdicts(s, vocab) if not (question and _determiner_no(s, pos))]
        if found:  # every verdict word agrees ("There is no point where ..." has none given the question)
            values = {v for _, v in found}
            return Parsed(values.pop(), True) if len(values) == 1 else _fail("ambiguous")
    return None


def _parse_bool(text: Any, *, kind: str = "true_false", question: Any = None) -> Parsed:
    """True/false or yes/no -> bool. ``kind`` picks the primary words; the other pair is a fallback.

    Given the item's ``question`` (or statement), a reply that restates it ("The bars are not the same
    length.") is read against it (:mod:`ambi_plugin.core.restate`); hedges ("Not really", "Of course") are
    read with or without it.
    """
    if kind not in _BOOL_VOCAB:
        return _fail(f"bad_kind: {kind!r}")
    s = _clean(text)
    if not s:
        return _fail("empty")
    q = _clean(question) if question is not None else ""
    s = _own_turn(s)
    for seg in _segments(s, extra=_BOOL_MARKER):
        got = _read_bool(seg.strip(), kind, first_only=True, question=q)
        if got is not None:
            return got
    got = _read_bool(s, kind, first_only=False, question=q)
    return got if got is not None else _fail("no_verdict")


parse_bool = _total(_parse_bool)
