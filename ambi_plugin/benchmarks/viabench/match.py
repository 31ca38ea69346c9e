"""VIA-Bench's **Match** protocol: a regular expression extracts the final option label (ours).

Appendix D of the paper announces its pattern but the released text does not print it, so this one is
written by us. It reads only option *labels* (the Judge protocol is the one that understands option text):

1. Reasoning blocks (``<think>...</think>``) and markdown emphasis (``**``, ``__``, backticks) are dropped.
2. An answer marker (``Answer:``, ``Final answer -``, ``The answer is``, ``Correct option``, ``Option:`` ...) then a
   label (``B``, ``[B]``, ``(b)``, ``B.``, ``[B. 6]``): the **last** marker wins, so a chain of thought that
   mentions several letters and ends in ``Answer: [B]`` reads as B. A lower-case label counts when nothing
   but punctuation or the end of a line follows it ("the answer is a bit unclear" is not ``a``).
3. Without a marker: a reply that is only a label (``B``, ``[B]``, ``(B)``, ``B.``, ``B. 6``), or exactly one
   distinct bracketed label ``[B]`` in the reply (the requested format without its marker).
4. Otherwise nothing is extracted (refusals, several bare letters): the item is *unparsed* and wrong.

A label beyond the options (``E`` of four) is extracted and wrong. Total function: never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_CHARS = 100_000

_THINK = re.compile(r"<think>.*?</think>", re.IGNORECASE | re.DOTALL)
_EMPHASIS = re.compile(r"\*\*|__|`")
_MARKER = (
    r"(?i:final\s+answer|correct\s+(?:answer|option|choice)|answer|(?:option|choice)(?=\s*[:：]))"
    r"(?i:\s+(?:is|would\s+be|will\s+be))?\s*(?:[:：\-=]\s*|\s+)"
)
# The label after a marker: upper case anywhere a word ends; lower case only before punctuation / line end.
MATCH_REGEX = re.compile(
    _MARKER + r"[\[\(]?\s*(?:([A-Z])(?![A-Za-z0-9])|([a-z])(?=\s*(?:[\].):,;!]|$)))",
    re.MULTILINE,
)
_BARE = re.compile(r"^\s*[\[\(]?\s*([A-Za-z])\s*[\]\)]?\s*(?:[.:)]\s*.{0,200})?$", re.DOTALL)
_BRACKETED = re.compile(r"\[\s*([A-Z])\s*\]")


@dataclass(frozen=True)
class Match:
    """``index``: 0-based option extracted (-1 = a label beyond the options); None = nothing extracted."""

    index: int | None
    label: str | None
    reason: str


def _text(response: Any) -> str:
    if response is None:
        return ""
    if isinstance(response, bytes):
        response = response.decode("utf-8", errors="replace")
    text = str(response)[-MAX_CHARS:]
    return _EMPHASIS.sub("", _THINK.sub(" ", text)).strip()


def _result(letter: str, n_options: int, reason: str) -> Match:
    idx = ord(letter.upper()) - ord("A")
    if 0 <= idx < n_options:
        return Match(idx, letter.upper(), reason)
    return Match(-1, letter.upper(), "label_out_of_range")


def match_label(response: Any, n_options: int) -> Match:
    """The final option label of a response (see the module docstring)."""
    try:
        text = _text(response)
        if not text:
            return Match(None, None, "empty")
        hits = list(MATCH_REGEX.finditer(text))
        if hits:
            last = hits[-1]
            return _result(last.group(1) or last.group(2), n_options, "marker")
        bare = _BARE.match(text)
        if bare and (len(text) <= 3 or bare.group(1).isupper()):
            return _result(bare.group(1), n_options, "bare_label")
        bracketed = list(dict.fromkeys(m.group(1).upper() for m in _BRACKETED.finditer(text)))
        if len(bracketed) == 1:
            return _result(bracketed[0], n_options, "bracketed_label")
        return Match(None, None, "several_labels" if len(bracketed) > 1 else "no_label")
    except Exception as exc:  # noqa: BLE001 - a parser never raises
        return Match(None, None, f"error: {type(exc).__name__}")
