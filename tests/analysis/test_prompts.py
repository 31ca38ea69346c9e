"""The capture prompts and the switch decision through the offline judge."""

from __future__ import annotations

import pytest

from ambi_plugin.analysis.prompts import both_named, decide_switch, expected_labels, first_prompt, second_prompt
from ambi_plugin.judge import make_judge


@pytest.fixture(scope="module")
def judge():
    return make_judge(backend="offline")


def test_prompts_quote_the_first_answer():
    assert "bistable" not in first_prompt("bistable").lower()
    p2 = second_prompt("bistable", "a duck")
    assert "bistable" in p2 and "'a duck'" in p2
    assert "more than one scene" in second_prompt("multi-scene", "horse")
    with pytest.raises(ValueError, match="bistable"):
        first_prompt("hybrid")


def test_switch_needs_a_different_answer_matching_an_interpretation(judge):
    labels = expected_labels({"views": [{"labels": ["duck"]}, {"labels": ["rabbit"]}]})
    assert labels == ["duck", "rabbit"]
    yes = decide_switch("duck", "rabbit", labels, judge=judge)
    assert yes.switched and yes.matched == "rabbit"
    assert not decide_switch("Duck.", "duck", labels, judge=judge).switched  # same answer
    unmatched = decide_switch("duck", "table", labels, judge=judge)
    assert unmatched.differs and not unmatched.switched
    assert decide_switch("duck", "table", labels, rule="differs").switched
    assert both_named("duck", "rabbit", labels, judge=judge)
    assert not both_named("duck", "duck", labels, judge=judge)
