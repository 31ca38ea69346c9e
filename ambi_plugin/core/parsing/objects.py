"""Open object and free-text answers (``parse_object``, ``parse_free``).

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import re
from typing import Any

from ambi_plugin.core.parsing.lists import _answer_span, _clean_item
from ambi_plugin.core.parsing.text import Parsed, _clean, _fail, _total

_OBJECT = re.compile(r"\bobject(?:\s*name)?['\"]?\s*[:=]\s*([^\n]*)", re.IGNORECASE)
_QUOTED = re.compile(r"^\s*(['\"])([^'\"\n]+)\1")
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|\s\(")
# an object named inside a sentence: "... is a leopard", "I can see an owl blending into the bark"
_IN_SENTENCE = re.compile(
    r"(?:\b(?:is|are|be|was|'s|looks?\s+like|resembles?|see|spot|notice|find|identify|shows?|depicts?|"
    r"contains?|reveals?|there\s+is|there's)|\b(?:hidden|camouflaged|concealed))\s+"
    r"(?:an?|the|some|two|three|several)\s+([a-z][a-z\- ]{0,60})"
    # a sentence opening with the object: "A crab is hiding in the rocks."
    r"|(?:^|[.!?]\s+)an?\s+([a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2}?)\s+(?:is|are|can\s+be|sits|rests|lies|hides)\b",
    re.IGNORECASE,
)
_PHRASE_STOP = frozenset(
    """in on at among amongst against within behind under underneath near into inside with that which who whose
    blending hiding hidden camouflaged concealed sitting perched standing lying resting partially almost nearly
    and but while as from of is are was were whose where when because disguised made formed""".split()
)
_GENERIC = frozenset(
    """image picture photo photograph scene illusion pattern texture background camouflage example trick
    object objects thing something animal creature shape design view painting drawing""".split()
)
_ARTICLE = re.compile(r"^(?:an?|the|some)\s+", re.IGNORECASE)


def _noun_phrase(words: str) -> str:
    """ "owl blending into the bark" -> "owl": at most four words, cut at a preposition, relative word or
    participle (after the first word)."""
    out: list[str] = []
    for k, w in enumerate(words.split()[:4]):
        if w.lower() in _PHRASE_STOP or (k > 0 and w.lower().endswith(("ing", "ed"))):
            break
        out.append(w)
    return " ".join(out)


def _object_in_sentence(span: str) -> str | None:
    """The last object a sentence names ("The hidden animal is a leopard."), generic words ("image") skipped."""
    found = [_noun_phrase(m.group(1) or m.group(2)) for m in _IN_SENTENCE.finditer(span)]
    found = [f for f in found if f and f.split()[-1].lower() not in _GENERIC]
    return _clean_item(found[-1]).lower() if found and _clean_item(found[-1]) else None


def _parse_object(text: Any) -> Parsed:
    """ "Object: 'butterfly'" / "butterfly" / "The hidden animal is a leopard." -> "butterfly", "leopard" (lower
    case; quotes, end punctuation and a leading article gone). With several "Object:" markers the last one wins;
    a short first line is the answer unless it is a sentence naming the object."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    hits = list(_OBJECT.finditer(s))
    if hits:
        raw = hits[-1].group(1)
        quoted = _QUOTED.match(raw)
        raw = quoted.group(2) if quoted else raw[: m.start()] if (m := _SENTENCE_END.search(raw)) else raw
        value = _ARTICLE.sub("", _clean_item(raw)).lower()
        return Parsed(value, True) if value else _fail("refusal")
    span = _answer_span(s)
    first = next((ln for ln in span.splitlines() if ln.strip()), "")
    if first and len(first.split()) <= 6 and _clean_item(first):
        named = _object_in_sentence(first)
        if named:
            return Parsed(named, True, "from_sentence")
        value = _ARTICLE.sub("", _clean_item(first)).lower()
        return Parsed(value, True) if _clean_item(value) else _fail("refusal")
    named = _object_in_sentence(span)
    if named:
        return Parsed(named, True, "from_sentence")
    return _fail("not_short")


parse_object = _total(_parse_object)


def _parse_free(text: Any) -> Parsed:
    """Free text, stripped; empty -> unparseable."""
    s = _clean(text)
    return Parsed(s, True) if s else _fail("empty")


parse_free = _total(_parse_free)
