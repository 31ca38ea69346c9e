"""Color terms: reading color names out of free text and matching them against lists of acceptable colors.

RCID's filter illusions are answered with an open color name and scored against a list of acceptable
colors (Fig. 1c: pixel answer ``['Gray', 'Yellowish-green', 'Greenish-yellow', 'Green']``, human answer
``['Red']``). A *color term* is a basic hue (``red``, ``gray`` ...) with an optional hue modifier
(``greenish-yellow``, ``yellow-green``, ``bluish green``); lightness words (``light``, ``dark``, ``pale``
...) are read past, and synonyms map to the basic hue (``grey`` -> ``gray``, ``crimson`` -> ``red``).

Matching (:func:`color_matches`): the answer's term matches an acceptable color when their basic hues are
the same and the acceptable color either has no modifier or has the same one. So ``dark green`` and
``yellowish-green`` match ``Green``; ``greenish-yellow`` matches ``Yellow`` and ``Greenish-yellow`` but not
``Yellowish-green`` or ``Green``. An answer naming several colors is scored by its first term (PROTOCOL,
RCID); the text after the last answer marker ("Answer: ...") is read first when there is one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

BASIC_COLORS = ("red", "orange", "yellow", "green", "cyan", "blue", "purple", "pink", "brown", "gray", "black", "white")

# synonym -> basic hue (our lexicon; extend here)
SYNONYMS: dict[str, str] = {
    **{c: c for c in BASIC_COLORS},
    "grey": "gray",
    "silver": "gray",
    "crimson": "red",
    "scarlet": "red",
    "maroon": "red",
    "burgundy": "red",
    "vermilion": "red",
    "ruby": "red",
    "amber": "orange",
    "tangerine": "orange",
    "gold": "yellow",
    "golden": "yellow",
    "lemon": "yellow",
    "mustard": "yellow",
    "lime": "green",
    "olive": "green",
    "emerald": "green",
    "teal": "cyan",
    "turquoise": "cyan",
    "aqua": "cyan",
    "aquamarine": "cyan",
    "navy": "blue",
    "azure": "blue",
    "cobalt": "blue",
    "indigo": "blue",
    "sapphire": "blue",
    "violet": "purple",
    "lavender": "purple",
    "lilac": "purple",
    "magenta": "pink",
    "fuchsia": "pink",
    "rose": "pink",
    "beige": "brown",
    "tan": "brown",
    "khaki": "brown",
    "chocolate": "brown",
}

# hue adjectives ("greenish", "reddish") -> basic hue
_ISH = {
    "reddish": "red",
    "orangish": "orange",
    "orangey": "orange",
    "yellowish": "yellow",
    "greenish": "green",
    "bluish": "blue",
    "blueish": "blue",
    "purplish": "purple",
    "pinkish": "pink",
    "brownish": "brown",
    "grayish": "gray",
    "greyish": "gray",
    "blackish": "black",
    "whitish": "white",
    "cyanish": "cyan",
}

LIGHTNESS = ("light", "dark", "pale", "bright", "deep", "vivid", "muted", "dull", "pastel", "neon", "dusty", "soft")

_WORD = r"[a-z]+"
_TERM = re.compile(rf"\b({_WORD})(?:(?:\s*-\s*|\s+)({_WORD}))?\b")
_MARKER = re.compile(r"\b(?:final\s+)?answer\s*(?::|is\b)", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|no|isn't|aren't|never)\s+(?:\w+\s+)?$")


@dataclass(frozen=True)
class ColorTerm:
    """A color term: a basic hue and an optional hue modifier (``greenish-yellow`` = yellow, modifier green)."""

    hue: str
    modifier: str | None = None

    def __str__(self) -> str:
        if not self.modifier:
            return self.hue
        adjective = next((k for k, v in _ISH.items() if v == self.modifier), self.modifier)
        return f"{adjective}-{self.hue}"


def _hue_of(word: str) -> str | None:
    return SYNONYMS.get(word)


def _modifier_of(word: str) -> str | None:
    return _ISH.get(word) or SYNONYMS.get(word)


def find_color_terms(text: str) -> list[ColorTerm]:
    """Every color term in ``text``, in order ("light greenish-yellow or gray" -> greenish-yellow, gray).

    A term negated right before ("not red") is skipped.
    """
    s = " ".join(str(text or "").lower().replace("_", " ").split())
    terms: list[ColorTerm] = []
    words = list(re.finditer(_WORD, s))
    i = 0
    while i < len(words):
        w = words[i].group(0)
        nxt = words[i + 1] if i + 1 < len(words) else None
        joined = nxt is not None and re.fullmatch(r"\s*-?\s*", s[words[i].end() : nxt.start()]) is not None
        negated = _NEGATED.search(s[max(0, words[i].start() - 24) : words[i].start()]) is not None
        if w in LIGHTNESS:
            i += 1
            continue
        mod = _modifier_of(w)
        if mod is not None and joined and nxt is not None and _hue_of(nxt.group(0)) is not None:
            hue = _hue_of(nxt.group(0))
            if hue != mod:  # "yellow-green", "greenish yellow"; "red red" is just red
                if not negated:
                    terms.append(ColorTerm(hue, mod))
                i += 2
                continue
        hue = _hue_of(w) or _ISH.get(w)  # a lone "reddish" names red
        if hue is not None and not negated:
            terms.append(ColorTerm(hue))
        i += 1
    return terms


def parse_color_term(text: str) -> ColorTerm | None:
    """One acceptable-color entry ("Yellowish-green", "grey") as a term; None when it names no color."""
    terms = find_color_terms(text)
    return terms[0] if terms else None


def answer_color(response: str) -> ColorTerm | None:
    """The color a reply gives: the first term after the last "Answer:" marker, else the first term."""
    s = str(response or "")
    marks = list(_MARKER.finditer(s))
    if marks:
        after = find_color_terms(s[marks[-1].end() :])
        if after:
            return after[0]
    terms = find_color_terms(s)
    return terms[0] if terms else None


def color_matches(term: ColorTerm | None, acceptable: Iterable[str | ColorTerm]) -> bool:
    """True when ``term`` matches one acceptable color (same hue; same modifier or none required)."""
    if term is None:
        return False
    for entry in acceptable:
        want = entry if isinstance(entry, ColorTerm) else parse_color_term(entry)
        if want is None or want.hue != term.hue:
            continue
        if want.modifier is None or want.modifier == term.modifier:
            return True
    return False


def validate_color_list(colors: Sequence[str]) -> list[str]:
    """The entries of an acceptable-color list that name no color (empty = the list is fine)."""
    return [c for c in colors if parse_color_term(str(c)) is None]


__all__ = [
    "BASIC_COLORS",
    "ColorTerm",
    "answer_color",
    "color_matches",
    "find_color_terms",
    "parse_color_term",
    "validate_color_list",
]
