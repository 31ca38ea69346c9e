"""The optional extraction step (runtime/extraction.py) through a real OpenAI-compatible judge on loopback."""

from __future__ import annotations

import re

import pytest
from support.chat_server import LoopbackChatServer

from ambi_plugin.judge import JudgeSettings, make_judge
from ambi_plugin.runtime.extraction import ENV
from ambi_plugin.runtime.hooks import score_record

LETTER = {
    "id": "x1",
    "task_type": "choice",
    "answer_format": "letter",
    "option_style": "letter",
    "question": "Which red line is longer?",
    "options": ["the upper one", "the lower one", "both are the same length"],
    "answer_index": 1,
}
YES_NO = {"id": "y1", "task_type": "yes_no", "question": "Is the lower line longer?", "answer_bool": True}
LETTER_SET = {
    "id": "m1",
    "task_type": "multi_choice",
    "answer_format": "letter_set",
    "options": ["cross", "ring", "triangle", "None"],
    "answer_indices": [0, 2],
    "none_index": 3,
}
_RESPONSE = re.compile(r"\nResponse: (.*)\n\nReply with only", re.DOTALL)


def scripted(replies: dict[str, str]):
    """A judge that answers the extraction prompt by the response it shows (anything else: 'garbage')."""

    def respond(prompt: str, n: int, payload: dict) -> str:
        m = _RESPONSE.search(prompt)
        return replies.get(m.group(1) if m else "", "garbage")

    return respond


@pytest.fixture
def judge_on(tmp_path):
    servers = []

    def build(replies):
        srv = LoopbackChatServer(scripted(replies)).start()
        servers.append(srv)
        settings = JudgeSettings(backend="openai", model="extractor", base_url=srv.url, backoff=0.01, timeout=5.0,
                                 cache_path=str(tmp_path / "judge.sqlite"))  # fmt: skip
        return srv, make_judge(settings)

    yield build
    for srv in servers:
        srv.stop()


def test_off_by_default_sends_nothing(judge_on, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    srv, judge = judge_on({"I would go with the one further down": "B"})
    item = score_record(LETTER, "I would go with the one further down", judge=judge)
    assert item["parsed"] is False and item["read_by"] == "none" and "extracted" not in item
    assert srv.requests == 0


def test_an_unread_answer_is_read_by_the_judge_and_scored_by_the_task(judge_on):
    text = "I would go with the one further down"
    srv, judge = judge_on({text: "B"})
    item = score_record(LETTER, text, judge=judge, extract=True)
    assert (item["read_by"], item["extracted"], item["pred"], item["correct"]) == ("judge", "B", 1, True)
    assert item["parsed"] is True and item["response"] == text and item["extraction_raw"] == "B"
    assert srv.requests == 1
    again = score_record(LETTER, text, judge=judge, extract=True)  # cached like any judgement
    assert again["correct"] is True and srv.requests == 1


def test_rule_readings_are_never_sent_nor_overridden(judge_on):
    srv, judge = judge_on({"The answer is (A).": "B"})
    item = score_record(LETTER, "The answer is (A).", judge=judge, extract=True)
    assert (item["read_by"], item["pred"], item["correct"]) == ("rule", 0, False)
    assert srv.requests == 0


@pytest.mark.parametrize("reply", ["NONE", "garbage: I think B or C", "B, C"])
def test_none_or_an_unreadable_reply_leaves_the_answer_unread(judge_on, reply):
    text = "It is hard to say from this picture."
    srv, judge = judge_on({text: reply})
    item = score_record(LETTER, text, judge=judge, extract=True)
    assert item["read_by"] == "none" and item["parsed"] is False and item["correct"] is False
    assert item["extraction_raw"] == reply and srv.requests >= 1


def test_empty_answers_and_open_formats_are_not_sent(judge_on):
    srv, judge = judge_on({})
    assert score_record(LETTER, "   ", judge=judge, extract=True)["read_by"] == "none"
    color = {"id": "c1", "task_type": "color_naming", "question": "What color?", "pixel_colors": ["red"],
             "human_colors": ["pink"], "is_illusion": True}  # fmt: skip
    assert score_record(color, "", judge=judge, extract=True)["read_by"] == "none"
    assert srv.requests == 0


def test_yes_no_and_letter_sets(judge_on):
    text = "Looking closely, the segment at the bottom stretches further."
    srv, judge = judge_on({text: "YES", "cross and triangle": "A, C"})
    assert score_record(YES_NO, text, judge=judge)["read_by"] == "none"  # the rules do not read it
    yn = score_record(YES_NO, text, judge=judge, extract=True)
    assert (yn["read_by"], yn["pred_bool"], yn["correct"]) == ("judge", True, True)
    ms = score_record(LETTER_SET, "cross and triangle", judge=judge, extract=True)
    assert ms["read_by"] in ("rule", "judge") and ms["correct"] is True


def test_the_environment_switch(judge_on, monkeypatch):
    text = "I would go with the one further down"
    srv, judge = judge_on({text: "B"})
    monkeypatch.setenv(ENV, "1")
    assert score_record(LETTER, text, judge=judge)["read_by"] == "judge"
    monkeypatch.setenv(ENV, "0")
    assert score_record(LETTER, "something else entirely", judge=judge)["read_by"] == "none"


def test_the_offline_default_reads_nothing_the_rules_could_not():
    """Embeddings cannot tell a paraphrase from a hedge: the offline judge leaves every unread answer unread."""
    from ambi_plugin.judge.offline import OfflineJudge

    judge = OfflineJudge()
    for fmt, options, text in [
        ("letter", LETTER["options"], "I cannot tell which line is longer."),
        ("letter", LETTER["options"], "Both lines are equally long."),
        ("yes_no", [], "It seems to be so."),
    ]:
        got = judge.extract_answer(fmt, "Which red line is longer?", options, text)
        assert (got.value, got.error) == ("none", False)
    assert judge.stats()["answer_extraction_x1"] == 3
    item = score_record(LETTER, "Both lines are equally long.", judge=judge, extract=True)
    assert item["read_by"] == "none" and item["parsed"] is False
