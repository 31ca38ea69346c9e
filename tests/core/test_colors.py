"""Color terms and the acceptable-color matcher of RCID's filter answers (core/colors.py)."""

from __future__ import annotations

import pytest

from ambi_plugin.core.colors import answer_color, color_matches, find_color_terms, validate_color_list
from ambi_plugin.core.parsing import parse_answer

FIG1C_PIXEL = ["Gray", "Yellowish-green", "Greenish-yellow", "Green"]  # RCID Fig. 1c


@pytest.mark.parametrize(
    ("reply", "pixel", "human"),
    [
        ("Red", False, True),
        ("The uniform is red.", False, True),
        ("greenish-yellow", True, False),
        ("It looks greenish yellow to me", True, False),
        ("yellow-green", True, False),  # = yellowish-green
        ("dark green", True, False),
        ("Grey.", True, False),
        ("crimson", False, True),
        ("It appears red, although the pixels are gray.", False, True),  # several colors: the first
        ("The pixels are gray, but it looks red.", True, False),
        ("Not red; it is gray.", True, False),  # a negated term is skipped
        ("Step by step: red tints are suppressed by a green filter... Answer: gray", True, False),
        ("blue", False, False),
        ("yellow", False, False),  # "Greenish-yellow" asks for the modifier; plain "Yellow" is not listed
    ],
)
def test_figure_1c_lists(reply, pixel, human):
    term = answer_color(reply)
    assert color_matches(term, FIG1C_PIXEL) is pixel
    assert color_matches(term, ["Red"]) is human


def test_modifier_rules():
    gy = answer_color("greenish-yellow")
    assert color_matches(gy, ["yellow"]) and not color_matches(gy, ["green"])
    assert not color_matches(gy, ["yellowish-green"])
    assert [str(t) for t in find_color_terms("light bluish green and pale pink")] == ["bluish-green", "pink"]


def test_unreadable_answers_are_unparsed():
    for reply in ("I cannot tell.", "", None, "~~ (no answer) ~~"):
        assert not parse_answer(reply, "color").ok
    assert parse_answer("**Red**", "color").value == answer_color("red")


def test_validate_color_list():
    assert validate_color_list(FIG1C_PIXEL + ["Red"]) == []
    assert validate_color_list(["sparkly"]) == ["sparkly"]
