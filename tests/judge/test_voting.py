"""Voting over rounds: IllusionBench's ">= 3 of 5", errors never silently right or wrong."""

from __future__ import annotations

import pytest

from ambi_plugin.judge.voting import Choice, Score, Verdict, required_votes


@pytest.mark.parametrize(
    ("votes", "min_votes", "value", "error"),
    [
        ([True] * 3 + [False] * 2, 3, True, False),
        ([False] * 3 + [True] * 2, 3, False, False),
        ([True, True, False, False, None], 3, None, True),  # no side reaches 3
        ([True, True, True, None, None], 3, True, False),  # unreadable rounds vote for nothing
        ([True, True, None, None, None], 3, None, True),
        ([True, True, True, True, False], 4, True, False),
        ([True, True, True, False, False], 4, None, True),
        ([True], 3, True, False),  # one round: min_votes is capped at the rounds
        ([None], 3, None, True),
        ([True, False], None, None, True),  # a tie is no majority
        ([True, True, False, False], 3, None, True),
    ],
)
def test_verdict_majority(votes, min_votes, value, error):
    v = Verdict.from_votes(votes, [str(x) for x in votes], min_votes=min_votes)
    assert v.value is value and v.error is error
    assert bool(v) is (value is True)
    assert v.raw == [str(x) for x in votes] and v.votes == votes


def test_required_votes():
    assert required_votes(5) == 3 and required_votes(5, 3) == 3 and required_votes(5, 1) == 3
    assert required_votes(1, 3) == 1 and required_votes(4, 3) == 3 and required_votes(2) == 2


def test_score_mean_and_std_of_readable_rounds():
    s = Score.from_scores([2, 1, 2, None, 1], ["2", "1", "2", "x", "1"])
    assert s.mean == pytest.approx(1.5) and s.std == pytest.approx(0.5) and s.errors == 1 and not s.error
    bad = Score.from_scores([2, None, None, None, 1], ["2", "?", "?", "?", "1"])
    assert bad.mean is None and bad.std is None and bad.errors == 3 and bad.error
    assert Score.from_scores([2.0], ["2"]).mean == 2.0
    assert Score.from_scores([], []).error


def test_choice_plurality():
    c = Choice.from_votes([1, 1, 2, None, 1], ["B", "B", "C", "?", "B"])
    assert c.value == 1 and not c.error and c.is_correct(1) and not c.is_correct(2)
    tie = Choice.from_votes([1, 2], ["B", "C"])
    assert tie.error and tie.value is None and not tie.is_correct(1)
    none = Choice.from_votes([-1], ["None"])
    assert none.value == -1 and not none.error and not none.is_correct(0)


def test_decided_verdict_has_no_rounds():
    v = Verdict.decided(False, "no predicted term")
    assert v.value is False and v.votes == [] and not v.error and v.raw == ["no predicted term"]
