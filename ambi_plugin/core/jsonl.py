"""JSON Lines, read one numbered line at a time: the one reader of every JSONL file of the package.

Each non-blank line comes back as a :class:`Line`: ``where`` (``<file>:<line>``), its value, or why it is bad,
worded twice: ``reason``, a skipped row's (``not JSON: Expecting ',' delimiter (column 12)``), and ``error``, an
error's (``not valid JSON: Expecting ',' delimiter (column 12)``). A caller meets a bad line in one of two ways:

* **strict** (:func:`iter_jsonl`, :func:`read_jsonl`): the first bad line stops the read with
  ``<file>:<line>: <error>``, in the exception class the caller names;
* **tolerant** (:func:`read_lines`, :func:`numbered`): every line comes back, a bad one with its reason, for the
  caller to report, skip and count (or to name every bad line before it stops).

Lines are split at ``\\n`` only (a JSON string may hold U+2028, which :meth:`str.splitlines` would cut at); a
byte-order mark before the first line is skipped. Two things make the *file* unreadable, whichever the caller:
bytes that are not UTF-8 and a line nested deeper than Python's JSON reader follows (it raises ``RecursionError``,
10^5 levels of brackets on one line): :class:`~ambi_plugin.inputfiles.InputFileError` naming the file and line,
unless ``unreadable_rows`` (a release read as published), where such a line is a bad row like any other.
``max_depth`` makes a line nested more than that many levels a bad line too (a release row never nests deeply).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ambi_plugin.inputfiles import MAX_DEPTH, InputFileError, named_input, nesting_line

BOM = b"\xef\xbb\xbf"


class JsonlError(ValueError):
    """A line of a JSONL file that stops its read: ``<file>:<line>: <what is wrong>``."""


@dataclass(slots=True)
class Line:
    """One non-blank line: its value, or (``bad``) why it is not one, as a row's ``reason`` and as an ``error``."""

    name: str  # the file, as messages name it
    lineno: int
    value: Any = None
    reason: str | None = None
    error: str | None = None
    text: str = ""  # the line as read, stripped ("" when it is not UTF-8)

    @property
    def bad(self) -> bool:
        return self.reason is not None

    @property
    def where(self) -> str:
        """``<file>:<line>``."""
        return f"{self.name}:{self.lineno}"


_SCAN = json.JSONDecoder().scan_once  # the C scanner json.loads runs (json.loads' own decoder has the same settings)


def loads(text: str) -> Any:
    """``json.loads(text)`` for a str, the same value or the same error, with less Python around it: the C scanner
    that json.loads runs, called directly (on a 330-character record, 1.3 us instead of 2.3 us). Text that is not
    one JSON value from its first character to its last (white space around it, an error) goes to json.loads,
    which reads it or raises as it always did."""
    try:
        value, end = _SCAN(text, 0)
    except Exception:  # noqa: BLE001 - json.loads decides: the same value or its own error
        return json.loads(text)
    if end != len(text):
        return json.loads(text)
    return value


def json_error(exc: json.JSONDecodeError) -> str:
    """Python's message with its column (``exc.msg`` alone is cut: "Unterminated string starting at")."""
    if exc.msg.endswith(" at"):
        return f"{exc.msg} column {exc.colno}"
    return f"{exc.msg} (column {exc.colno})"


def _deep(levels: int) -> str:
    return f"nested too deeply (more than {levels} levels of brackets)"


