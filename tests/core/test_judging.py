"""core/judging.py: core scoring gets its judge handed in, or from the provider the judge layer installs."""

from __future__ import annotations

import pytest

import ambi_plugin.judge as J
from ambi_plugin.core import judging
from ambi_plugin.core.scoring import score_item

OPEN = {
    "id": "o1",
    "benchmark": "b",
    "category": "c",
    "task_type": "open",
    "views_positional": False,
    "views": [{"name": "a", "labels": ["cat"]}],
}


def test_the_judge_package_installs_the_default_provider():
    assert judging.judge_provider() is J.default_judge_for


def test_a_judge_handed_in_is_used_and_no_provider_is_needed():
    class Always:
        backend_name, model = "fake", "m"

        def set_match(self, gold, predicted):
            from ambi_plugin.judge.voting import Verdict

            return Verdict(True, raw=["yes"])

    old = judging.set_judge_provider(None)
    try:
        item = score_item(OPEN, "dog", judge=Always())
        assert item["correct"] is True and item["judge"]["backend"] == "fake"
        with pytest.raises(judging.NoJudgeError):
            score_item(OPEN, "dog")
    finally:
        judging.set_judge_provider(old)
