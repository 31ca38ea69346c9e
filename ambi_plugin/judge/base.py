"""The judge interface every backend implements (see ``docs/judges.md``).

=================================  ==========================================================================
``set_match(gold, predicted)``     AmbiBench A.5: every gold concept (Set 1) matched to a distinct predicted
                                   term (Set 2) that is the same word, a synonym or a hypernym/hyponym
``match_terms(gold, predicted)``   the core ``Matcher`` protocol: ``set_match``'s value, an error counts False
``correct_true_false(...)``        IllusionBench B.2 T/F judge: is the response correct (5 rounds, >= 3 votes)
``correct_multiple_choice(...)``   IllusionBench B.2 MC judge (same voting)
``description_score(...)``         IllusionBench C.1 0/1/2 conflict rating, mean over rounds
``mcq_match(question, options,     VIA-Bench Judge protocol (prompt ours): which option the response chose
response)``
``extract_answer(fmt, question,    ours: what an answer the rules left unread commits to (``--extract-with-judge``)
options, response)``
``info()``                         backend, model, rounds and template hashes (recorded in the results)
=================================  ==========================================================================

Empty sets are decided without asking: no gold concept -> True, no predicted term -> False.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from ambi_plugin.core.judging import item_info  # noqa: F401 - re-exported (moved to core)
from ambi_plugin.judge.settings import JudgeSettings
from ambi_plugin.judge.templates import TEMPLATES, template_hashes
from ambi_plugin.judge.transport import Counters
from ambi_plugin.judge.voting import Choice, Extraction, Score, Verdict


def clean_terms(terms: Sequence[str] | str | None) -> list[str]:
    items = [terms] if isinstance(terms, str) else list(terms or [])
    return [str(t).strip() for t in items if str(t).strip()]


class Judge(ABC):
    """Common part of every judge: settings, counters, ``info`` and the ``Matcher`` protocol."""

    backend_name: str = "?"

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.counters = Counters()
        self.first_error: str | None = None  # the first judgement that could not be read: its reply or failure

    # -- identity

    @property
    def model(self) -> str:
        return str(self.settings.model or "")

    @property
    def rounds(self) -> int:
        """Rounds of ``set_match`` (the configured default)."""
        return int(self.settings.rounds)

    def info(self) -> dict[str, Any]:
        """Backend, model, ``rounds`` (of ``set_match``), template hashes, settings and counters.

        ``rounds_used`` lists the judgements this process made per template and number of rounds,
        e.g. ``{"illusionbench_description": {"5": 40}}`` (IllusionBench's calls ask for 5 rounds).
        """
        stats = self.stats()
        used: dict[str, dict[str, int]] = {}
        for key, n in stats.items():
            name, sep, k = key.rpartition("_x")
            if sep and name in TEMPLATES and k.isdigit():
                used.setdefault(name, {})[k] = n
        return {
            "backend": self.backend_name,
            "model": self.model,
            "rounds": self.rounds,
            "rounds_used": used,
            "templates": template_hashes(),
            "settings": self.settings.public(),
            "stats": stats,
            "first_error": self.first_error,
        }

    def stats(self) -> dict[str, int]:
        return self.counters.snapshot()

    def effective_rounds(self, requested: int) -> int:
        """Rounds actually run for a request of ``requested`` (a deterministic judge runs one)."""
        return max(int(requested), 1)

    def _count(self, result: Verdict | Score | Choice, template: str, requested: int) -> None:
        self.counters.add("judgements")
        self.counters.add(f"{template}_x{self.effective_rounds(requested)}")
        if result.error:
            self.counters.add("errors")
            if self.first_error is None:
                raws = [str(r) for r in getattr(result, "raw", None) or [] if str(r).strip()]
                self.first_error = (raws[0] if raws else "no readable reply").splitlines()[0][:300]

    # -- the protocol

    def set_match(self, gold: Sequence[str], predicted: Sequence[str], *, rounds: int | None = None) -> Verdict:
        g, p = clean_terms(gold), clean_terms(predicted)
        if not g:
            return Verdict.decided(True, "no gold concept: nothing to match")
        if not p:
            return Verdict.decided(False, "no predicted term")
        k = int(rounds or self.rounds)
        verdict = self._set_match(g, p, k)
        self._count(verdict, "ambibench_set_match", k)
        return verdict

    def match_terms(self, gold: list[str], predicted: list[str]) -> bool:
        return bool(self.set_match(gold, predicted))

    def correct_true_false(
        self, question: str, correct_answer: str, response: str, *, rounds: int = 5, min_votes: int = 3
    ) -> Verdict:
        verdict = self._correct_true_false(str(question), str(correct_answer), str(response), rounds, min_votes)
        self._count(verdict, "illusionbench_true_false", rounds)
        return verdict

    def correct_multiple_choice(
        self, question_and_options: str, correct_option: str, response: str, *, rounds: int = 5, min_votes: int = 3
    ) -> Verdict:
        verdict = self._correct_multiple_choice(
            str(question_and_options), str(correct_option), str(response), rounds, min_votes
        )
        self._count(verdict, "illusionbench_multiple_choice", rounds)
        return verdict

    def description_score(
        self,
        response: str,
        golden: str,
        *,
        rounds: int = 5,
        key_terms: Sequence[str] | None = None,
        conflict_terms: Sequence[str] | None = None,
    ) -> Score:
        score = self._description_score(str(response), str(golden), rounds, key_terms, conflict_terms)
        self._count(score, "illusionbench_description", rounds)
        return score

    def mcq_match(self, question: str, options: Sequence[str], response: str, *, rounds: int = 1) -> Choice:
        if not options:
            raise ValueError("mcq_match needs the options of the question, got none")
        choice = self._mcq_match(str(question), [str(o) for o in options], str(response), rounds)
        self._count(choice, "viabench_mcq_match", rounds)
        return choice

    def extract_answer(self, answer_format: str, question: str, options: Sequence[str], response: str) -> Extraction:
        """The optional extraction step (``runtime/extraction.py``): the answer ``response`` commits to, read by the
        judge; one round (``"answer_extraction"``, our template)."""
        result = self._extract_answer(str(answer_format), str(question or ""), [str(o) for o in options], str(response))
        self._count(result, "answer_extraction", 1)
        return result

    # -- what a backend implements

    def _extract_answer(self, answer_format: str, question: str, options: list[str], response: str) -> Extraction:
        return Extraction("none", [f"none (the {self.backend_name} judge does not extract answers)"], False)

    @abstractmethod
    def _set_match(self, gold: list[str], predicted: list[str], rounds: int) -> Verdict: ...

    @abstractmethod
    def _correct_true_false(
        self, question: str, correct_answer: str, response: str, rounds: int, min_votes: int
    ) -> Verdict: ...

    @abstractmethod
    def _correct_multiple_choice(
        self, question_and_options: str, correct_option: str, response: str, rounds: int, min_votes: int
    ) -> Verdict: ...

    @abstractmethod
    def _description_score(
        self,
        response: str,
        golden: str,
        rounds: int,
        key_terms: Sequence[str] | None,
        conflict_terms: Sequence[str] | None,
    ) -> Score: ...

    @abstractmethod
    def _mcq_match(self, question: str, options: list[str], response: str, rounds: int) -> Choice: ...
