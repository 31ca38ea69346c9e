"""A judge cannot take a run down: a huge reply is bounded in what is read and what is stored, and a judge that
accepts and never answers is given up on after a few timeouts in a row (issue 30, items 9 and 10). Real HTTP on
loopback."""

from __future__ import annotations

import json
import re
import socket
import sqlite3
import time

import pytest
from support.chat_server import Reply

from ambi_plugin.core.scoring import score_item
from ambi_plugin.judge.verdicts import STORED_CHARS

Q = "There is a visual illusion in the image."
HYBRID = {"id": "h1", "benchmark": "b", "category": "hybrid", "task_type": "open", "answer_format": "comma_list",
          "views": [{"name": "near", "labels": ["shark"]}, {"name": "far", "labels": ["panda"]}]}  # fmt: skip


def _stored_lengths(path) -> list[int]:
    with sqlite3.connect(path) as db:
        return [n for (n,) in db.execute("SELECT length(reply) FROM replies")]


def test_a_long_reply_is_read_as_before_and_stored_bounded(serve, llm_judge, tmp_path):
    """350,000 characters (a long think block, then chatter, then the verdict): the verdict is read, the cache and the
    item's samples keep the last 16,000 characters after a note that says the reply was cut."""
    long_reply = "<think>" + "hmm " * 75_000 + "</think> Comparing the sets: " + "ok " * 16_000 + "True"
    srv = serve(lambda prompt, n, payload: long_reply)
    judge = llm_judge(srv)
    item = score_item(HYBRID, "shark, panda", judge=judge)
    assert item["correct"] is True and not item["judge"]["error"]
    raws = item["judge"]["raw"]
    note = f"<think>[ambi-plugin: reply of {len(long_reply)} characters cut to its last 15840 (think blocks dropped"
    assert len(raws) == 2 and all(r.startswith(note) for r in raws)
    assert all(len(r) <= STORED_CHARS and r.endswith("ok True") for r in raws)
    assert len(json.dumps(item)) < 2 * STORED_CHARS + 2000  # what lmms-eval logs for the item
    assert judge.stats()["replies_cut"] == 2
    assert _stored_lengths(tmp_path / "judge.sqlite") == [len(raws[0])] * 2
    again = llm_judge(srv)  # a rerun reads the same verdicts from the cache, sends nothing
    requests = srv.requests
    assert score_item(HYBRID, "shark, panda", judge=again)["judge"]["raw"] == raws and srv.requests == requests


def test_a_reply_body_over_the_limit_is_not_read(serve, llm_judge, monkeypatch):
    """Lowered by its variable to 50 KB: a 1 MB reply is refused, not retried (the same request would get the
    same), not cached; the round is a judge error saying why."""
    from ambi_plugin.judge import JudgeSettings
    from ambi_plugin.judge.settings import resolve_settings

    monkeypatch.setenv("AMBI_JUDGE_MAX_REPLY_MB", "0.05")
    settings = resolve_settings(backend="openai", model="judge-model", base_url="http://127.0.0.1:9/v1")
    assert settings.max_reply_mb == 0.05 and JudgeSettings().max_reply_mb == 4.0
    srv = serve(lambda prompt, n, payload: "x " * 500_000 + "1")
    judge = llm_judge(srv, max_reply_mb=settings.max_reply_mb)
    v = judge.correct_true_false(Q, "True", "True", rounds=1)
    assert v.error and v.value is None and srv.requests == 1 and len(judge.cache) == 0
    assert re.match(
        r"<no reply: reply too long: 100\d{4} bytes from http://127\.0\.0\.1:\d+/v1, over the limit of 0\.05 MB",
        v.raw[0],
    )
    assert "AMBI_JUDGE_MAX_REPLY_MB" in v.raw[0] and judge.stats()["backend_replies_over_limit"] == 1


def test_a_20_megabyte_reply_is_refused_by_the_default_limit_from_its_header(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "1" * 20_000_000)
    judge = llm_judge(srv)
    v = judge.correct_true_false(Q, "True", "True", rounds=1)
    assert v.error and re.match(r"<no reply: reply too long: 2000\d{4} bytes .* over the limit of 4 MB", v.raw[0])
    assert srv.requests == 1


@pytest.fixture
def silent_server():
    """A server that accepts connections (the kernel completes them) and never reads or answers."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    sock.close()


def test_a_judge_that_never_answers_is_given_up_on_after_n_timeouts(silent_server, tmp_path, capsys):
    from ambi_plugin.judge import JudgeSettings, make_judge

    settings = JudgeSettings(backend="openai", model="judge-model", base_url=silent_server, timeout=0.2,
                             retries=5, backoff=0.01, max_concurrency=1, max_consecutive_timeouts=3,
                             cache_path=str(tmp_path / "judge.sqlite"))  # fmt: skip
    judge = make_judge(settings)
    start = time.monotonic()
    verdicts = [judge.correct_true_false(f"{Q} ({k})", "True", "True", rounds=1) for k in range(8)]
    elapsed = time.monotonic() - start
    assert elapsed < 4.0, elapsed  # without the breaker: 8 judgements x 6 tries x 0.2 s, and backoffs
    reason = (
        f"judge stopped: the judge at {silent_server} (model 'judge-model') timed out 3 times in a row (0.2 s each)"
    )
    assert all(v.error and v.value is None and v.raw[0].startswith(f"<no reply: {reason}") for v in verdicts[1:])
    assert verdicts[0].error
    stats = judge.stats()
    assert stats["backend_requests"] == 3 and stats["backend_timeouts"] == 3 and stats["errors"] == 8
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "judge stopped" in ln]
    assert lines == [f"ambi-plugin: {reason}, so no more requests are sent this run; every judgement left is a judge "
                     "error (AMBI_JUDGE_MAX_CONSECUTIVE_TIMEOUTS=3; check the server, or raise AMBI_JUDGE_TIMEOUT)"]  # fmt: skip


def test_timeouts_between_answers_never_stop_the_judge(serve, llm_judge):
    """Two timeouts, then an answer, for each prompt: never three in a row, so every verdict is read."""
    srv = serve(lambda prompt, n, payload: Reply(text="1", delay=1.0) if n <= 2 else "1")
    judge = llm_judge(srv, timeout=0.3, retries=3, max_concurrency=1, max_consecutive_timeouts=3)
    verdicts = [judge.correct_true_false(f"{Q} ({k})", "True", "True", rounds=1) for k in range(3)]
    assert all(v.value is True and not v.error for v in verdicts)
    assert judge.stats()["backend_timeouts"] == 6


@pytest.mark.parametrize(
    "reply",
    [
        "<think>" + "a " * 20_000 + "</think>True",
        "x " * 20_000 + "<think>unclosed " + "y " * 5_000 + " False",
        "<think>one</think>" + "1 " * 10_000 + "<think>two</think> 0",
        "**Answer** " * 3_000 + "`B`",
        "</think>" * 5_000 + "2",
        "no " * 9_000 + "yes",
    ],
    ids=["think-then-verdict", "unclosed-think", "two-blocks", "markdown", "closing-tags", "many-words"],
)
def test_a_cut_reply_reads_as_the_whole_reply(reply):
    from ambi_plugin.judge.verdicts import (
        bound_reply,
        read_binary_digit,
        read_option,
        read_rating,
        read_true_false,
    )

    cut, was_cut = bound_reply(reply)
    assert was_cut and len(cut) <= STORED_CHARS and bound_reply(cut) == (cut, False)
    for read in (read_true_false, read_binary_digit, read_rating, lambda r: read_option(r, 4)):
        assert read(cut) == read(reply)
