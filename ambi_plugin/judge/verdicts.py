"""Reading a judge's reply: total functions that return the value or ``None`` (unreadable).

A reply is read strictly enough that a chatty or contradictory reply is *not* guessed: it becomes an
unreadable round (retried, then counted as a judge error), never a silent right or wrong.

* :func:`read_true_false` (AmbiBench A.5 asks "True or False"): the verdict words ``True`` / ``False``
  (also ``Yes`` / ``No``, ``1`` / ``0`` when alone); every verdict word in the reply must agree.
* :func:`read_binary_digit` (IllusionBench B.2 asks for "a single digit"): ``1`` -> True, ``0`` -> False;
  the reply must hold exactly one of the digits (words "correct"/"incorrect" accepted when alone).
* :func:`read_rating` (IllusionBench C.1 asks for "the rate number"): ``0``, ``1`` or ``2``, exactly one.
* :func:`read_option` (our VIA-Bench prompt): an option letter in range, or ``None`` -> -1 (no option).
* :func:`read_extraction` (our extraction prompt): the whole reply must be one allowed answer (a letter in range, a
  comma list of letters, YES/NO, TRUE/FALSE) or NONE; anything else is unreadable.

Reasoning models' ``<think>...</think>`` blocks are dropped before reading, in time linear in the reply's
length (a reply of 1 MB of ``<think>`` is read in milliseconds), and only the last 4,000 characters are read.
:func:`bound_reply` keeps a long reply's last 16,000 characters for the cache and the samples, with a note.
"""

from __future__ import annotations

import re
from typing import Any

from ambi_plugin.core.thinking import after_last_close, drop_think_blocks

_MAX = 4000


def clean_reply(reply: Any) -> str:
    """The text of a reply without think blocks, markdown emphasis and outer whitespace."""
    try:
        text = reply if isinstance(reply, str) else ("" if reply is None else str(reply))
    except Exception:  # noqa: BLE001 - total
        return ""
    text = drop_think_blocks(text)  # linear: a reply of many "<think>" must not stall a run
    tail = after_last_close(text)  # an unmatched "</think>": what follows it is the reply
    if tail is not None:
        text = tail
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return text.strip()[-_MAX:]


STORED_CHARS = 16_000  # the most that is kept of a reply (cache, samples): four times what the readers read
CUT_NOTE = "<think>[ambi-plugin: reply of {n} characters cut to its last {kept} (think blocks dropped first)]</think>"
_NOTE_ROOM = 160  # CUT_NOTE's length, with room to spare


def bound_reply(reply: str, keep: int = STORED_CHARS) -> tuple[str, bool]:
    """``(reply, False)`` when it is at most ``keep`` characters long; else ``(cut, True)``, at most ``keep`` long:
    a note saying so, in a think block (the readers drop it), then the reply's last characters without its think
    blocks. The readers read the cut reply as they read the whole one: only its last 4,000 characters."""
    if len(reply) <= keep:
        return reply, False
    text = drop_think_blocks(reply)
    tail = after_last_close(text)
    kept = (text if tail is None else tail)[-(keep - _NOTE_ROOM) :]
    return CUT_NOTE.format(n=len(reply), kept=len(kept)) + kept, True


_TF_WORDS = re.compile(r"\b(true|false|yes|no)\b", re.IGNORECASE)
_TF_VALUE = {"true": True, "yes": True, "false": False, "no": False}
_ALONE_DIGIT = re.compile(r"^\W*([01])\W*$")


def read_true_false(reply: Any) -> bool | None:
    text = clean_reply(reply)
    if not text:
        return None
    if m := _ALONE_DIGIT.match(text):
        return m.group(1) == "1"
    values = {_TF_VALUE[w.lower()] for w in _TF_WORDS.findall(text)}
    if re.search(r"\bnot\s+(?:true|false)\b", text, re.IGNORECASE):
        return None  # "not true" in a free-text reply: do not guess
    return values.pop() if len(values) == 1 else None


_DIGIT = re.compile(r"(?<![\d.])([0-9])(?![\d.]*\d)")
_CORRECTNESS = re.compile(r"\b(correct|incorrect)\b", re.IGNORECASE)


def read_binary_digit(reply: Any) -> bool | None:
    text = clean_reply(reply)
    if not text:
        return None
    digits = set(_DIGIT.findall(text))
    if digits == {"1"}:
        return True
    if digits == {"0"}:
        return False
    if not digits:
        words = {w.lower() for w in _CORRECTNESS.findall(text)}
        if len(words) == 1:
            return words.pop() == "correct"
    return None


def read_rating(reply: Any) -> float | None:
    text = clean_reply(reply)
    if not text:
        return None
    digits = set(_DIGIT.findall(text))
    if len(digits) == 1:
        d = digits.pop()
        if d in ("0", "1", "2"):
            return float(d)
    return None


_NONE_ALONE = re.compile(r"^\W*(?:none|no option|n/?a)\W*$", re.IGNORECASE)
_LETTER = re.compile(r"^\W*(?:(?:answer|option|choice)\s*(?:is)?\s*:?\s*)?\(?([A-Za-z])\)?\W*$", re.IGNORECASE)
_LETTER_ANY = re.compile(r"(?<![A-Za-z])\(?([A-Z])\)?(?![A-Za-z])")


def read_option(reply: Any, n_options: int) -> int | None:
    """0-based option index, -1 for "None" (the response chose no option), None when unreadable."""
    text = clean_reply(reply)
    if not text or n_options <= 0:
        return None
    if _NONE_ALONE.match(text):
        return -1
    m = _LETTER.match(text)
    letters = [m.group(1).upper()] if m else list(dict.fromkeys(_LETTER_ANY.findall(text)))
    if len(letters) != 1:
        return None
    idx = ord(letters[0]) - ord("A")
    return idx if 0 <= idx < n_options else None


_EXTRACT_PREFIX = re.compile(r"^(?:(?:final\s+)?answer|reply|response)\s*[:=]\s*", re.IGNORECASE)
_EXTRACT_NONE = re.compile(r"^none\W*$", re.IGNORECASE)
_EXTRACT_LETTERS = re.compile(r"^\(?([A-Z])\)?(?:\s*(?:,|and)\s*\(?([A-Z])\)?)*\W*$")


def read_extraction(reply: Any, answer_format: str, n_options: int = 0) -> str | None:
    """What an extraction reply says: ``"none"``, a letter (``"B"``), a sorted comma list (``"A,C"``), ``"yes"`` /
    ``"no"`` or ``"true"`` / ``"false"``; None when the reply is not exactly one allowed answer."""
    text = clean_reply(reply)
    text = _EXTRACT_PREFIX.sub("", text).strip().rstrip(".").strip()
    if not text or "\n" in text:
        return None
    if _EXTRACT_NONE.match(text):
        return "none"
    low = text.lower()
    if answer_format in ("yes_no", "true_false"):
        words = ("yes", "no") if answer_format == "yes_no" else ("true", "false")
        return low if low in words else None
    if answer_format not in ("letter", "roman", "letter_set") or n_options <= 0:
        return None
    if not _EXTRACT_LETTERS.match(text):
        return None
    letters = sorted(set(re.findall(r"[A-Z]", text)))
    if any(ord(c) - ord("A") >= n_options for c in letters):
        return None
    if answer_format != "letter_set" and len(letters) != 1:
        return None
    return ",".join(letters)
