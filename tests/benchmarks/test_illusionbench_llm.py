"""IllusionBench's LLM-assisted protocol through the real judge: the offline default, and the ``openai``
backend against a loopback chat server whose five replies per prompt are scripted (majority of >= 3)."""

from __future__ import annotations

import pytest
from support.chat_server import LoopbackChatServer

from ambi_plugin.benchmarks.illusionbench.llm import (
    ROUNDS,
    apply_override,
    judge_item,
    llm_metric_names,
    mc_correct_option,
    mc_question_and_options,
    score_item_llm,
)
from ambi_plugin.core.scoring import aggregate
from ambi_plugin.judge import make_judge


def _tf(rid: str, statement: str, gold: bool, cat: str = "classic", diff: str = "easy") -> dict:
    return {"id": rid, "benchmark": "illusionbench", "category": cat, "task_type": "true_false", "question": statement,
            "answer_bool": gold, "breakdown": {"image_category": cat, "difficulty": diff}}  # fmt: skip


MC = {"id": "m:mc0", "benchmark": "illusionbench", "category": "real_scene", "task_type": "choice",
      "question": "What is the man wearing?", "options": ["A dress", "A t-shirt", "A hat", "A jacket"],
      "option_style": "roman", "answer_format": "roman", "answer_index": 1,
      "breakdown": {"image_category": "real_scene", "difficulty": "hard"}}  # fmt: skip
DESC = {"id": "m:desc", "benchmark": "illusionbench", "category": "trap", "task_type": "description",
        "description": "In this picture, two arcs of different size. There is no visual illusion in the image.",
        "breakdown": {"image_category": "trap", "difficulty": "hard"}}  # fmt: skip

# statement -> the judge's five replies
SCRIPT = {
    "S-majority-right": ["1", "1", "0", "1", "0"],
    "S-majority-wrong": ["1", "0", "0", "1", "0"],
    "S-no-majority": ["1", "eh?", "0", "maybe", "1"],
    "S-false-wrong": ["0", "0", "0", "0", "0"],
    "What is the man wearing": ["0", "1", "1", "1", "1"],
    "Respondent description is": ["2", "1", "2", "2", "1"],
}


def responder(prompt: str, n: int, payload: dict) -> str:
    for key, replies in SCRIPT.items():
        if key in prompt:
            return replies[(n - 1) % ROUNDS]
    return "1"


@pytest.fixture(scope="module")
def server():
    with LoopbackChatServer(responder) as srv:
        yield srv


@pytest.fixture
def judge(server):
    server.reset_counters()
    return make_judge(backend="openai", base_url=server.url, model="qwen-plus", cache=False, parse_retries=0, retries=0)


def test_five_rounds_majority_of_three(judge, server):
    recs = [
        _tf("a", "S-majority-right", True),
        _tf("b", "S-majority-wrong", True, cat="trap"),
        _tf("c", "S-no-majority", False, cat="trap", diff="hard"),
        _tf("d", "S-false-wrong", False, diff="hard"),
    ]
    items = [score_item_llm(r, "True, I think so", judge=judge) for r in recs]
    assert [it["correct_llm"] for it in items] == [True, False, False, False]
    assert [it["judge_unscored"] for it in items] == [False, False, True, False]
    assert [it["pred_bool_llm"] for it in items] == [True, False, None, True]
    assert [sorted(map(str, it["judge_votes"])) for it in items][:2] == [["False", "False", "True", "True", "True"], ["False", "False", "False", "True", "True"]]  # fmt: skip
    assert all(len(it["judge_votes"]) == ROUNDS for it in items)
    assert server.requests == 4 * ROUNDS
    # the judge saw the paper's prompt with this item's statement, gold answer and response
    prompt = next(p for p in server.per_prompt if "S-false-wrong" in p)
    assert prompt.startswith("Given the question S-false-wrong, the correct answer is False, and the respondent")
    assert "answer is True, I think so." in prompt
    assert aggregate("acc_llm", items) == 0.25
    assert aggregate("judge_unscored_rate", items) == 0.25
    assert aggregate("fp_ratio_llm", items) == pytest.approx(1 / 2)  # FP: d; FN: b; c unscored
    assert aggregate("acc_llm_trap", items) == 0.0 and aggregate("fp_ratio_llm_hard", items) == 1.0
    # rule-based scores stay beside the judge's: the reply reads True
    assert [it["correct"] for it in items] == [True, True, False, False]


def test_multiple_choice_and_description(judge, server):
    item = score_item_llm(MC, "ii", judge=judge)
    assert item["correct_llm"] and sorted(item["judge_votes"]) == [
        False,
        True,
        True,
        True,
        True,
    ]  # rounds run in parallel
    prompt = next(p for p in server.per_prompt if "What is the man wearing" in p)
    assert mc_question_and_options(MC) in prompt and "the correct answer is the option ii. A t-shirt." in prompt
    assert prompt.endswith("Only return the result as a single digit.]")  # the paper's stray bracket, kept
    assert mc_correct_option(MC) == "ii. A t-shirt"
    desc = score_item_llm(DESC, "Two arcs, the lower one is larger.", judge=judge)
    assert desc["score_llm"] == pytest.approx(1.6) and not desc["judge_unscored"]
    items = [desc, {**desc, "score_llm": 0.0}, {**desc, "score_llm": 2.0}]
    assert aggregate("desc_score_llm", items) == pytest.approx(3.6 / 3)
    # std over items (ddof=1): deviations 0.4, -1.2, 0.8 from 1.2 -> sqrt(2.24 / 2)
    assert aggregate("desc_score_llm_std", items) == pytest.approx((2.24 / 2) ** 0.5)


def test_empty_response_is_wrong_without_asking(judge, server):
    item = judge_item(_tf("e", "S-majority-right", True), "   ", judge=judge)
    assert item == {"judge_unscored": False, "judge_votes": [], "judge_raw": ["empty response"], "correct_llm": False,
                    "pred_bool_llm": None}  # fmt: skip
    assert server.requests == 0


def test_offline_default_judge_agrees_with_the_parsers():
    rec = _tf("f", "The man is drinking from the can.", False)
    assert score_item_llm(rec, "I think it is false")["correct_llm"] is True
    assert score_item_llm(MC, "The answer is ii.")["correct_llm"] is True
    assert score_item_llm(MC, "iii")["correct_llm"] is False


def test_overrides_replace_the_verdict():
    rec = _tf("g", "x", True)
    item = {"correct_llm": False, "pred_bool_llm": False, "judge_unscored": False}
    apply_override(rec, item, {"correct": True})
    assert item == {"correct_llm": True, "pred_bool_llm": True, "judge_unscored": False, "overridden": True}
    desc = apply_override(DESC, {"score_llm": 0.0}, {"score": 2})
    assert desc["score_llm"] == 2.0
    with pytest.raises(ValueError, match="outside 0..2"):
        apply_override(DESC, {}, {"score": 3})


def test_llm_metric_names_side_by_side():
    names = llm_metric_names(_tf("h", "x", True, cat="ishihara", diff="neutral"))
    assert names[:3] == ["acc", "fp_ratio", "unparsed_rate"]
    for n in ("acc_llm", "fp_ratio_llm", "judge_unscored_rate", "acc_llm_ishihara", "fp_ratio_llm_neutral"):
        assert n in names
    assert "desc_score_llm_std" in llm_metric_names(DESC)
