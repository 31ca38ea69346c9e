"""Reading judge replies: the value, or None (unreadable) rather than a guess."""

from __future__ import annotations

import pytest

from ambi_plugin.judge.verdicts import read_binary_digit, read_option, read_rating, read_true_false


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("True", True),
        ("False", False),
        ("false.", False),
        ("**True**", True),
        ("The answer is True", True),
        ("<think>Set 1 has desert. False? no...</think>True", True),
        ("1", True),
        ("0", False),
        ("Yes", True),
        ("True or False: unsure", None),
        ("It is not true", None),
        ("maybe", None),
        ("", None),
        (None, None),
        ("True, although one could argue False", None),
    ],
)
def test_read_true_false(reply, expected):
    assert read_true_false(reply) is expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("1", True),
        ("0", False),
        ("0.", False),
        ("Result: 1", True),
        ("correct", True),
        ("incorrect", False),
        ("10", None),
        ("1 or 0", None),
        ("the respondent is right", None),
        ("", None),
    ],
)
def test_read_binary_digit(reply, expected):
    assert read_binary_digit(reply) is expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [("2", 2.0), ("1", 1.0), ("0", 0.0), ("Rate: 2", 2.0), ("3", None), ("1 or 2", None), ("two", None), ("", None)],
)
def test_read_rating(reply, expected):
    assert read_rating(reply) == expected


@pytest.mark.parametrize(
    ("reply", "n", "expected"),
    [
        ("B", 4, 1),
        ("(c)", 4, 2),
        ("Answer: D", 4, 3),
        ("None", 4, -1),
        ("none.", 4, -1),
        ("E", 4, None),
        ("A or B", 4, None),
        ("the second one", 4, None),
        ("", 4, None),
    ],
)
def test_read_option(reply, n, expected):
    assert read_option(reply, n) == expected
