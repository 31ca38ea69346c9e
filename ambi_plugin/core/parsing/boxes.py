"""Bounding-box answers (``parse_boxes``).

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ambi_plugin.core.parsing.text import Parsed, _clean, _fail, _total

# ----------------------------------------------------------------------------- boxes

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
_BOX4 = re.compile(rf"[(\[]\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*,\s*({_NUM})\s*[)\]]")
_POINTS = re.compile(rf"\(\s*({_NUM})\s*,\s*({_NUM})\s*\)\s*,?\s*(?:to\s+)?\(\s*({_NUM})\s*,\s*({_NUM})\s*\)")
_NAMED4 = re.compile(
    rf"\bx_?1\s*[:=]\s*({_NUM})\W+y_?1\s*[:=]\s*({_NUM})\W+x_?2\s*[:=]\s*({_NUM})\W+y_?2\s*[:=]\s*({_NUM})",
    re.IGNORECASE,
)
_BARE4 = re.compile(rf"^\s*({_NUM})\s*[, ]\s*({_NUM})\s*[, ]\s*({_NUM})\s*[, ]\s*({_NUM})\s*$")
_NONE_BOX = re.compile(r"\bnone\b|^\W*\[\s*\]\W*$", re.IGNORECASE)
# a refusal that says the object is absent: "There is no giraffe visible here.", "I can't find any giraffe"
_ABSENT = re.compile(
    r"\bthere(?:\s+is|\s+are|'s)\s+no\b|\bthere\s+(?:is|are)\s*(?:not|n't)\s+(?:an?|any)\b"
    r"|\bno\s+(?:[\w\-]+\s+){0,3}(?:is|are|was|were|can\s+be)\s+(?:visible|present|found|seen|detected|shown)\b"
    r"|\b(?:not|n't)\s+(?:present|visible|found|detected|shown|depicted)\b"
    r"|\b(?:does|do)\s*(?:not|n't)\s+(?:contain|include|show|have|appear)\b"
    r"|\b(?:cannot|can't|can\s+not|could\s*(?:not|n't)|unable\s+to)\s+(?:find|locate|see|detect|identify|spot)\s+any\b"
    r"|\b(?:don't|do\s+not)\s+see\s+any\b|\bno\s+such\b",
    re.IGNORECASE,
)


def _box(nums: Sequence[str]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = (float(v) for v in nums)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def _parse_boxes(text: Any) -> Parsed:
    """Boxes "[(x1, y1, x2, y2), ...]" in output order; "None" -> ``Parsed([], True, "none")``; a sentence
    saying the object is absent ("There is no giraffe visible here.") -> ``Parsed([], True, "absent")``."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    boxes = [_box(m.groups()) for m in _BOX4.finditer(s)]
    if not boxes:
        boxes = [_box(m.groups()) for m in _POINTS.finditer(s)]
    if not boxes:
        boxes = [_box(m.groups()) for m in _NAMED4.finditer(s)]
    if not boxes and (m := _BARE4.match(s)):
        boxes = [_box(m.groups())]
    if boxes:
        return Parsed(boxes, True)
    if _NONE_BOX.search(s):
        return Parsed([], True, "none")
    if _ABSENT.search(s):
        return Parsed([], True, "absent")
    return _fail("no_boxes")


parse_boxes = _total(_parse_boxes)
