"""Scoring glue: item scores and aggregations, on hand-made records."""

from __future__ import annotations

import math

import pytest

from ambi_plugin.core.scoring import aggregate, metric_names, score_item

# core called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")

PERC = {
    "id": "p",
    "benchmark": "b",
    "category": "c",
    "task_type": "perception",
    "options": ["A is darker", "B is darker", "They are exactly same"],
    "option_style": "roman",
    "pixel_answer_index": 2,
    "human_answer_index": 0,
    "answer_index": 2,
    "is_illusion": True,
    "prompt_kind": "pixel",
}
CTRL = {**PERC, "id": "q", "is_illusion": False, "human_answer_index": 1, "pixel_answer_index": 1, "answer_index": 1}


@pytest.mark.parametrize(
    ("resp", "outcome"), [("III", "no_illusion"), ("I", "human_like"), ("II", "na"), ("V", "na"), ("??", "unparsed")]
)
def test_perception_outcomes_on_illusion(resp, outcome):
    assert score_item(PERC, resp)["outcome"] == outcome


def test_perception_rates_hand_computed():
    items = [score_item(PERC, r) for r in ("III", "I", "I", "II")] + [score_item(CTRL, r) for r in ("II", "I")]
    assert aggregate("no_illusion_rate", items) == pytest.approx(1 / 4)
    assert aggregate("human_like_rate", items) == pytest.approx(2 / 4)
    assert aggregate("na_rate", items) == pytest.approx(1 / 4)
    assert aggregate("control_acc", items) == pytest.approx(1 / 2)
    assert aggregate("acc", items) == pytest.approx(2 / 6)


def test_fp_ratio_through_scoring():
    tf = {"id": "t", "benchmark": "b", "category": "c", "task_type": "true_false"}
    golds = [True, True, False, False, False]
    resps = ["False", "True", "True", "True", "False"]  # FN, TP, FP, FP, TN
    items = [score_item({**tf, "answer_bool": g}, r) for g, r in zip(golds, resps)]
    assert aggregate("fp_ratio", items) == pytest.approx(2 / 3)
    assert aggregate("acc", items) == pytest.approx(2 / 5)
    assert math.isnan(aggregate("fp_ratio", items[1:2]))


def test_metric_names_follow_views():
    rec = {
        "id": "h",
        "benchmark": "b",
        "category": "c",
        "task_type": "open",
        "views": [{"name": "near", "labels": ["x"]}, {"name": "far", "labels": ["y"]}],
    }
    assert metric_names(rec) == ["acc", "acc_near", "acc_far", "unparsed_rate", "unparsed", "judge_errors"]
    assert metric_names({**rec, "views_positional": False}) == ["acc", "unparsed_rate", "unparsed", "judge_errors"]


def test_unordered_open_needs_every_label():
    rec = {
        "id": "u",
        "benchmark": "b",
        "category": "c",
        "task_type": "open",
        "views_positional": False,
        "views": [{"name": "a", "labels": ["face"]}, {"name": "b", "labels": ["vase"]}],
    }
    assert score_item(rec, "vase, face")["correct"] is True
    assert score_item(rec, "vase")["correct"] is False


def test_unknown_metric_message():
    with pytest.raises(KeyError, match="Expected a metric in"):
        aggregate("bleu", [])


def test_every_task_type_has_one_scorer_and_a_metric_list():
    from ambi_plugin.core.schema import TASK_TYPES
    from ambi_plugin.core.scoring import METRICS_BY_TYPE, SCORERS

    assert set(SCORERS) == set(TASK_TYPES)
    assert set(METRICS_BY_TYPE) == set(TASK_TYPES)
