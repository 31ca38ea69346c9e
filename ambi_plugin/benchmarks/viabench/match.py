"""VIA-Bench's **Match** protocol: a regular expression extracts the final option label (ours).

Appendix D of the paper announces its pattern but the released text does not print it, so this one is
written by us. It reads the answer the output-format instruction asks for ("Answer: [X]"):

1. Reasoning blocks (``<think>...</think>``) and markdown emphasis (``**``, ``__``, backticks) are dropped.
2. An answer marker (``Answer:``, ``Final answer -``, ``The answer is``, ``Correct option``, ``Option:`` ...) then a
   label (``B``, ``[B]``, ``(b)``, ``B.``, ``[B. 6]``): the **last** marker that yields an answer wins, so a chain
   of thought that mentions several letters and ends in ``Answer: [B]`` reads as B. A lower-case label counts when
   nothing but punctuation or the end of a line follows it ("the answer is a bit unclear" is not ``a``).
   A label followed by ``/`` (the template echoed: ``Answer: [A/B/C/D]``) or by a word on the same line
   (``Answer: I cannot determine``) is no label, unless that word is a connective (``because``, ``since``, ``as``,
   ``is``, ``was``, ``which``, ``given``, ``due``, ``for``) or the rest of the line is that option's own text
   (``Answer: B Six fingers``).
3. When what follows a marker is an option's text (``Answer: Not Sure``, ``Answer: [Six fingers]``; case and
   surrounding brackets ignored, punctuation or the line end after it), that option is read.
4. Without a marker: a reply that is only a label (``B``, ``[B]``, ``(B)``, ``B.``, ``B. 6``), or exactly one
   distinct bracketed label ``[B]`` in the reply (the requested format without its marker). A bare option
   text without a marker is not read (the Judge protocol reads free text).
5. Otherwise nothing is extracted (refusals, several bare letters): the item is *unparsed* and wrong.

A label beyond the options (``E`` of four, the placeholder ``X``) is extracted and wrong. Total function:
never raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ambi_plugin.core.parsing import response_text
from ambi_plugin.core.thinking import drop_think_blocks

MAX_CHARS = 100_000  # a longer reply is read from its last 100,000 characters
WINDOW = 256  # characters of a line read after a marker, beyond twice the longest option text
_CUT = "\uffff"  # ends a line cut at the window

_EMPHASIS = re.compile(r"\*\*|__|`")
_MARKER = (
    r"(?i:final\s+answer|correct\s+(?:answer|option|choice)|answer|(?:option|choice)(?=\s*[:：]))"
    r"(?i:\s+(?:is|would\s+be|will\s+be))?\s*(?:[:：\-=]\s*|\s+)"
)
# The label after a marker: upper case where a word ends and no "/" follows; lower case only before
# punctuation / line end.
_LABEL = r"[\[\(]?\s*(?:([A-Z])(?![A-Za-z0-9])(?![ \t]*/)|([a-z])(?=\s*(?:[\].):,;!]|$)))"
MATCH_REGEX = re.compile(_MARKER + _LABEL, re.MULTILINE)
_MARKER_RE = re.compile(_MARKER, re.MULTILINE)
_LABEL_RE = re.compile(_LABEL, re.MULTILINE)
_WORD_AFTER = re.compile(r"^[ \t]+([A-Za-z]+)")
CONNECTIVES = frozenset({"because", "since", "as", "is", "was", "which", "given", "due", "for"})
_BARE = re.compile(r"^\s*[\[\(]?\s*([A-Za-z])\s*[\]\)]?\s*(?:[.:)]\s*.{0,200})?$", re.DOTALL)
_BRACKETED = re.compile(r"\[\s*([A-Z])\s*\]")
_EDGE = " \t\"'“”‘’"


@dataclass(frozen=True)
class Match:
    """``index``: 0-based option extracted (-1 = a label beyond the options); None = nothing extracted."""

    index: int | None
    label: str | None
    reason: str


def _text(response: Any) -> str:
    # bytes (only) are decoded; a failing str() propagates to match()'s guard
    text = response_text(response, max_chars=MAX_CHARS, binary=(bytes,), on_error="raise")
    return _EMPHASIS.sub("", drop_think_blocks(text)).strip()


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def _result(letter: str, n_options: int, reason: str) -> Match:
    idx = ord(letter.upper()) - ord("A")
    if 0 <= idx < n_options:
        return Match(idx, letter.upper(), reason)
    return Match(-1, letter.upper(), "label_out_of_range")


def _option_text(line: str, options: Sequence[str]) -> int | None:
    """The option whose text ``line`` starts with (the longest one; brackets, quotes and case ignored),
    followed by punctuation or nothing."""
    text = _norm(line.strip(_EDGE).lstrip("[("))
    best, size = None, 0
    for k, opt in enumerate(options):
        want = _norm(opt)
        if not want or not text.startswith(want) or len(want) <= size:
            continue
        rest = text[len(want) :]
        if not rest or re.match(r"^\s*[\]\).,;:!?]", rest):
            best, size = k, len(want)
    return best


def _label_ok(letter: str, tail: str, options: Sequence[str]) -> bool:
    """A label followed by a word on its line is a label only before a connective or its option's text."""
    word = _WORD_AFTER.match(tail)
    if word is None:
        return True
    if word.group(1).lower() in CONNECTIVES:
        return True
    idx = ord(letter.upper()) - ord("A")
    return 0 <= idx < len(options) and _option_text(tail, [options[idx]]) == 0


def _line_from(text: str, pos: int, window: int) -> str:
    """The rest of the line from ``pos``, at most ``window`` characters: the work per marker is bounded, so a
    reply of many markers on one long line is read in linear time. A cut line ends in a character that is
    neither punctuation nor space (what followed is unknown: no option text is read as complete there)."""
    end = text.find("\n", pos, pos + window)
    if end >= 0:
        return text[pos:end]
    line = text[pos : pos + window]
    return line + _CUT if pos + window < len(text) and text[pos + window] != "\n" else line


def _after_marker(text: str, pos: int, n: int, options: Sequence[str], window: int) -> Match | None:
    line = _line_from(text, pos, window)
    label = _LABEL_RE.match(text, pos)
    if label is not None:
        letter = label.group(1) or label.group(2)
        if _label_ok(letter, _line_from(text, label.end(), window), options):
            return _result(letter, n, "marker")
    idx = _option_text(line, options)
    return None if idx is None else Match(idx, chr(ord("A") + idx), "option_text")


def match_label(response: Any, options: int | Sequence[str]) -> Match:
    """The final option of a response (see the module docstring). ``options``: the option texts, or only
    their number (then no option text can be read)."""
    try:
        texts = [] if isinstance(options, int) else [str(o) for o in options]
        n = options if isinstance(options, int) else len(texts)
        window = WINDOW + 2 * max((len(t) for t in texts), default=0)
        text = _text(response)
        if not text:
            return Match(None, None, "empty")
        for marker in reversed(list(_MARKER_RE.finditer(text))):
            got = _after_marker(text, marker.end(), n, texts, window)
            if got is not None:
                return got
        bare = _BARE.match(text)
        if bare and (len(text) <= 3 or bare.group(1).isupper()):
            return _result(bare.group(1), n, "bare_label")
        bracketed = list(dict.fromkeys(m.group(1).upper() for m in _BRACKETED.finditer(text)))
        if len(bracketed) == 1:
            return _result(bracketed[0], n, "bracketed_label")
        return Match(None, None, "several_labels" if len(bracketed) > 1 else "no_label")
    except Exception as exc:  # noqa: BLE001 - a parser never raises
        return Match(None, None, f"error: {type(exc).__name__}")
