"""Open list answers: comma lists and layer lists (``parse_list``, ``parse_layers``).

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import re
from typing import Any

from ambi_plugin.core.parsing.choice import _norm_option
from ambi_plugin.core.parsing.text import Parsed, _clean, _fail, _segments, _total

# ----------------------------------------------------------------------------- open answers

_EDGE_JUNK = re.compile(r"^[\W_]+|[\W_]+$")
_REFUSALS = {
    "no answer", "none", "n a", "na", "null", "unknown", "unsure", "not sure", "unclear", "nothing", "no object",
    "no idea", "i don t know", "i do not know", "cannot tell", "can t tell", "cannot determine", "cannot answer",
}  # fmt: skip
_ITEM_LABEL = re.compile(
    r"^(?:(?:object|item|layer|scene|view|answer)\s*\d*(?:\s+objects?)?|near|far|left|right|upright|rotated|first|second|third)\s*[:=]\s*",
    re.IGNORECASE,
)
_NUMBERED = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+")
_BULLET_LINE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")


def _clean_item(x: str) -> str:
    """Strip quotes, brackets, end punctuation and "Object1:"-style labels; refusals ("no answer") -> ""."""
    x = _ITEM_LABEL.sub("", _EDGE_JUNK.sub("", x))
    x = " ".join(_EDGE_JUNK.sub("", x).split())
    return "" if _norm_option(x) in _REFUSALS else x


def _numbered_split(s: str) -> list[str] | None:
    """ "1. shark 2. mushroom" -> ["shark", "mushroom"] when the numbers run 1, 2, 3, ..."""
    ms = list(_NUMBERED.finditer(s))
    if len(ms) < 2 or [int(m.group(1)) for m in ms] != list(range(1, len(ms) + 1)) or s[: ms[0].start()].strip():
        return None
    return [s[m.end() : (ms[k + 1].start() if k + 1 < len(ms) else len(s))] for k, m in enumerate(ms)]


def _split_items(s: str, sep: str) -> list[str]:
    lines = [ln for ln in s.splitlines() if ln.strip()]
    if len(lines) >= 2 and sum(bool(_BULLET_LINE.match(ln)) for ln in lines) >= 2:
        raw = [_BULLET_LINE.sub("", ln) for ln in lines if _BULLET_LINE.match(ln)]
    elif (numbered := _numbered_split(s.strip())) is not None:
        raw = numbered
    elif lines and sep in lines[0]:
        raw = lines[0].split(sep)
    elif len(lines) >= 2 and all(len(ln.split()) <= 6 for ln in lines):
        raw = lines
    else:
        raw = s.split(sep)  # parse_list never passes an empty separator
    return [item for item in (_clean_item(x) for x in raw) if item]


_LEAD_IN = re.compile(
    r"^(?:(?:the|this)\s+(?:image|picture|figure|photo)\s+(?:shows|contains|depicts)|i\s+(?:can\s+)?see)\s*:\s*",
    re.IGNORECASE,
)


def _answer_span(s: str) -> str:
    """The text after the last answer marker (else the reply), without a lead-in ("The image shows:")."""
    segs = [seg.strip() for seg in _segments(s)]
    return _LEAD_IN.sub("", next((seg for seg in segs if seg), s))


def _parse_list(text: Any, *, sep: str = ",") -> Parsed:
    """'shark, mushroom' / "Object1: shark, Object2: mushroom" / "1. shark 2. mushroom" -> items in order.

    Only ``sep``, numbered or bulleted lines, or short lines split items ("shark and panda" is one
    item); quotes, brackets, end punctuation and refusals ("no answer", "unknown") are dropped.
    """
    s = _clean(text)
    if not s:
        return _fail("empty")
    items = _split_items(_answer_span(s), sep if isinstance(sep, str) and sep else ",")
    return Parsed(items, True) if items else _fail("no_items")


parse_list = _total(_parse_list)


def _parse_layers(text: Any) -> Parsed:
    """'desert scene, sand dunes; cow skull' -> [["desert scene", "sand dunes"], ["cow skull"]]."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    span = _answer_span(s)
    parts = span.split(";") if ";" in span else [ln for ln in span.splitlines() if ln.strip()]
    layers = [[_clean_item(x) for x in p.split(",") if _clean_item(x)] for p in parts]
    while layers and not layers[-1]:
        layers.pop()  # a trailing ';'
    return Parsed(layers, True) if any(layers) else _fail("no_items")


parse_layers = _total(_parse_layers)
