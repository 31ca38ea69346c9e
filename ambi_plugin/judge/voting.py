"""Results of a judgement over k rounds: majority of booleans, mean of scores, option plurality.

* :class:`Verdict` (booleans): ``value`` is the side with at least ``min_votes`` votes and a strict
  majority of the rounds (IllusionBench: at least 3 of 5). Unreadable rounds vote for neither side.
  When no side reaches it, ``error`` is True and ``value`` None: never silently right or wrong.
* :class:`Score` (0/1/2 ratings): the mean and population std of the readable rounds, provided a
  majority of the rounds is readable; otherwise ``mean`` is None (a judge error). ``errors`` counts the
  unreadable rounds either way.
* :class:`Choice` (an option index): like :class:`Verdict` over option indices; -1 = "no option".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field


def required_votes(rounds: int, min_votes: int | None = None) -> int:
    """Votes a value needs: ``min_votes`` (capped at ``rounds``) and a strict majority of the rounds."""
    majority = rounds // 2 + 1
    if min_votes is None:
        return majority
    return max(min(int(min_votes), rounds), majority)


@dataclass
class Verdict:
    """A boolean judgement. ``error`` = no majority could be read (then ``value`` is None)."""

    value: bool | None
    votes: list[bool | None] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    error: bool = False

    def __bool__(self) -> bool:  # an errored verdict counts False (the Matcher protocol's view)
        return bool(self.value) and not self.error

    @classmethod
    def from_votes(cls, votes: Sequence[bool | None], raw: Sequence[str], *, min_votes: int | None = None) -> Verdict:
        votes = list(votes)
        need = required_votes(len(votes), min_votes) if votes else 1
        for side in (True, False):
            if sum(1 for v in votes if v is side) >= need:
                return cls(side, votes, list(raw), False)
        return cls(None, votes, list(raw), True)

    @classmethod
    def decided(cls, value: bool, reason: str) -> Verdict:
        """A verdict reached without asking a judge (empty sets): no rounds, no error."""
        return cls(value, [], [reason], False)


@dataclass
class Score:
    """A rating averaged over rounds. ``mean`` None = too few readable rounds (a judge error)."""

    mean: float | None
    std: float | None
    scores: list[float | None] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    errors: int = 0

    @property
    def error(self) -> bool:
        return self.mean is None

    @classmethod
    def from_scores(cls, scores: Sequence[float | None], raw: Sequence[str]) -> Score:
        scores = list(scores)
        readable = [float(s) for s in scores if s is not None]
        errors = len(scores) - len(readable)
        if not scores or len(readable) < required_votes(len(scores)):
            return cls(None, None, scores, list(raw), errors)
        mean = sum(readable) / len(readable)
        std = math.sqrt(sum((s - mean) ** 2 for s in readable) / len(readable))
        return cls(mean, std, scores, list(raw), errors)


@dataclass
class Choice:
    """The option a response chose: ``value`` 0-based, -1 = no option; None with ``error`` = unreadable."""

    value: int | None
    votes: list[int | None] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)
    error: bool = False

    def is_correct(self, gold_index: int) -> bool:
        """True when the chosen option is the gold one; an errored choice counts False."""
        return not self.error and self.value is not None and self.value == gold_index

    @classmethod
    def from_votes(cls, votes: Sequence[int | None], raw: Sequence[str], *, min_votes: int | None = None) -> Choice:
        votes = list(votes)
        counts = Counter(v for v in votes if v is not None)
        if votes and counts:
            value, n = counts.most_common(1)[0]
            if n >= required_votes(len(votes), min_votes):
                return cls(value, votes, list(raw), False)
        return cls(None, votes, list(raw), True)


@dataclass
class Extraction:
    """What the extraction step read from a response: ``value`` is ``"none"`` (the response commits to nothing), a
    letter, a comma list of letters, ``"yes"``/``"no"`` or ``"true"``/``"false"``; None with ``error`` = the judge's
    reply could not be read (the answer stays unread)."""

    value: str | None
    raw: list[str] = field(default_factory=list)
    error: bool = False
