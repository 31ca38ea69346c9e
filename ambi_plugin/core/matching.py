"""Term matching for open answers: the offline default of AmbiBench's judge rule (A.5).

The rule, with PROTOCOL's direction: every gold concept (the judge's "Set 1" = ground truth) must be
matched to a DISTINCT predicted term ("Set 2" = the model's answer) that is the same word, a synonym,
or a hypernym/hyponym of it. A gold concept may list alternatives, ``"six|6"``. Any object with a
``match_terms(gold, predicted) -> bool`` method is a :class:`Matcher`; LLM judges plug in the same way.

:class:`OfflineMatcher` decides term pairs without a model:

1. both terms are normalised: lower case, quotes, punctuation and possessives gone, leading
   articles dropped, words lemmatised by a small rule-based lemmatiser (``lemmatize``);
2. equal phrases match; phrases the lexicon relates (synonym, hypernym or hyponym, transitively)
   match; two phrases the lexicon knows but does not relate do not ("sea" vs "seal" or "sea lion");
3. otherwise a phrase is read as *units*: multiword lexicon terms kept whole ("sea horse"), stop
   words and negated words ("no skull") dropped, depiction words ("scene", "painting of") dropped.
   The gold matches when all its units occur in the prediction ("skull" ~ "cow skull", "desert" ~
   "desert scene") or when its head (first noun phrase's last unit: "cat" of "cat in a garden") is
   related to some unit of the prediction ("insect" ~ "bee painting"), unless an antonym modifier
   separates them ("old cat" vs "young cat"). Words match whole, never as substrings.

The shipped lexicon is ``lexicon.yaml`` next to this module (see its header for the format).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import yaml

from ambi_plugin.core.bipartite import every_left_matched

LEXICON_PATH = Path(__file__).parent / "lexicon.yaml"


@runtime_checkable
class Matcher(Protocol):
    """Decides whether a prediction names every gold concept (one distinct predicted term each)."""

    def match_terms(self, gold: list[str], predicted: list[str]) -> bool: ...


# ----------------------------------------------------------------------------- lemmatiser

_IRREGULAR = {
    "mice": "mouse", "geese": "goose", "people": "person", "women": "woman", "men": "man",
    "children": "child", "teeth": "tooth", "feet": "foot", "cacti": "cactus", "fungi": "fungus",
    "oxen": "ox", "lice": "louse", "octopi": "octopus", "octopuses": "octopus", "cactuses": "cactus",
    "buses": "bus", "criteria": "criterion", "leaves": "leaf", "wolves": "wolf", "knives": "knife",
    "wives": "wife", "lives": "life", "halves": "half", "shelves": "shelf", "calves": "calf",
    "loaves": "loaf", "thieves": "thief", "elves": "elf", "hooves": "hoof", "scarves": "scarf",
}  # fmt: skip
_INVARIANT = {
    "series",
    "species",
    "news",
    "lens",
    "canvas",
    "chess",
    "physics",
    "pants",
    "jeans",
    "scissors",
    "sheep",
    "deer",
    "fish",
    "aircraft",
}
_F_STEMS = {
    "leaf",
    "wolf",
    "knife",
    "wife",
    "life",
    "half",
    "shelf",
    "calf",
    "scarf",
    "loaf",
    "thief",
    "elf",
    "self",
    "hoof",
}


def lemmatize(word: str, vocab: Iterable[str] = ()) -> str:
    """Singular of an English noun by rules (irregulars, -ies, -ves, -es, -s); words in ``vocab`` stay."""
    w = str(word).lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    vocab = vocab if isinstance(vocab, (set, frozenset, dict)) else set(vocab)
    if w in vocab or w in _INVARIANT or len(w) <= 3 or not w.isalpha():
        return w
    cands = []
    if w.endswith("ies") and len(w) > 4:
        cands.append(w[:-3] + "y")
    if w.endswith("ves"):
        cands += [w[:-3] + "f", w[:-3] + "fe"]
    if w.endswith("es"):
        cands.append(w[:-2])
    if w.endswith("s") and not w.endswith("ss"):
        cands.append(w[:-1])  # "skis" -> "ski" when "ski" is known; unknown -is/-us words stay below
    for c in cands:
        if c in vocab or c in _F_STEMS:
            return c
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


# ----------------------------------------------------------------------------- phrase analysis

_ARTICLES = {"a", "an", "the"}
_PREPOSITIONS = {
    "in", "on", "of", "with", "at", "from", "by", "under", "over", "inside", "behind", "into", "onto", "among",
    "amongst", "between", "against", "above", "below", "beneath", "beside", "across", "through", "within",
    "around", "along", "for", "to", "toward", "towards",
}  # fmt: skip
_NEGATORS = {"no", "not", "without", "non"}
_STOPWORDS = _ARTICLES | {
    "some", "this", "that", "these", "those", "its", "his", "her", "their", "my", "your", "our", "and", "or",
    "is", "are", "was", "were", "be", "being", "look", "looks", "looking", "like", "resembling", "resembles",
    "appears", "appear", "which", "who", "there", "it", "very", "maybe", "perhaps", "possibly", "probably",
}  # fmt: skip
_MAX_COMPOUND = 6


def _tokens(text: str) -> list[str]:
    s = unicodedata.normalize("NFKC", text).lower().replace("&", " and ")
    s = re.sub(r"['\u2019]s\b", "", s)
    return re.findall(r"[^\W_]+", s)


@dataclass(frozen=True)
class _Phrase:
    text: str  # normalised phrase (leading articles dropped, words lemmatised)
    tokens: frozenset[str]
    units: tuple[str, ...]  # content units
    head: str | None


class OfflineMatcher:
    """Rule-based matcher: normalisation, lemmatiser, head/phrase rules and a synonym/hypernym lexicon."""

    def __init__(self, lexicon: str | Path | Mapping[str, Any] | None = None) -> None:
        data, source = self._load(lexicon)
        raw_terms = [t for group in data.get("synonyms") or [] for t in group]
        for parent, children in (data.get("hyponyms") or {}).items():
            raw_terms += [parent, *children]
        raw_terms += [t for pair in data.get("antonyms") or [] for t in pair] + list(data.get("generic") or [])
        self._vocab = frozenset(tok for t in raw_terms for tok in _tokens(str(t)))
        self._canon: dict[str, str] = {}
        for group in data.get("synonyms") or []:
            if not isinstance(group, list) or not group:
                raise ValueError(f"{source}: every entry of 'synonyms' must be a non-empty list, got {group!r}")
            head = self._norm(str(group[0]))
            for term in group:
                t = self._norm(str(term))
                if self._canon.get(t, head) != head:
                    raise ValueError(
                        f"{source}: term {term!r} is in two synonym groups ({self._canon[t]!r} and {head!r})"
                    )
                self._canon[t] = head
        self._parents: dict[str, set[str]] = {}
        hyp = data.get("hyponyms") or {}
        if not isinstance(hyp, Mapping):
            raise ValueError(f"{source}: 'hyponyms' must map a broader term to a list of narrower terms")
        for parent, children in hyp.items():
            if not isinstance(children, list):
                raise ValueError(f"{source}: hyponyms of {parent!r} must be a list, got {children!r}")
            p = self.canonical(str(parent))
            for child in children:
                c = self.canonical(str(child))
                if c != p:
                    self._parents.setdefault(c, set()).add(p)
        self._known = frozenset(self._canon) | frozenset(self._norm(str(t)) for t in raw_terms)
        self._compounds = frozenset(t for t in self._known if " " in t)
        self._antonyms = {frozenset(self._norm(str(t)) for t in pair) for pair in data.get("antonyms") or []}
        self._generic = frozenset(self._norm(str(t)) for t in data.get("generic") or [])
        self._ancestors_cache: dict[str, frozenset[str]] = {}
        self._analyse = functools.lru_cache(maxsize=65536)(self._analyse_uncached)

    @staticmethod
    def _load(lexicon: str | Path | Mapping[str, Any] | None) -> tuple[Mapping[str, Any], str]:
        if isinstance(lexicon, Mapping):
            return lexicon, "lexicon"
        path = Path(lexicon) if lexicon is not None else LEXICON_PATH
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ValueError(f"cannot read the matcher lexicon {path}: {exc}") from None
        if not isinstance(data, Mapping):
            raise ValueError(f"{path}: expected a mapping with keys synonyms, hyponyms, antonyms, generic")
        return data, str(path)

    # -- normalisation and relations

    def _norm(self, text: str) -> str:
        toks = [lemmatize(t, self._vocab) for t in _tokens(text)]
        while len(toks) > 1 and toks[0] in _ARTICLES:
            toks.pop(0)
        return " ".join(toks)

    def normalize(self, text: str) -> str:
        """The normalised form of a term: "The Butterflies!" -> "butterfly"."""
        return self._norm(str(text))

    def canonical(self, term: str) -> str:
        """The synonym group's first term for a known term, else the normalised term itself."""
        t = self._norm(term)
        return self._canon.get(t, t)

    def _ancestors(self, c: str) -> frozenset[str]:
        if c not in self._ancestors_cache:
            seen: set[str] = set()
            stack = list(self._parents.get(c, ()))
            while stack:
                p = stack.pop()
                if p not in seen:
                    seen.add(p)
                    stack.extend(self._parents.get(p, ()))
            self._ancestors_cache[c] = frozenset(seen)
        return self._ancestors_cache[c]

    def _related(self, a: str, b: str) -> bool:
        """a and b are normalised: same, synonyms, or one a hypernym of the other (transitively)."""
        ca, cb = self._canon.get(a, a), self._canon.get(b, b)
        return ca == cb or ca in self._ancestors(cb) or cb in self._ancestors(ca)

    def related(self, a: str, b: str) -> bool:
        """Lexicon relation of two terms (identity, synonymy, hypernymy either way)."""
        return self._related(self._norm(str(a)), self._norm(str(b)))

    # -- phrases

    def _analyse_uncached(self, text: str) -> _Phrase:
        toks = self._norm(text).split()
        units: list[list[tuple[str, bool]]] = [[]]  # chunks split at prepositions; (unit, generic)
        negate = False
        i = 0
        while i < len(toks):
            for size in range(min(_MAX_COMPOUND, len(toks) - i), 1, -1):
                cand = " ".join(toks[i : i + size])
                if cand in self._compounds:
                    break
            else:
                size, cand = 1, toks[i]
            i += size
            if size == 1 and cand in _NEGATORS:
                negate = True
            elif size == 1 and cand in _PREPOSITIONS:
                units.append([])
            elif size == 1 and cand in _STOPWORDS and not (cand in _ARTICLES and i == len(toks)):
                continue
            elif negate:
                negate = False
            else:
                units[-1].append((cand, cand in self._generic))
        flat = [u for chunk in units for u in chunk]
        content = tuple(u for u, generic in flat if not generic) or tuple(u for u, _ in flat)
        head = next((next(u for u, g in reversed(ch) if not g) for ch in units if any(not g for _, g in ch)), None)
        if head is None and flat:
            head = flat[-1][0]
        return _Phrase(" ".join(toks), frozenset(toks), content, head)

    def matches(self, gold_term: str, predicted_term: str) -> bool:
        """One gold concept (alternatives split at "|") against one predicted term."""
        pred = self._analyse(str(predicted_term))
        return any(self._match_one(self._analyse(alt), pred) for alt in str(gold_term).split("|") if alt.strip())

    def _match_one(self, g: _Phrase, p: _Phrase) -> bool:
        if not g.text or not p.text:
            return False
        if g.text == p.text or self._related(g.text, p.text):
            return True
        if g.text in self._known and p.text in self._known:
            return False
        for pair in self._antonyms:
            a, b = tuple(pair) if len(pair) == 2 else (None, None)
            for x, y in ((a, b), (b, a)):
                if x in g.tokens and y in p.tokens and x not in p.tokens:
                    return False
        if g.units and set(g.units) <= set(p.units):
            return True
        return g.head is not None and any(self._related(g.head, u) for u in p.units)

    def match_terms(self, gold: list[str], predicted: list[str]) -> bool:
        """Every gold concept matched to a distinct predicted term (bipartite matching). Empty gold -> True."""
        gold_l = [str(g) for g in ([gold] if isinstance(gold, str) else list(gold or [])) if str(g).strip()]
        pred_l = [str(p) for p in ([predicted] if isinstance(predicted, str) else list(predicted or []))]
        if len(gold_l) > len(pred_l):
            return False
        return every_left_matched([[j for j, p in enumerate(pred_l) if self.matches(g, p)] for g in gold_l])


@functools.lru_cache(maxsize=1)
def default_matcher() -> OfflineMatcher:
    """The offline matcher with the shipped lexicon, built once per process."""
    return OfflineMatcher()


def matches(gold_term: str, predicted_term: str) -> bool:
    """``default_matcher().matches``: one gold concept against one predicted term."""
    return default_matcher().matches(gold_term, predicted_term)


def match_terms(gold: list[str], predicted: list[str]) -> bool:
    """``default_matcher().match_terms``: the A.5 rule with ground truth as Set 1."""
    return default_matcher().match_terms(gold, predicted)
