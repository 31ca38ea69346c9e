"""Reasoning models' ``<think>...</think>`` blocks, dropped from a reply in linear time.

A regular expression such as ``<think>.*?</think>`` restarts its lazy scan at every ``<think>``: a reply of
many unclosed ``<think>`` tags costs time quadratic in its length (15 s at 200 KB). :func:`drop_think_blocks`
finds each tag once, scanning the reply left to right, and gives the same text as that expression's
``sub(" ", text)``: every ``<think>`` with a later ``</think>`` is cut up to the first such ``</think>``
(case ignored) and replaced by one space; an unclosed ``<think>`` is left as it is.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"<think>", re.IGNORECASE)
_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def drop_think_blocks(text: str) -> str:
    """``text`` without its ``<think>...</think>`` blocks (each replaced by one space); linear time."""
    parts: list[str] = []
    pos = 0
    while True:
        start = _OPEN.search(text, pos)
        if start is None:
            break
        end = _CLOSE.search(text, start.end())
        if end is None:  # no closing tag after this one, so none after any later one: nothing more to drop
            break
        parts.append(text[pos : start.start()])
        parts.append(" ")
        pos = end.end()
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def after_last_close(text: str) -> str | None:
    """The text after the last ``</think>`` (case ignored), or None when there is none; linear time."""
    last = None
    for last in _CLOSE.finditer(text):  # noqa: B007 - the last one is wanted
        pass
    return None if last is None else text[last.end() :]
