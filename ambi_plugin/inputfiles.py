"""Reading a user's file: an undecodable byte or JSON nested too deep is named with its file and line.

Python alone says ``'utf-8' codec can't decode byte 0xff in position 25`` (no file, no line) or ends in a
``RecursionError`` traceback (JSON nested some thousand levels deep). Every reader of a file a user gives
(records, answers, verdicts, task YAMLs, results, the config file) runs inside :func:`named_input`, which turns
both into one :class:`InputFileError` line: ``<file>:<line>: not UTF-8 text (byte 0xff at column 26) ...``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class InputFileError(ValueError):
    """A file cannot be read as text or JSON at all (names the file and line)."""


MAX_DEPTH = 500  # nesting beyond this is reported at the line where it is reached


def _bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def decode_error_message(path: str | Path, exc: UnicodeDecodeError | None = None) -> str:
    """``<file>:<line>: not UTF-8 text (...)``, the first undecodable byte found by reading the file again."""
    data = _bytes(Path(path))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as found:
        exc = found
    else:  # the file changed since, or the error came from elsewhere: say what is known
        return f"{path}: not UTF-8 text ({exc}); save it as UTF-8"
    line = data.count(b"\n", 0, exc.start) + 1
    column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
    byte = data[exc.start : exc.start + 1].hex()
    return f"{path}:{line}: not UTF-8 text (byte 0x{byte} at column {column}); save the file as UTF-8"


def nesting_line(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The line where JSON ``text`` opens its ``limit``-th nested bracket (strings skipped), or None."""
    depth, line, in_string, escaped = 0, 1, False, False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth >= limit:
                return line
        elif ch in "]}":
            depth -= 1
    return None


@contextmanager
def named_input(path: str | Path, what: str = "file") -> Iterator[None]:
    """Reading ``path`` inside: a decode error or a recursion too deep becomes one named line."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise InputFileError(decode_error_message(path, exc)) from None
    except RecursionError:
        try:
            text = _bytes(Path(path)).decode("utf-8", errors="replace")
        except RecursionError:  # pragma: no cover - decoding does not recurse
            text = ""
        line = nesting_line(text)
        where = f"{path}:{line}" if line else str(path)
        raise InputFileError(
            f"{where}: {what} nested too deeply to read (more than {MAX_DEPTH} levels of brackets); not a "
            "file of the expected shape"
        ) from None
