"""Option labels and single-choice / letter-set answers (``parse_choice``, ``parse_letter_set``).

Part of :mod:`ambi_plugin.core.parsing` (its module docstring states the rules); import from there."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ambi_plugin.core.parsing.text import OPTION_STYLES, Parsed, _clean, _fail, _segments, _to_text, _total

# ----------------------------------------------------------------------------- option labels


def _roman(n: int) -> str:
    out = []
    for value, sym in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


_ROMAN_MAX = 39
_ROMAN_VALUE = {_roman(k): k for k in range(1, _ROMAN_MAX + 1)}
_ROMAN_ALT = "|".join(sorted(_ROMAN_VALUE, key=len, reverse=True))


def option_label(i: int, style: str) -> str:
    """The label of option ``i`` (0-based): "A" (letter), "a" (letter_lower), "i" (roman, lower case)."""
    if style not in OPTION_STYLES:
        raise ValueError(f"Expected argument `style` to be one of {OPTION_STYLES} but got {style!r}")
    if not isinstance(i, int) or i < 0:
        raise ValueError(f"Expected argument `i` to be a non-negative int but got {i!r}")
    if style == "roman":
        return _roman(i + 1)
    if i >= 26:
        raise ValueError(f"option index {i} has no letter (at most 26 options); use option_style 'roman'")
    return chr(ord("A" if style == "letter" else "a") + i)


def format_options(options: Sequence[Any], style: str) -> str:
    """One "<label>. <text>" line per option: "A. x" / "a. x" / "i. x", "ii. x" (IllusionBench Fig. 4)."""
    return "\n".join(f"{option_label(i, style)}. {opt}" for i, opt in enumerate(options))


# ----------------------------------------------------------------------------- choice labels

_AMBIGUOUS_WORDS = {"a", "i"}  # the article and the pronoun
_LABEL_AFTER_WORD_OK = {"and", "or", "is", "was", "seems", "appears", "fits", "matches"}
_KEYWORD_BEFORE = re.compile(
    r"\b(?:option|choice|letter|numeral|number|figure|structure|graph|image|panel|diagram)s?\s*[:#]?\s*$", re.IGNORECASE
)
_NEGATED_BEFORE = re.compile(r"\bnot\s+(?:(?:option|choice|letter)\s*)?$", re.IGNORECASE)
_LEADING_JUNK = re.compile(
    r"^[\s'\"*:=>#\-\u2013\u2014]*(?:(?:the\s+)?(?:correct\s+)?(?:option|choice|letter|roman\s+numeral|numeral)\s*[:#]?\s*)?",
    re.IGNORECASE,
)


def _make_label_re(style: str) -> re.Pattern[str]:
    tok = _ROMAN_ALT if style == "roman" else "[a-z]"
    return re.compile(
        rf"(?<!\w)[(\[{{]\s*(?P<t1>{tok})\s*[)\]}}]"
        rf"|(?<![0-9A-Za-z_\-/&])(?<!\w['.])(?P<t2>{tok})(?![0-9A-Za-z_\-/&])(?!['.]\w)",  # "A和C": CJK separates
        re.IGNORECASE,
    )


# cached by a call, not a decorator: mutmut leaves decorated functions unmutated (bench/mutation.py)
_label_re = functools.lru_cache(maxsize=4)(_make_label_re)


@dataclass(frozen=True)
class _Cand:
    index: int  # 0-based, may be >= n (out of range)
    strong: bool
    start: int
    end: int


def _label_index(tok: str, style: str) -> int | None:
    if style == "roman":
        if not (tok.islower() or tok.isupper()):
            return None
        return _ROMAN_VALUE[tok.lower()] - 1
    return ord(tok.lower()) - ord("a")


def _candidates(s: str, style: str) -> list[_Cand]:
    out = []
    for m in _label_re(style).finditer(s):
        tok = m.group("t1") or m.group("t2")
        idx = _label_index(tok, style)
        if idx is None:
            continue
        bracketed = m.group("t1") is not None
        rest = s[m.end() : m.end() + 40]
        punct = re.match(r"[.):](?:\s|$)", rest) is not None
        before = s[max(0, m.start() - 24) : m.start()]
        if _NEGATED_BEFORE.search(before):
            continue  # "(B), not A."
        keyword = _KEYWORD_BEFORE.search(before) is not None
        if not (bracketed or punct or keyword) and tok.lower() in _AMBIGUOUS_WORDS:
            nxt = re.match(r"\s+([a-z][\w']*)" if tok.isupper() else r"\s+([a-z0-9][\w'-]*)", rest)  # "a 120-degree"
            if nxt and nxt.group(1) not in _LABEL_AFTER_WORD_OK:
                continue  # "a cat", "I think"
        out.append(_Cand(idx, bracketed or punct or keyword, m.start(), m.end()))
    return out


def _start_label(s: str, style: str) -> _Cand | None:
    """A label opening the text: "B", "(b)", "B. The upper line", "Option B", "B because ..."."""
    offset = _LEADING_JUNK.match(s).end()  # every part of the pattern is optional: it always matches
    cands = _candidates(s, style)  # none can start inside the junk (symbols and whole words only)
    return cands[0] if cands and cands[0].start == offset else None


_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


def _norm_option(x: Any) -> str:
    """Lower case, words only; a thousands separator dropped ("2,483,000" = "2483,000" = "2483000")."""
    return " ".join(re.sub(r"[\W_]+", " ", _THOUSANDS.sub("", _to_text(x).lower())).split())


_WEAK_WORDS = {"a", "an", "the", "is", "it", "of", "in", "on", "and", "or", "to", "i", "this", "that", "be", "are"}


def _informative(norm: str) -> bool:
    return len(norm) >= 2 and any(w not in _WEAK_WORDS for w in norm.split())


def _light_norm(x: Any) -> str:
    """Case (folded: "STRASSE" is "Straße"), spacing, surrounding quotes and end punctuation only: keeps
    "1 > 2 = 3" apart from "1 = 2 = 3"."""
    return " ".join(_to_text(x).casefold().split()).strip(" '\"").rstrip(".!?;: ").strip(" '\"")


def _unique(hits: list[int]) -> int | None:
    return hits[0] if len(hits) == 1 else None


def _option_by_text(s: str, options: Sequence[Any] | None, *, exact_only: bool) -> int | None:
    """The option whose text the reply gives: exact (light, then alphanumeric normalisation), or, unless
    ``exact_only``, the reply inside exactly one option / exactly one option inside the reply."""
    if not options:
        return None
    light = _light_norm(s)
    if light:
        hit = _unique([i for i, o in enumerate(options) if _light_norm(o) == light])
        if hit is not None:
            return hit
    opts = [_norm_option(o) for o in options]
    resp = _norm_option(s)
    if not resp:
        return None
    hit = _unique([i for i, o in enumerate(opts) if o and o == resp])
    if hit is not None or exact_only or len(set(opts)) < len(opts):
        return hit  # containment needs options that differ after normalisation
    if _informative(resp) and not resp.replace(" ", "").isdigit():  # a bare number inside a statement: no answer
        hit = _unique([i for i, o in enumerate(opts) if o and f" {resp} " in f" {o} "])
        if hit is not None:
            return hit
    contained = [i for i, o in enumerate(opts) if _informative(o) and f" {o} " in f" {resp} "]
    contained = [i for i in contained if not any(i != j and f" {opts[i]} " in f" {opts[j]} " for j in contained)]
    return _unique(contained)


def _text_names_other(rest: str, idx: int, options: Sequence[Any] | None) -> bool:
    """Whether the text after an opening label is, exactly, the text of another option and not its own."""
    if not options:
        return False
    text = rest.strip().lstrip(".):]-\u2013\u2014 ").strip().partition("\n")[0]  # its first line
    other = _option_by_text(text, options, exact_only=True)  # None for an empty text
    return other is not None and other != idx


def _echo_spans(s: str, options: Sequence[Any] | None, style: str) -> list[tuple[int, int]]:
    """Where the reply repeats the option list, "(A) is tripled (B) is doubled ...": runs of two or more
    options in a row, each label followed by its own text (a label with its text alone is an answer)."""
    if not options or len(options) < 2:
        return []
    found: list[tuple[int, int, int]] = []
    for i, opt in enumerate(options):
        words = _to_text(opt).split()
        if not words:
            continue
        label = re.escape(option_label(i, style) if style in OPTION_STYLES else chr(65 + i))
        text = r"\s*".join(re.escape(w) for w in words)
        pattern = rf"(?<!\w)(?:[(\[]\s*{label}\s*[)\]]|{label}[.):])\s*{text}[\s,;.?]*"
        found += [(*m.span(), i) for m in re.finditer(pattern, s, re.IGNORECASE)]
    runs: list[list[tuple[int, int, int]]] = []
    for span in sorted(set(found)):
        if runs and span[0] <= runs[-1][-1][1] + 1:
            runs[-1].append(span)
        else:
            runs.append([span])
    return [(run[0][0], run[-1][1]) for run in runs if len({i for _, _, i in run}) >= 2]


# an echoed instruction lists the labels without choosing one: "select from a, b, c, and d", "(A-D)"
_INSTRUCTION = re.compile(
    r"\b(?:select|choose|pick)\s+(?:(?:the\s+)?(?:answers?|one|options?)\s+)?from\b[^.?!:\n]*", re.IGNORECASE
)


_LABEL_LINE = re.compile(r"[\s*_#>`'\"]*[(\[]?\s*([a-z]|[ivx]{1,5})\s*[)\].:]?[\s*_`'\"]*", re.IGNORECASE)


def _last_line_label(s: str, n: int, style: str, options: Sequence[Any] | None) -> Parsed | None:
    """A reply whose last line is a label alone ("... the most reasonable estimate is:\n\nb"), unless the
    line before is a label alone too (a list of labels is not an answer)."""
    lines = [ln for ln in s.splitlines() if ln.strip()]
    if len(lines) < 2 or not _LABEL_LINE.fullmatch(lines[-1]) or _LABEL_LINE.fullmatch(lines[-2]):
        return None
    return _read_choice(lines[-1].strip(), n, style, options)


def _choice_result(idx: int, n: int) -> Parsed:
    if 0 <= idx < n:
        return Parsed(idx, True)
    return Parsed(-1, True, "out_of_range")


def _read_choice(s: str, n: int, style: str, options: Sequence[Any] | None) -> Parsed | None:
    """Read one span of text; None when it holds no answer at all.

    Order: a label opening the reply (in range) > an option's exact text > an out-of-range opening
    label > the one label in the text > an option's text inside the reply. So "A" is option A even
    when another option's text is "A" (VIA-Bench has one), and "'m'." is the option "'m'." of four.
    """
    first = _start_label(s, style)
    if first is not None:
        alone = re.match(r"\s*(?:$|\n|[-\u2013\u2014:])", s[first.end :]) is not None
        others = {c.index for c in _candidates(s, style) if c.index < n and c.index != first.index}
        if not (first.strong or alone or not others):  # "B. The upper line", "B", but not "A or B"
            first = None
    else:
        alone = False
    if first is not None and first.index < n and (first.strong or alone):
        if _text_names_other(s[first.end :], first.index, options):
            return _fail("ambiguous")  # "(E) C": the label and its text name different options
        return _choice_result(first.index, n)
    by_text = _option_by_text(s, options, exact_only=True)  # "C and E" is the option with that text
    if by_text is not None:
        return Parsed(by_text, True, "option_text")
    if first is not None:
        return _choice_result(first.index, n)
    cands = [c for c in _candidates(s, style) if c.strong or c.index < n]
    strong = {c.index for c in cands if c.strong}
    weak = {c.index for c in cands}
    if len(strong) == 1:
        return _choice_result(strong.pop(), n)
    if len(weak) > 1:  # weak holds every candidate, strong ones too: two strong labels are ambiguous here
        return _fail("ambiguous")
    if len(weak) == 1:
        return _choice_result(weak.pop(), n)
    by_text = _option_by_text(s, options, exact_only=False)
    if by_text is not None:
        return Parsed(by_text, True, "option_text")
    return None


def _parse_choice(text: Any, n_options: int, *, style: str = "letter", options: Sequence[Any] | None = None) -> Parsed:
    """Single choice -> 0-based option index (``-1`` with reason ``out_of_range`` for a label not offered).

    Reads labels ("B", "(b)", "B.", "[B]", "Option B", "ii.", "IV"), answer markers (the last one
    wins) and, given ``options``, the option text itself (exact, or contained either way in exactly one).
    """
    if style not in OPTION_STYLES:
        return _fail(f"bad_style: {style!r}")
    n = n_options if isinstance(n_options, int) and n_options > 0 else (len(options) if options else 0)
    if n <= 0:
        return _fail("bad_n_options")
    if options:  # an option text beyond n_options is not on offer (found by tests/core/test_fuzz_parsers.py)
        options = list(options)[:n]
    s = _clean(text)
    if not s:
        return _fail("empty")
    if len(s) == 1 and style != "roman" and "a" <= s.lower() <= "z" and ord(s.lower()) - ord("a") < n:
        return Parsed(ord(s.lower()) - ord("a"), True, "")  # the commonest reply, a bare letter on offer: no search
    echoed = _echo_spans(s, options, style)
    if echoed:  # the option list repeated: read what is left, if anything
        for start, end in sorted(echoed, reverse=True):
            s = s[:start] + "\n" + s[end:]
        if not re.search(r"[^\W_]", s):
            return _fail("echo")
    s = _INSTRUCTION.sub(" ", s)
    for seg in _segments(s):
        got = _read_choice(seg.strip(), n, style, options)
        if got is not None:
            return got
    got = _last_line_label(s, n, style, options)
    if got is not None:
        return got
    got = _read_choice(s, n, style, options)
    return got if got is not None else _fail("no_label")


parse_choice = _total(_parse_choice)
