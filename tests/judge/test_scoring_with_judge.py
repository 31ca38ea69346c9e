"""Every judge-based item score goes through the judge and records it; judge errors are counted."""

from __future__ import annotations

import pytest
from support.chat_server import oracle_responder

from ambi_plugin.core.matching import OfflineMatcher
from ambi_plugin.core.scoring import aggregate, metric_names, score_item
from ambi_plugin.judge import get_judge, set_judge

# core called directly with no judge: the judge layer's default, installed explicitly (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("default_judge_provider")

HYBRID = {
    "id": "h1",
    "benchmark": "b",
    "category": "hybrid",
    "task_type": "open",
    "answer_format": "comma_list",
    "views": [{"name": "near", "labels": ["shark"]}, {"name": "far", "labels": ["panda"]}],
}
REGION = {
    "id": "r1",
    "benchmark": "b",
    "category": "multiscene",
    "task_type": "region",
    "answer_format": "layers",
    "views": [{"name": "layer1", "labels": ["bones"]}, {"name": "layer2", "labels": ["teeth of skull"]}],
}
DESC = {
    "id": "d1",
    "benchmark": "b",
    "category": "c",
    "task_type": "description",
    "description": "Two parallel arcs of different size. There is no visual illusion.",
    "key_terms": ["arc"],
    "conflict_terms": ["identical"],
}


def test_default_is_the_configured_offline_judge():
    item = score_item(HYBRID, "shark, panda")
    assert item["correct"] is True and item["views"] == {"near": True, "far": True}
    j = item["judge"]
    assert (j["backend"], j["rounds"], j["judgements"], j["error"]) == ("offline", 1, 2, False)
    assert j["raw"] == ["True (lexicon)", "True (lexicon)"] and j["model"] == get_judge().model
    assert "judge_errors" in metric_names(HYBRID)


def test_one_judgement_per_view_and_partial_answers_are_wrong():
    item = score_item(HYBRID, "shark, mushroom")
    assert item["correct"] is False and item["views"] == {"near": True, "far": False}
    assert score_item(REGION, "bones; mouth with teeth")["correct"] is True


def test_unparsed_response_needs_no_judgement():
    item = score_item(HYBRID, "")
    assert item["parsed"] is False and item["judge"]["judgements"] == 0 and item["judge"]["rounds"] == 0


def test_description_through_the_judge():
    assert score_item(DESC, "Two arcs, one larger.")["score"] == 2.0
    item = score_item(DESC, "Two identical arcs.")
    assert item["score"] == 0.0 and item["judge"]["raw"] == ["0 (conflict term 'identical')"]


def test_explicit_matcher_still_works():
    item = score_item(HYBRID, "shark, panda", matcher=OfflineMatcher())
    assert item["correct"] is True and item["judge"]["model"] == "matcher:OfflineMatcher"


def test_llm_judge_verdicts_and_errors(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "unsure" if "mushroom" in prompt else oracle_responder(prompt, n, payload))
    judge = llm_judge(srv, parse_retries=1)
    good = score_item(HYBRID, "shark, panda", judge=judge)
    bad = score_item(HYBRID, "shark, mushroom", judge=judge)
    assert good["correct"] is True and good["judge"]["backend"] == "openai" and not good["judge"]["error"]
    assert bad["correct"] is False and bad["judge"]["error"] is True and bad["judge"]["raw"] == ["True", "unsure"]
    assert aggregate("judge_errors", [good, bad]) == 1.0 and aggregate("acc", [good, bad]) == 0.5
    assert aggregate("acc_near", [good, bad]) == 1.0


def test_score_item_uses_the_process_judge(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "2" if prompt.startswith("Respondent") else "True")
    set_judge(llm_judge(srv))
    item = score_item({**DESC, "key_terms": [], "conflict_terms": []}, "Two identical arcs.")
    assert item["score"] == 2.0 and item["judge"]["rounds"] == 5 and srv.requests == 5  # IllusionBench: 5 rounds
    assert score_item(HYBRID, "a, b")["judge"]["backend"] == "openai"
