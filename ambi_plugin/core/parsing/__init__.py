"""Answer parsers: a model's reply -> a typed value, or an explicit "unparseable" marker.

Every parser is a *total* function: it accepts any object (``None``, bytes, numbers, huge strings),
never raises, and returns a :class:`Parsed`. ``ok=False`` means the reply could not be read and
``reason`` says why; scoring counts such items as wrong and reports them as unparsed.

Decisions the rest of the project relies on:

* Answer markers ("Answer:", "'Answer':", "**Answer**:", "The answer is", "the correct option is",
  ``<answer>``, ``\\boxed{``, a table cell "| Answer | B |", JSON ``"answer": "B"``, "答案：B", ...): the LAST
  marker wins, so a chain of thought ending in "Answer: C" reads as C. Markdown emphasis, code-fence
  backticks and closing tags (``</answer>``) are dropped; full-width letters read as letters (NFKC).
* Choice labels: a letter or numeral the options do not have (``F`` of 4 options) in a strong position
  (alone, after a marker, bracketed, "F.") gives ``Parsed(-1, True, "out_of_range")``: parsed, wrong.
  Two different labels with no marker and no single strong one are ``ambiguous`` (unparseable).
  The English words "a"/"A" (article) and "I" (pronoun) are not read as labels when a lower-case word
  follows them ("I think", "a cat", "A bit"). In roman style only numerals count (a letter "B" is not
  read); in letter style roman numerals are not read.
* Letter sets: the option "None" (``none_index``) alone, or the word "None", gives ``{none_index}``
  (``frozenset()`` when the task has no None option); together with other letters it is kept in the
  set, so exact-set scoring marks it wrong. Letters outside the options: when the answer is a bare
  list of letters ("A, F") they are kept as indices >= ``n_options`` (reason ``out_of_range``, the item
  scores wrong); inside prose they are ignored (a stray capital is more likely a word than a label).
* Booleans: the first verdict after the last marker, else a verdict opening the reply ("No, it is
  not"), else a hedge opening it ("Not really", "Of course", 是 / 否), else, given the item's question, a
  restatement of it or of its negation (``core/restate.py``; "no motion" is then a negation, not a verdict),
  else all verdicts in the reply if they agree; "not true" / "not correct" read as False.
* Objects: the last "Object:" marker wins (a quoted value, else up to the sentence's end); else a short first
  line, unless it is a sentence naming the object ("The hidden animal is a leopard."); else the last object
  a sentence names ("I can see an owl blending into the bark" -> "owl"). A leading article is dropped.
* Boxes: ``(x1, y1, x2, y2)`` / ``[x1, y1, x2, y2]`` groups of exactly four numbers, coordinates sorted
  so that x1 <= x2 and y1 <= y2; when no such group exists, ``(x1, y1), (x2, y2)`` point pairs, then
  ``x1=.., y1=.., x2=.., y2=..``; "None" or ``[]`` is ``Parsed([], True, "none")``, a sentence saying the
  object is absent ("There is no giraffe visible here.") ``Parsed([], True, "absent")``.
* Replies longer than ``MAX_CHARS`` are cut to their last ``MAX_CHARS`` characters (answers sit at the
  end); reasoning models' ``<think>...</think>`` blocks are dropped.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ambi_plugin.core.restate import hedge_verdict, restated_verdict

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
    """Last-resort guard: a parser bug becomes an unparseable result, never an exception."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Parsed:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - parsers are total by contract
            return _fail(f"parser_error: {type(exc).__name__}")

    return wrapper


# ----------------------------------------------------------------------------- text clean-up

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00b4": "'", "`": None})
_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_CLOSING_TAG = re.compile(r"</\s*(?:answer|final_answer|output|response|result)\s*>", re.IGNORECASE)


