"""Text clean-up and answer markers shared by every parser: :class:`Parsed`, the total-parser guard,
``response_text`` (any reply -> a str) and the answer-marker segments.

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

MAX_CHARS = 100_000
OptionStyle = Literal["letter", "letter_lower", "roman"]
OPTION_STYLES: tuple[str, ...] = ("letter", "letter_lower", "roman")


@dataclass(frozen=True)
class Parsed:
    """A parse result: ``value`` when ``ok``; ``ok=False`` = unparseable, ``reason`` says why."""

    value: Any
    ok: bool
    reason: str = ""


def _fail(reason: str) -> Parsed:
    return Parsed(None, False, reason)


def _total(fn: Callable[..., Parsed]) -> Callable[..., Parsed]:
    """Last-resort guard: a parser bug becomes an unparseable result, never an exception.

    Applied by a call, ``parse_x = _total(_parse_x)``, not as a decorator: mutation testing (mutmut leaves
    decorated functions alone, bench/mutation.py) then reaches the parser's body. The guarded parser has the
    signature and docstring of ``fn`` and its public name (``_parse_x`` -> ``parse_x``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Parsed:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - parsers are total by contract
            return _fail(f"parser_error: {type(exc).__name__}")

    wrapper.__name__ = wrapper.__qualname__ = fn.__name__.removeprefix("_")
    return wrapper


# ----------------------------------------------------------------------------- text clean-up

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'", "`": None})
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_CLOSING_TAG = re.compile(r"</\s*(?:answer|final_answer|output|response|result)\s*>", re.IGNORECASE)


_BINARY = (bytes, bytearray, memoryview)


def response_text(
    obj: Any,
    *,
    max_chars: int | None = MAX_CHARS,
    binary: tuple[type, ...] = _BINARY,
    missing: str | None = "",
    on_error: str = "missing",
    first_of_lists: bool = False,
    strings_only: bool = False,
    nan_is_missing: bool = False,
) -> str | None:
    """A model's response (any object) -> its text; the one response-to-text routine of the project.

    The defaults are the parsers' reading (what every ``parse_*`` sees before clean-up); the keywords spell out
    the other callers' readings, in this order:

    1. ``first_of_lists``: a (nested) non-empty list is replaced by its first element, repeatedly
       (lmms-eval's ``resps`` / ``filtered_resps`` shapes).
    2. ``None`` -> ``missing``; ``nan_is_missing``: a float NaN -> ``missing`` too (a json dump's missing value).
    3. ``strings_only``: anything but a ``str`` -> ``missing`` (a ``str`` is returned unchanged).
    4. an instance of one of ``binary`` -> ``bytes(obj)`` decoded as UTF-8 (``errors="replace"``); any other
       object (a ``str`` too) -> ``str(obj)``. ``on_error="missing"``: a failing ``str()`` / decode gives
       ``missing``; ``on_error="raise"``: the exception propagates.
    5. ``max_chars``: a longer text is cut to its last ``max_chars`` characters (answers sit at the end);
       ``None``: no cut.
    """
    if first_of_lists:
        while isinstance(obj, list) and obj:
            obj = obj[0]
    if obj is None:
        return missing
    if nan_is_missing and isinstance(obj, float) and obj != obj:
        return missing
    if strings_only:
        return obj if isinstance(obj, str) else missing
    try:
        if isinstance(obj, binary):
            s = bytes(obj).decode("utf-8", errors="replace")
        else:
            s = str(obj)
    except Exception:  # noqa: BLE001
        if on_error == "raise":
            raise
        return missing
    return s[-max_chars:] if max_chars is not None and len(s) > max_chars else s


def _to_text(obj: Any) -> str:
    """Any object -> a str ('' for None or an object whose str() fails), at most MAX_CHARS long."""
    return response_text(obj)


def _clean(obj: Any) -> str:
    s = unicodedata.normalize("NFKC", _to_text(obj))
    end_think = s.lower().rfind("</think>")
    if end_think >= 0:
        s = s[end_think + len("</think>") :]
    s = _CLOSING_TAG.sub(" ", s.translate(_QUOTES).replace("**", "").replace("__", ""))
    return _CTRL.sub(" ", s).strip()


# ----------------------------------------------------------------------------- answer markers

_MARKER = re.compile(
    r"""(?:
        ['"]?\b(?:final\s+|correct\s+|right\s+|best\s+)?answer(?:\s+choice)?\b['"]?\s*
            (?::|=|-(?!\w)|\bis\b\s*:?|\bwould\s+be\b\s*:?|\bshould\s+be\b\s*:?)
      | \b(?:correct|right|best|final)\s+(?:option|choice|letter|numeral)\s*
            (?::|\bis\b\s*:?|\bwould\s+be\b\s*:?|\bshould\s+be\b\s*:?)
      | \bi\s+(?:would\s+)?(?:choose|select|pick|go\s+with)\b\s*:?
      | \bmy\s+(?:answer|choice)\s*(?::|\bis\b\s*:?)
      | ['"]?\banswer\b['"]?\s*\|
      | <answer>
      | \\boxed\s*\{
      | 答案\s*(?::|是|为)? | 选项
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_BOOL_MARKER = re.compile(
    r"\b(?:true\s*(?:or|/)\s*false|yes\s*(?:or|/)\s*no)\s*[:?]"
    r"|\b(?:so|thus|therefore|hence|overall|in\s+conclusion)\s*[:,]?\s*(?=(?:yes|no|true|false)\b)",
    re.IGNORECASE,
)


def _segments(s: str, *, extra: re.Pattern[str] | None = None) -> list[str]:
    """Texts after each answer marker, last marker first, each cut where the next marker starts."""
    spans = [(m.start(), m.end()) for m in _MARKER.finditer(s)]
    if extra is not None:
        spans += [(m.start(), m.end()) for m in extra.finditer(s)]
    spans.sort()
    out = []
    for k, (_, end) in enumerate(spans):
        stop = spans[k + 1][0] if k + 1 < len(spans) else len(s)
        if stop > end or k + 1 == len(spans):
            out.append(s[end:stop])
    return out[::-1]


def extract_answer_marker(text: Any) -> str | None:
    """The text after the last answer marker ("Answer:", "'Answer':", "The answer is", ...), or None."""
    try:
        s = _clean(text)
        spans = list(_MARKER.finditer(s))
        return s[spans[-1].end() :].strip() if spans else None
    except Exception:  # noqa: BLE001
        return None
