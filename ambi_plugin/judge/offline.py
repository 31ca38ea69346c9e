"""The ``offline`` judge: deterministic, no network, the default.

* ``set_match``: the lexicon matcher of ``core.matching`` (lemmas, synonyms, hypernyms, head-noun rules);
  when it finds no match for a pair it does not know (a term outside the lexicon), all-MiniLM-L6-v2
  sentence embeddings decide: cosine >= ``EMBEDDING_THRESHOLD``. Pairs are never sent to embeddings when
  the lexicon knows both terms (it knows they differ), when either side is negated ("no skull"), holds a
  digit or a single letter, or when an antonym modifier separates them ("old" / "young"): embeddings
  place such pairs close together.
* ``correct_true_false`` / ``correct_multiple_choice``: the core parsers read the response (``parse_bool``,
  ``parse_choice`` with the options read from the question text) and compare with the correct answer.
* ``description_score``: with key / conflict terms, 0 if a conflict term appears, 2 if every key term does,
  1 if some do; without them, the embedding similarity of response and golden description, banded at
  ``DESCRIPTION_BANDS``. Without terms and without the embedding model it is a judge error.
* ``mcq_match``: ``parse_choice`` on the response; a response naming no option is -1.

It is deterministic, so it evaluates once per item: every verdict has one vote and ``info()`` reports
``rounds: 1`` whatever the caller asked for. ``raw`` holds a short account of each decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ambi_plugin.core.matching import Matcher, OfflineMatcher, _tokens
from ambi_plugin.core.matching import default_matcher as _lexicon_matcher
from ambi_plugin.core.parsing import parse_bool, parse_choice
from ambi_plugin.judge.base import Judge
from ambi_plugin.judge.embeddings import MODEL_NAME, Embedder, available, shared_embedder
from ambi_plugin.judge.settings import JudgeSettings
from ambi_plugin.judge.voting import Choice, Extraction, Score, Verdict

EMBEDDING_THRESHOLD = 0.80  # our choice: synonyms outside the lexicon score 0.84-0.96, sibling concepts <= 0.81
DESCRIPTION_BANDS = (0.70, 0.45)  # our choice: cosine >= 0.70 -> 2, >= 0.45 -> 1, else 0

_NEGATORS = {"no", "not", "without", "non", "never"}


class EmbeddingAssistedMatcher(OfflineMatcher):
    """The lexicon matcher, plus an embedding fallback for pairs the lexicon cannot decide."""

    def __init__(self, embedder: Embedder, *, threshold: float = EMBEDDING_THRESHOLD) -> None:
        super().__init__()
        self.embedder = embedder
        self.threshold = threshold

    def eligible(self, gold_term: str, predicted_term: str) -> bool:
        g, p = self._analyse(str(gold_term)), self._analyse(str(predicted_term))
        if not g.text or not p.text or (g.text in self._known and p.text in self._known):
            return False
        toks = set(_tokens(str(gold_term))) | set(_tokens(str(predicted_term)))
        if toks & _NEGATORS or any(t.isdigit() or len(t) == 1 for t in toks):
            return False
        for pair in self._antonyms:
            if len(pair) == 2:
                a, b = tuple(pair)
                if (a in g.tokens and b in p.tokens) or (b in g.tokens and a in p.tokens):
                    return False
        return True

    def matches(self, gold_term: str, predicted_term: str) -> bool:
        if super().matches(gold_term, predicted_term):
            return True
        for alt in str(gold_term).split("|"):
            if alt.strip() and self.eligible(alt, predicted_term):
                if self.embedder.similarity(alt.strip().lower(), str(predicted_term).strip().lower()) >= self.threshold:
                    return True
        return False


_LINE_OPTION = re.compile(r"^\s*\(?([ivxIVX]{1,4}|[A-Ha-h])[.):]\s+(\S.*?)\s*$")
_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"]


def split_options(question_and_options: str) -> tuple[str, list[str]]:
    """(style, option texts) read from a question with one labelled option per line, or inline."""
    found = [m.groups() for line in question_and_options.splitlines() if (m := _LINE_OPTION.match(line))]
    for style, seq in (("roman", _ROMAN), ("letter", [chr(ord("a") + i) for i in range(8)])):
        labels = [lab.lower() for lab, _ in found]
        if len(labels) >= 2 and labels == seq[: len(labels)]:
            return style, [text for _, text in found]
    for style, seq in (("roman", _ROMAN), ("letter", [chr(ord("A") + i) for i in range(8)])):
        texts, pos = [], 0
        spans = []
        for lab in seq:
            m = re.compile(rf"(?:^|\s)\(?{re.escape(lab)}[.)]\s", re.IGNORECASE if style == "roman" else 0).search(
                question_and_options, pos
            )
            if not m:
                break
            spans.append((m.start(), m.end()))
            pos = m.end()
        if len(spans) >= 2:
            for k, (_, end) in enumerate(spans):
                stop = spans[k + 1][0] if k + 1 < len(spans) else len(question_and_options)
                texts.append(question_and_options[end:stop].strip())
            return style, texts
    raise ValueError(
        "cannot read the options from the question text; expected labelled options such as "
        "'i. ...' / 'ii. ...' or 'A. ...' / 'B. ...', got: " + question_and_options[:200]
    )


class OfflineJudge(Judge):
    backend_name = "offline"

    def __init__(
        self, settings: JudgeSettings | None = None, *, embedder: Embedder | None = None, matcher: Matcher | None = None
    ) -> None:
        """``matcher``: decide set matches with this ``core`` Matcher alone (no embeddings)."""
        super().__init__(settings or JudgeSettings())
        self.use_embeddings = bool(self.settings.embeddings) and (embedder is not None or available())
        self.embedder = embedder or (shared_embedder() if self.use_embeddings else None)
        self.lexicon = matcher or _lexicon_matcher()
        self.assisted = EmbeddingAssistedMatcher(self.embedder) if self.use_embeddings and matcher is None else None
        self._matcher_name = type(matcher).__name__ if matcher is not None else None

    @property
    def model(self) -> str:
        if self._matcher_name:
            return f"matcher:{self._matcher_name}"
        return f"lexicon+{MODEL_NAME}" if self.use_embeddings else "lexicon"

    @property
    def rounds(self) -> int:
        return 1

    def effective_rounds(self, requested: int) -> int:
        return 1

    def info(self) -> dict:
        out = super().info()
        out["embedding_threshold"] = EMBEDDING_THRESHOLD if self.use_embeddings else None
        out["description_bands"] = list(DESCRIPTION_BANDS) if self.use_embeddings else None
        return out

    # -- set match

    def _set_match(self, gold: list[str], predicted: list[str], rounds: int) -> Verdict:
        if self.lexicon.match_terms(gold, predicted):
            return Verdict(True, [True], ["True (lexicon)"], False)
        if self.assisted is not None and self.assisted.match_terms(gold, predicted):
            return Verdict(True, [True], ["True (lexicon + embeddings)"], False)
        return Verdict(False, [False], ["False"], False)

    # -- IllusionBench T/F and MC

    def _correct_true_false(self, question, correct_answer, response, rounds, min_votes) -> Verdict:
        gold = parse_bool(correct_answer, kind="true_false")
        if not gold.ok:
            raise ValueError(f"correct_answer must read as True or False, got {correct_answer!r}")
        pred = parse_bool(response, kind="true_false")
        ok = bool(pred.ok and pred.value == gold.value)
        read = pred.value if pred.ok else f"unreadable ({pred.reason})"
        return Verdict(ok, [ok], [f"{int(ok)} (response read as {read})"], False)

    def _correct_multiple_choice(self, question_and_options, correct_option, response, rounds, min_votes) -> Verdict:
        style, options = split_options(question_and_options)
        gold = parse_choice(correct_option, len(options), style=style, options=options)
        if not gold.ok or not 0 <= gold.value < len(options):
            raise ValueError(f"correct_option {correct_option!r} names none of the {len(options)} options")
        pred = parse_choice(response, len(options), style=style, options=options)
        ok = bool(pred.ok and pred.value == gold.value)
        read = pred.value if pred.ok else f"unreadable ({pred.reason})"
        return Verdict(ok, [ok], [f"{int(ok)} (response read as option {read})"], False)

    # -- description

    def _description_score(self, response, golden, rounds, key_terms, conflict_terms) -> Score:
        if key_terms or conflict_terms:
            score, why = score_by_terms(response, key_terms or [], conflict_terms or [])
            return Score(score, 0.0, [score], [f"{score:g} ({why})"], 0)
        if self.embedder is None:
            return Score(
                None,
                None,
                [None],
                ["no key/conflict terms and no embedding model (pip install 'ambi-plugin[judge]')"],
                1,
            )
        if not response.strip():
            return Score(0.0, 0.0, [0.0], ["0 (empty response)"], 0)
        sim = self.embedder.similarity(response, golden)
        score = 2.0 if sim >= DESCRIPTION_BANDS[0] else (1.0 if sim >= DESCRIPTION_BANDS[1] else 0.0)
        return Score(score, 0.0, [score], [f"{score:g} (embedding cosine {sim:.3f})"], 0)

    # -- VIA-Bench

    def _mcq_match(self, question, options, response, rounds) -> Choice:
        got = parse_choice(response, len(options), style="letter", options=options)
        idx = got.value if got.ok and 0 <= got.value < len(options) else -1
        why = "" if got.ok else f" (no option read: {got.reason})"
        return Choice(idx, [idx], [f"{idx}{why}"], False)

    # -- the optional extraction step (ours)

    def _extract_answer(self, answer_format, question, options, response) -> Extraction:
        """The offline judge reads nothing the rules could not: sentence embeddings do not tell a paraphrase of an
        option from a hedge about it (measured: "Both lines are equally long" and "I cannot tell which line is
        longer" score 0.62 and 0.58 against "both are the same length"), and a wrong answer read into a
        non-answer is worse than an unread one. Extraction needs an LLM judge (``AMBI_JUDGE_BACKEND``)."""
        return Extraction("none", ["none (the offline judge does not extract answers; use an LLM judge)"])


def _has(text: str, phrase: str) -> bool:
    return any(alt.strip() and alt.strip().lower() in text for alt in str(phrase).split("|"))


def score_by_terms(response: str, key_terms: Sequence[str], conflict_terms: Sequence[str]) -> tuple[float, str]:
    """0 if a conflict term appears, else 2 if every key term does, 1 if some do, 0 if none (no keys: 2)."""
    text = " " + " ".join(str(response).lower().split()) + " "
    for phrase in conflict_terms:
        if _has(text, phrase):
            return 0.0, f"conflict term {phrase!r}"
    if not key_terms:
        return 2.0, "no conflict term"
    hits = sum(_has(text, k) for k in key_terms)
    score = 2.0 if hits == len(key_terms) else (1.0 if hits else 0.0)
    return score, f"{hits}/{len(key_terms)} key terms"
