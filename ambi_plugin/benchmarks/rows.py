"""Release rows read one at a time, so that one hostile row is a bad row and never the release's end.

* **Nesting.** Python's JSON reader recurses once per level of brackets: a line nested 10^5 deep raises
  ``RecursionError`` (no file, no line) and, read as one document, takes every good row down with it. A row nested
  more than :data:`MAX_DEPTH` levels (no release row nests more than four) is a bad row: ``not JSON: nested too
  deeply (more than 100 levels of brackets)``. A JSON-lines release is read line by line by
  :func:`ambi_plugin.core.jsonl.numbered` (``max_depth=MAX_DEPTH, unreadable_rows=True``); :func:`iter_array` reads
  the entries of a JSON list one by one (the list as a whole first, entry by entry only when it is too deep), so a
  deep entry is skipped and the entries after it are read.
* **Text size.** A text field longer than ``AMBI_MAX_TEXT_CHARS`` characters (default :data:`DEFAULT_MAX_TEXT_CHARS`;
  the longest question, answer or description of the five releases is a few thousand) makes its row a bad row:
  ``text too long: field 'question' holds 209715200 characters, over the limit of 100000 (AMBI_MAX_TEXT_CHARS)``
  (:func:`check_row`). The row is never converted, cached or shown to a model.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ambi_plugin.core.jsonl import too_deep

MAX_DEPTH = 100  # levels of brackets a release row may nest
TEXT_ENV = "AMBI_MAX_TEXT_CHARS"
DEFAULT_MAX_TEXT_CHARS = 100_000

TOO_DEEP = too_deep(MAX_DEPTH)


class BadRow(ValueError):
    """A release row that cannot become a record; ``str(exc)`` is the reason (``kind: detail``)."""


class TextLimitError(RuntimeError):
    """``AMBI_MAX_TEXT_CHARS`` is not a positive integer (a setting, never a bad row)."""


def max_text_chars() -> int:
    """The most characters a text field of a release may hold (``$AMBI_MAX_TEXT_CHARS``, default 100,000)."""
    raw = os.environ.get(TEXT_ENV, "").strip().replace("_", "")
    if not raw:
        return DEFAULT_MAX_TEXT_CHARS
    try:
        value = int(float(raw))
    except ValueError:
        value = 0
    if value <= 0:
        raise TextLimitError(
            f"${TEXT_ENV}={os.environ[TEXT_ENV]!r} is not a positive number of characters "
            f"(default {DEFAULT_MAX_TEXT_CHARS})"
        )
    return value


def _walk(value: Any, limit: int | None) -> tuple[int, tuple[str, int] | None]:
    """(depth of ``value``, (path, length) of its first string longer than ``limit``) without recursing."""
    deepest, long_text = 0, None
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            if limit is not None and long_text is None and len(item) > limit:
                long_text = (path, len(item))
            continue
        if isinstance(item, Mapping):
            children = [(v, f"{path}.{k}" if path else str(k)) for k, v in item.items()]
        elif isinstance(item, (list, tuple)):
            children = [(v, f"{path}[{i}]") for i, v in enumerate(item)]
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_DEPTH:
            return deepest, long_text
        stack.extend((v, depth + 1, p) for v, p in reversed(children))
    return deepest, long_text


def check_row(value: Any, *, text: bool = True) -> None:
    """Raise :class:`BadRow` when ``value`` nests more than :data:`MAX_DEPTH` levels or (``text``) holds a string
    longer than :func:`max_text_chars`."""
    limit = max_text_chars() if text else None
    depth, long_text = _walk(value, limit)
    if depth > MAX_DEPTH:
        raise BadRow(TOO_DEEP)
    if long_text is not None:
        path, n = long_text
        raise BadRow(
            f"text too long: field {path or '(the row)'!r} holds {n} characters, over the limit of {limit} "
            f"(set {TEXT_ENV} to allow more)"
        )


def short_id(value: Any, fallback: str, limit: int = 300) -> str:
    """``value`` as a row id when it is a short string (a hostile row may hold its 200 MB text there), else
    ``fallback``."""
    return value if isinstance(value, str) and 0 < len(value) <= limit else fallback


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_SPACE = re.compile(r"[ \t\n\r]*")


def _end_of_value(text: str, start: int) -> int:
    """The index just after the JSON value (an object or list) that opens at ``start``, strings skipped."""
    depth = 0
    for m in _TOKEN.finditer(text, start):
        tok = m.group()
        if tok in "[{":
            depth += 1
        elif tok in "]}":
            depth -= 1
            if depth == 0:
                return m.end()
    raise json.JSONDecodeError("a value that never closes", text, start)


def iter_array(text: str, *, check_text: bool = True) -> Iterator[tuple[int, Any, str | None]]:
    """``(index, value, None)`` for each entry of the JSON list ``text``, or ``(index, None, reason)`` for an entry
    that nests too deeply or (``check_text``) holds a text field over the limit; the entries after it are read.

    The list is read whole when it can be (the usual case), entry by entry when it is too deep for that. A document
    that is not a JSON list at all raises ``json.JSONDecodeError`` / ``ValueError`` (the file is unreadable, not
    one of its rows)."""
    try:
        whole = json.loads(text)
    except RecursionError:
        entries: Any = _entries(text)
    else:
        if not isinstance(whole, list):
            raise ValueError(f"expected a JSON list, got {type(whole).__name__}")
        entries = enumerate(whole)
    for n, value in entries:
        try:
            if isinstance(value, BadRow):
                raise value
            check_row(value, text=check_text)
        except BadRow as exc:
            yield n, None, str(exc)
            continue
        yield n, value, None


def _entries(text: str) -> Iterator[tuple[int, Any]]:
    """The entries of a JSON list one by one: (index, value, or :class:`BadRow` for one nested too deeply)."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, 0).end()
    if text[pos : pos + 1] != "[":
        raise json.JSONDecodeError("expected a JSON list", text, pos)
    pos = _SPACE.match(text, pos + 1).end()
    if text[pos : pos + 1] == "]":
        return
    n = 0
    while True:
        try:
            value, end = decoder.raw_decode(text, pos)
        except RecursionError:
            value, end = BadRow(TOO_DEEP), _end_of_value(text, pos)
        yield n, value
        pos = _SPACE.match(text, end).end()
        if text[pos : pos + 1] == ",":
            pos = _SPACE.match(text, pos + 1).end()
            n += 1
            continue
        if text[pos : pos + 1] == "]":
            return
        raise json.JSONDecodeError("expected ',' or ']' after a list entry", text, pos)


__all__ = [
    "BadRow",
    "DEFAULT_MAX_TEXT_CHARS",
    "MAX_DEPTH",
    "TEXT_ENV",
    "TOO_DEEP",
    "TextLimitError",
    "check_row",
    "iter_array",
    "max_text_chars",
    "short_id",
]