def too_deep(levels: int) -> str:
    """The reason of a row nested more than ``levels`` levels of brackets (as :func:`numbered` words it)."""
    return f"not JSON: {_deep(levels)}"


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` levels of lists and objects (read without recursing)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Iterable[Any] = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _bad(name: str, lineno: int, reason: str, error: str, text: str = "") -> Line:
    return Line(name, lineno, reason=reason, error=error, text=text)


def numbered(
    lines: Iterable[str | bytes],
    name: str,
    *,
    what: str = "JSONL file",
    objects: bool = False,
    max_depth: int | None = None,
    unreadable_rows: bool = False,
) -> Iterator[Line]:
    """A :class:`Line` for each non-blank line of ``lines`` (bytes or text), numbered from 1, named ``name``.

    ``objects``: a line that is JSON but not an object is bad. ``max_depth``: so is one nested deeper.
    ``unreadable_rows``: a line that is not UTF-8 or too deep for Python's reader is a bad line, not an
    :class:`~ambi_plugin.inputfiles.InputFileError` (``what`` names the file in that error)."""
    for lineno, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            if lineno == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                detail = f"byte 0x{raw[exc.start]:02x} at column {exc.start + 1}"
                if not unreadable_rows:
                    raise InputFileError(
                        f"{name}:{lineno}: not UTF-8 text ({detail}); save the file as UTF-8"
                    ) from None
                yield _bad(
                    name,
                    lineno,
                    f"not UTF-8: {detail} cannot be decoded (save the file as UTF-8 to keep this row)",
                    f"not UTF-8 text ({detail}); save the file as UTF-8",
                )
                continue
        elif lineno == 1:
            raw = raw.removeprefix("\ufeff")
        text = raw.strip()
        if not text:
            continue
        try:
            value = loads(text)
        except RecursionError:
            levels = max_depth if max_depth is not None else MAX_DEPTH
            past = f" (more than {levels} levels of brackets)" if nesting_line(text, levels) else ""
            if not unreadable_rows:
                raise InputFileError(
                    f"{name}:{lineno}: {what} nested too deeply to read{past}; not a file of the expected shape"
                ) from None
            yield _bad(name, lineno, f"not JSON: nested too deeply{past}", f"nested too deeply to read{past}", text)
            continue
        except json.JSONDecodeError as exc:
            yield _bad(name, lineno, f"not JSON: {json_error(exc)}", f"not valid JSON: {json_error(exc)}", text)
            continue
        if max_depth is not None and deeper_than(value, max_depth):
            yield _bad(name, lineno, too_deep(max_depth), _deep(max_depth), text)
            continue
        if objects and not isinstance(value, dict):
            kind = type(value).__name__
            yield _bad(name, lineno, "not JSON: the line is not an object", f"a JSON {kind}, not an object", text)
            continue
        yield Line(name, lineno, value, text=text)


def read_lines(
    path: str | Path,
    *,
    name: str | None = None,
    what: str = "JSONL file",
    objects: bool = False,
    max_depth: int | None = None,
    unreadable_rows: bool = False,
) -> Iterator[Line]:
    """:func:`numbered` over the file at ``path`` (read as it goes; ``name`` in ``where``, default the path)."""
    path = Path(path)  # bytes where a line that is not UTF-8 is a bad row, else text split at "\n" only
    with (
        named_input(path, what),
        path.open("rb") if unreadable_rows else path.open(encoding="utf-8", newline="\n") as fh,
    ):
        yield from numbered(
            fh, str(path) if name is None else name, what=what, objects=objects, max_depth=max_depth,
            unreadable_rows=unreadable_rows,
        )  # fmt: skip


def strict(lines: Iterable[Line], error: Callable[[str], Exception] = JsonlError) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each line; the first bad one raises ``error("<file>:<line>: <error>")``."""
    for line in lines:
        if line.bad:
            raise error(f"{line.where}: {line.error}")
        yield line.lineno, line.value


def iter_jsonl(
    path: str | Path,
    *,
    what: str = "JSONL file",
    objects: bool = False,
    error: Callable[[str], Exception] = JsonlError,
) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of a JSONL file; a bad line stops the read (``error``)."""
    return strict(read_lines(path, what=what, objects=objects), error)


def read_jsonl(
    path: str | Path,
    *,
    what: str = "JSONL file",
    objects: bool = False,
    error: Callable[[str], Exception] = JsonlError,
) -> list:
    """The values of a JSONL file (no record validation); a bad line names file and line."""
    return [value for _, value in iter_jsonl(path, what=what, objects=objects, error=error)]


def count_rows(path: str | Path, *, most: int | None = None) -> int:
    """The rows of a JSONL file, unread: its non-blank lines (counting stops at ``most``)."""
    n = 0
    with Path(path).open("rb") as fh:
        for raw in fh:
            if raw.strip():
                n += 1
                if most is not None and n >= most:
                    break
    return n


__all__ = [
    "JsonlError",
    "Line",
    "count_rows",
    "deeper_than",
    "iter_jsonl",
    "json_error",
    "loads",
    "numbered",
    "read_jsonl",
    "read_lines",
    "strict",
    "too_deep",
]