def _to_text(obj: Any) -> str:
    """Any object -> a str ('' for None or an object whose str() fails), at most MAX_CHARS long."""
    try:
        if obj is None:
            return ""
        if isinstance(obj, str):
            s = str(obj)
        elif isinstance(obj, (bytes, bytearray, memoryview)):
            s = bytes(obj).decode("utf-8", errors="replace")
        else:
            s = str(obj)
    except Exception:  # noqa: BLE001
        return ""
    return s[-MAX_CHARS:] if len(s) > MAX_CHARS else s


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
        ['"]?\b(?:final\s+|correct\s+|right\s+|best\s+)?answer\b['"]?\s*
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
_KEYWORD_BEFORE = re.compile(r"\b(?:option|choice|letter|numeral|number)\s*[:#]?\s*$", re.IGNORECASE)
_NEGATED_BEFORE = re.compile(r"\bnot\s+(?:(?:option|choice|letter)\s*)?$", re.IGNORECASE)
_LEADING_JUNK = re.compile(
    r"^[\s'\"*:=>#\-\u2013\u2014]*(?:(?:the\s+)?(?:correct\s+)?(?:option|choice|letter|roman\s+numeral|numeral)\s*[:#]?\s*)?",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=4)
def _label_re(style: str) -> re.Pattern[str]:
    tok = _ROMAN_ALT if style == "roman" else "[a-z]"
    return re.compile(
        rf"(?<!\w)[(\[{{]\s*(?P<t1>{tok})\s*[)\]}}]"
        rf"|(?<![\w\-/])(?<!\w['.])(?P<t2>{tok})(?![\w\-/])(?!['.]\w)",
        re.IGNORECASE,
    )


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
            nxt = re.match(r"\s+([a-z][\w']*)", rest)
            if nxt and nxt.group(1) not in _LABEL_AFTER_WORD_OK:
                continue  # "a cat", "I think"
        out.append(_Cand(idx, bracketed or punct or keyword, m.start(), m.end()))
    return out


def _start_label(s: str, style: str) -> _Cand | None:
    """A label opening the text: "B", "(b)", "B. The upper line", "Option B", "B because ..."."""
    lead = _LEADING_JUNK.match(s)
    offset = lead.end() if lead else 0
    for c in _candidates(s, style):
        if c.start < offset:
            continue
        if c.start > offset or s[offset : c.start].strip("([{ "):
            return None
        return c
    return None


def _norm_option(x: Any) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", _to_text(x).lower()).split())


_WEAK_WORDS = {"a", "an", "the", "is", "it", "of", "in", "on", "and", "or", "to", "i", "this", "that", "be", "are"}


def _informative(norm: str) -> bool:
    return len(norm) >= 2 and any(w not in _WEAK_WORDS for w in norm.split())


def _light_norm(x: Any) -> str:
    """Case, spacing, surrounding quotes and end punctuation only: keeps "1 > 2 = 3" apart from "1 = 2 = 3"."""
    return " ".join(_to_text(x).lower().split()).strip(" '\"").rstrip(".!?;: ").strip(" '\"")


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
    if _informative(resp):
        hit = _unique([i for i, o in enumerate(opts) if o and f" {resp} " in f" {o} "])
        if hit is not None:
            return hit
    contained = [i for i, o in enumerate(opts) if _informative(o) and f" {o} " in f" {resp} "]
    contained = [i for i in contained if not any(i != j and f" {opts[i]} " in f" {opts[j]} " for j in contained)]
    return _unique(contained)


def _choice_result(idx: int, n: int, reason: str = "") -> Parsed:
    if 0 <= idx < n:
        return Parsed(idx, True, reason)
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
    if first is not None and first.index < n:
        return _choice_result(first.index, n)
    by_text = _option_by_text(s, options, exact_only=True)
    if by_text is not None:
        return Parsed(by_text, True, "option_text")
    if first is not None:
        return _choice_result(first.index, n)
    cands = [c for c in _candidates(s, style) if c.strong or c.index < n]
    strong = {c.index for c in cands if c.strong}
    weak = {c.index for c in cands}
    if len(strong) == 1:
        return _choice_result(strong.pop(), n)
    if len(strong) > 1 or len(weak) > 1:
        return _fail("ambiguous")
    if len(weak) == 1:
        return _choice_result(weak.pop(), n)
    by_text = _option_by_text(s, options, exact_only=False)
    if by_text is not None:
        return Parsed(by_text, True, "option_text")
    return None


@_total
def parse_choice(text: Any, n_options: int, *, style: str = "letter", options: Sequence[Any] | None = None) -> Parsed:
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
    for seg in _segments(s):
        got = _read_choice(seg.strip(), n, style, options)
        if got is not None:
            return got
    got = _read_choice(s, n, style, options)
    return got if got is not None else _fail("no_label")


# ----------------------------------------------------------------------------- letter sets

_NONE_WORD = re.compile(r"\bnone\b", re.IGNORECASE)


def _list_like(s: str) -> bool:
    """Only single letters and separators ("A, F", "a and c", "(A) (C)")."""
    words = re.findall(r"[^\W_]+", s)
    return bool(words) and all((len(w) == 1 and w.isalpha()) or w.lower() in ("and", "or") for w in words)


@_total
def parse_letter_set(text: Any, n_options: int, *, none_index: int | None = None) -> Parsed:
    """Multi-label choice -> frozenset of 0-based indices ("A, C", "A and C", "(A) (C)", "E" = None)."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    n = n_options if isinstance(n_options, int) and n_options > 0 else 0
    segs = [seg.strip() for seg in _segments(s)]
    span = next((seg for seg in segs if seg and (_candidates(seg, "letter") or _NONE_WORD.search(seg))), s)
    list_like = _list_like(span)
    idx = {c.index for c in _candidates(span, "letter") if c.index < n or list_like}
    if not idx:
        if _NONE_WORD.search(span):
            return Parsed(frozenset() if none_index is None else frozenset({none_index}), True, "none")
        return _fail("no_letters")
    return Parsed(frozenset(idx), True, "out_of_range" if any(i >= n for i in idx) else "")


# ----------------------------------------------------------------------------- booleans

_BOOL_VOCAB: dict[str, tuple[dict[str, bool], dict[str, bool]]] = {
    "true_false": ({"true": True, "correct": True, "false": False, "incorrect": False}, {"yes": True, "no": False}),
    "yes_no": (
        {"yes": True, "yeah": True, "yep": True, "no": False, "nope": False},
        {"true": True, "correct": True, "false": False, "incorrect": False},
    ),
}
_VERDICT = re.compile(
    r"\b(true|false|correct|incorrect|yes|yeah|yep|no(?!\s+(?:answer|idea|clue|comment|response|reply|verdict)\b)|nope)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"(?:\bnot|n't|\bnever)\s+(?:[a-z]+\s+)?$", re.IGNORECASE)
_VERDICT_END = re.compile(r"\s*(?:$|[.,;:!\n\u2013\u2014-])")
_NEGATABLE = {"true", "false", "correct", "incorrect"}


def _verdicts(s: str, vocab: dict[str, bool]) -> list[tuple[int, bool]]:
    out = []
    for m in _VERDICT.finditer(s):
        word = m.group(1).lower()
        if word not in vocab:
            continue
        value = vocab[word]
        if word in _NEGATABLE and _NEGATION.search(s[max(0, m.start() - 30) : m.start()]):
            value = not value
        out.append((m.start(), value))
    return out


def _determiner_no(s: str, pos: int) -> bool:
    """ "no" used as a determiner ("there is no motion"), not as a verdict: a word follows it."""
    return s[pos : pos + 2].lower() == "no" and _DETERMINER_NO.match(s, pos) is not None


_DETERMINER_NO = re.compile(r"no\s+[a-z]", re.IGNORECASE)


def _read_bool(s: str, kind: str, *, first_only: bool, question: str | None = None) -> Parsed | None:
    """One span's verdict, None when it has none. Order: a verdict word after a marker (``first_only``) or
    opening the span; a hedge opening it ("Not really", "Of course"); given the question, a restatement of it
    (with "no motion" read as a negation, not a verdict); every verdict word of the span if they agree."""
    for vocab in _BOOL_VOCAB[kind]:
        found = _verdicts(s, vocab)
        if question and found and all(_determiner_no(s, pos) for pos, _ in found):
            found = []  # "There is no motion": the restatement decides, below
        if not found:
            continue
        if first_only:
            return Parsed(found[0][1], True)
        head = re.sub(r"[\W_]+", " ", s[: found[0][0]].lower()).split()
        opening = not head or head in (["not"], ["it", "is"], ["it", "is", "not"], ["it", "s"], ["it", "s", "not"])
        if opening and _VERDICT_END.match(s, _VERDICT.match(s, found[0][0]).end()):  # "No, it is not", "Yes."
            return Parsed(found[0][1], True)
        break
    else:
        found = []
    hedge = hedge_verdict(s)
    if hedge is not None:
        return Parsed(hedge, True, "hedge")
    if question and not any(not _determiner_no(s, pos) for pos, _ in found):
        restated = restated_verdict(s, question)
        if restated is not None:
            return Parsed(restated, True, "restated")
    for vocab in _BOOL_VOCAB[kind]:
        found = _verdicts(s, vocab)
        if found:
            values = {v for _, v in found}
            return Parsed(values.pop(), True) if len(values) == 1 else _fail("ambiguous")
    return None


@_total
def parse_bool(text: Any, *, kind: str = "true_false", question: Any = None) -> Parsed:
    """True/false or yes/no -> bool. ``kind`` picks the primary words; the other pair is a fallback.

    Given the item's ``question`` (or statement), a reply that restates it ("The bars are not the same
    length.") is read against it (:mod:`ambi_plugin.core.restate`); hedges ("Not really", "Of course") are
    read with or without it.
    """
    if kind not in _BOOL_VOCAB:
        return _fail(f"bad_kind: {kind!r}")
    s = _clean(text)
    if not s:
        return _fail("empty")
    q = _clean(question) if question is not None else ""
    for seg in _segments(s, extra=_BOOL_MARKER):
        got = _read_bool(seg.strip(), kind, first_only=True, question=q)
        if got is not None:
            return got
    got = _read_bool(s, kind, first_only=False, question=q)
    return got if got is not None else _fail("no_verdict")


# ----------------------------------------------------------------------------- open answers

_EDGE_JUNK = re.compile(r"^[\W_]+|[\W_]+$")
_REFUSALS = {
    "no answer", "none", "n a", "na", "null", "unknown", "unsure", "not sure", "unclear", "nothing", "no object",
    "no idea", "i don t know", "i do not know", "cannot tell", "can t tell", "cannot determine", "cannot answer",
}  # fmt: skip
_ITEM_LABEL = re.compile(
    r"^(?:(?:object|item|layer|scene|view|answer)\s*\d*(?:\s+objects?)?|near|far|left|right|upright|rotated|first|second|third)\s*[:=]\s*",
    re.IGNORECASE,
)
_NUMBERED = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+")
_BULLET_LINE = re.compile(r"^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+")


def _clean_item(x: str) -> str:
    """Strip quotes, brackets, end punctuation and "Object1:"-style labels; refusals ("no answer") -> ""."""
    x = _ITEM_LABEL.sub("", _EDGE_JUNK.sub("", x))
    x = " ".join(_EDGE_JUNK.sub("", x).split())
    return "" if _norm_option(x) in _REFUSALS else x


def _numbered_split(s: str) -> list[str] | None:
    """ "1. shark 2. mushroom" -> ["shark", "mushroom"] when the numbers run 1, 2, 3, ..."""
    ms = list(_NUMBERED.finditer(s))
    if len(ms) < 2 or [int(m.group(1)) for m in ms] != list(range(1, len(ms) + 1)) or s[: ms[0].start()].strip():
        return None
    return [s[m.end() : (ms[k + 1].start() if k + 1 < len(ms) else len(s))] for k, m in enumerate(ms)]


def _split_items(s: str, sep: str) -> list[str]:
    lines = [ln for ln in s.splitlines() if ln.strip()]
    if len(lines) >= 2 and sum(bool(_BULLET_LINE.match(ln)) for ln in lines) >= 2:
        raw = [_BULLET_LINE.sub("", ln) for ln in lines if _BULLET_LINE.match(ln)]
    elif (numbered := _numbered_split(s.strip())) is not None:
        raw = numbered
    elif lines and sep in lines[0]:
        raw = lines[0].split(sep)
    elif len(lines) >= 2 and all(len(ln.split()) <= 6 for ln in lines):
        raw = lines
    else:
        raw = s.split(sep) if sep else [s]
    return [item for item in (_clean_item(x) for x in raw) if item]


_LEAD_IN = re.compile(
    r"^(?:(?:the|this)\s+(?:image|picture|figure|photo)\s+(?:shows|contains|depicts)|i\s+(?:can\s+)?see)\s*:\s*",
    re.IGNORECASE,
)


def _answer_span(s: str) -> str:
    """The text after the last answer marker (else the reply), without a lead-in ("The image shows:")."""
    segs = [seg.strip() for seg in _segments(s)]
    return _LEAD_IN.sub("", next((seg for seg in segs if seg), s))


@_total
def parse_list(text: Any, *, sep: str = ",") -> Parsed:
    """'shark, mushroom' / "Object1: shark, Object2: mushroom" / "1. shark 2. mushroom" -> items in order.

    Only ``sep``, numbered or bulleted lines, or short lines split items ("shark and panda" is one
    item); quotes, brackets, end punctuation and refusals ("no answer", "unknown") are dropped.
    """
    s = _clean(text)
    if not s:
        return _fail("empty")
    items = _split_items(_answer_span(s), sep if isinstance(sep, str) and sep else ",")
    return Parsed(items, True) if items else _fail("no_items")


@_total
def parse_layers(text: Any) -> Parsed:
    """'desert scene, sand dunes; cow skull' -> [["desert scene", "sand dunes"], ["cow skull"]]."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    span = _answer_span(s)
    if ";" in span:
        parts = span.split(";")
    else:
        lines = [ln for ln in span.splitlines() if ln.strip()]
        parts = lines if len(lines) >= 2 else [span]
    layers = [[_clean_item(x) for x in p.split(",") if _clean_item(x)] for p in parts]
    while layers and not layers[-1] and len(layers) > 1:
        layers.pop()  # a trailing ';'
    return Parsed(layers, True) if any(layers) else _fail("no_items")


_OBJECT = re.compile(r"\bobject(?:\s*name)?['\"]?\s*[:=]\s*([^\n]*)", re.IGNORECASE)
_QUOTED = re.compile(r"^\s*(['\"])([^'\"\n]+)\1")
_SENTENCE_END = re.compile(r"[.;!?](?:\s|$)|\s\(")
# an object named inside a sentence: "... is a leopard", "I can see an owl blending into the bark"
_IN_SENTENCE = re.compile(
    r"(?:\b(?:is|are|be|was|'s|looks?\s+like|resembles?|see|spot|notice|find|identify|shows?|depicts?|"
    r"contains?|reveals?|there\s+is|there's)|\b(?:hidden|camouflaged|concealed))\s+"
    r"(?:an?|the|some|two|three|several)\s+([a-z][a-z\- ]{0,60})"
    # a sentence opening with the object: "A crab is hiding in the rocks."
    r"|(?:^|[.!?]\s+)an?\s+([a-z][a-z\-]*(?:\s+[a-z][a-z\-]*){0,2}?)\s+(?:is|are|can\s+be|sits|rests|lies|hides)\b",
    re.IGNORECASE,
)
_PHRASE_STOP = frozenset(
    """in on at among amongst against within behind under underneath near into inside with that which who whose
    blending hiding hidden camouflaged concealed sitting perched standing lying resting partially almost nearly
    and but while as from of is are was were whose where when because disguised made formed""".split()
)
_GENERIC = frozenset(
    """image picture photo photograph scene illusion pattern texture background camouflage example trick
    object objects thing something animal creature shape design view painting drawing""".split()
)
_ARTICLE = re.compile(r"^(?:an?|the|some)\s+", re.IGNORECASE)


def _noun_phrase(words: str) -> str:
    """ "owl blending into the bark" -> "owl": at most four words, cut at a preposition, relative word or
    participle (after the first word)."""
    out: list[str] = []
    for k, w in enumerate(words.split()[:4]):
        if w.lower() in _PHRASE_STOP or (k > 0 and w.lower().endswith(("ing", "ed"))):
            break
        out.append(w)
    return " ".join(out)


def _object_in_sentence(span: str) -> str | None:
    """The last object a sentence names ("The hidden animal is a leopard."), generic words ("image") skipped."""
    found = [_noun_phrase(m.group(1) or m.group(2)) for m in _IN_SENTENCE.finditer(span)]
    found = [f for f in found if f and f.split()[-1].lower() not in _GENERIC]
    return _clean_item(found[-1]).lower() if found and _clean_item(found[-1]) else None


@_total
def parse_object(text: Any) -> Parsed:
    """ "Object: 'butterfly'" / "butterfly" / "The hidden animal is a leopard." -> "butterfly", "leopard" (lower
    case; quotes, end punctuation and a leading article gone). With several "Object:" markers the last one wins;
    a short first line is the answer unless it is a sentence naming the object."""
    s = _clean(text)
    if not s:
        return _fail("empty")
    hits = list(_OBJECT.finditer(s))
    if hits:
        raw = hits[-1].group(1)
        quoted = _QUOTED.match(raw)
        raw = quoted.group(2) if quoted else raw[: m.start()] if (m := _SENTENCE_END.search(raw)) else raw
        value = _ARTICLE.sub("", _clean_item(raw)).lower()
        return Parsed(value, True) if value else _fail("refusal")
    span = _answer_span(s)
    first = next((ln for ln in span.splitlines() if ln.strip()), "")
    if first and len(first.split()) <= 6 and _clean_item(first):
        named = _object_in_sentence(first)
        if named:
            return Parsed(named, True, "from_sentence")
        value = _ARTICLE.sub("", _clean_item(first)).lower()
        return Parsed(value, True) if _clean_item(value) else _fail("refusal")
    named = _object_in_sentence(span)
    if named:
        return Parsed(named, True, "from_sentence")
    return _fail("not_short")


@_total
def parse_free(text: Any) -> Parsed:
    """Free text, stripped; empty -> unparseable."""
    s = _clean(text)
    return Parsed(s, True) if s else _fail("empty")


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


@_total
def parse_boxes(text: Any) -> Parsed:
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


# ----------------------------------------------------------------------------- dispatch


def _style(kw: dict[str, Any], default: str) -> str:
    """The record's ``option_style`` when valid (labels shown are the labels read), else the format's."""
    style = kw.get("style")
    return style if style in OPTION_STYLES else default


def parse_color(text: Any) -> Parsed:
    """An open color answer -> the first color term it names (after the last answer marker when there is
    one), as a :class:`ambi_plugin.core.colors.ColorTerm`; unparseable when it names none."""
    from ambi_plugin.core.colors import answer_color

    term = answer_color(_clean(text))
    return Parsed(term, True) if term is not None else _fail("no_color_term")


_BY_FORMAT: dict[str, Callable[..., Parsed]] = {
    "letter": lambda t, **kw: parse_choice(
        t, kw.get("n_options", 0), style=_style(kw, "letter"), options=kw.get("options")
    ),
    "roman": lambda t, **kw: parse_choice(
        t, kw.get("n_options", 0), style=_style(kw, "roman"), options=kw.get("options")
    ),
    "letter_set": lambda t, **kw: parse_letter_set(t, kw.get("n_options", 0), none_index=kw.get("none_index")),
    "true_false": lambda t, **kw: parse_bool(t, kind="true_false", question=kw.get("question")),
    "yes_no": lambda t, **kw: parse_bool(t, kind="yes_no", question=kw.get("question")),
    "object": lambda t, **kw: parse_object(t),
    "comma_list": lambda t, **kw: parse_list(t, sep=kw.get("sep", ",")),
    "layers": lambda t, **kw: parse_layers(t),
    "boxes": lambda t, **kw: parse_boxes(t),
    "free": lambda t, **kw: parse_free(t),
    "color": lambda t, **kw: parse_color(t),
}


def get_parser(fmt: str, **kw: Any) -> Callable[[Any], Parsed]:
    """A one-argument parser for answer format ``fmt``; raises ValueError now for a bad configuration.

    ``letter``/``roman`` need ``n_options`` or ``options``; ``letter_set`` needs ``n_options``.
    """
    if fmt not in _BY_FORMAT:
        raise ValueError(f"Expected argument `fmt` to be one of {tuple(_BY_FORMAT)} but got {fmt!r}")
    if fmt in ("letter", "roman", "letter_set") and not (kw.get("n_options") or kw.get("options")):
        raise ValueError(
            f"answer format {fmt!r} needs `n_options` (or `options`), e.g. get_parser({fmt!r}, n_options=4)"
        )
    if kw.get("style") is not None and kw["style"] not in OPTION_STYLES:
        raise ValueError(f"Expected argument `style` to be one of {OPTION_STYLES} but got {kw['style']!r}")
    if fmt == "letter_set" and not kw.get("n_options"):
        kw["n_options"] = len(kw["options"])
    return functools.partial(parse_answer, fmt=fmt, **kw)


@_total
def parse_answer(text: Any, fmt: str, **kw: Any) -> Parsed:
    """Parse ``text`` with the parser of answer format ``fmt`` (one of ``schema.ANSWER_FORMATS``)."""
    fn = _BY_FORMAT.get(fmt) if isinstance(fmt, str) else None
    if fn is None:
        return _fail(f"unknown_format: {fmt!r}")
    return fn(text, **kw)
