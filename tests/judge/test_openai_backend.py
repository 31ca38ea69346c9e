"""The openai backend against a real HTTP server on loopback: retries, voting, errors, concurrency, cache."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from support.chat_server import Reply

from ambi_plugin.judge import FatalJudgeError
from ambi_plugin.judge import templates as T

Q = "There is a visual illusion in the image."


def test_request_shape_and_verdict(serve, llm_judge):
    srv = serve()
    judge = llm_judge(srv, temperature=0.0, max_tokens=8, api_key="sk-x")
    v = judge.set_match(["desert", "skull"], ["desert scene", "cow skull"])
    assert v.value is True and v.raw == ["True"] and v.votes == [True] and not v.error
    payload = srv.payloads[0]
    assert payload["model"] == "judge-model" and payload["temperature"] == 0.0 and payload["max_tokens"] == 8
    assert "Set 1: desert, skull\nSet 2: desert scene, cow skull" in payload["messages"][0]["content"]
    assert judge.set_match(["skull"], ["abstract shapes"]).value is False


@pytest.mark.parametrize(
    "failure",
    [
        Reply(status=500, text="boom"),
        Reply(status=503),
        Reply(status=429, headers={"Retry-After": "0"}),
        Reply(text="1", delay=30.0),  # far longer than the client's timeout: a timeout on any machine
        Reply(body=b"{not json"),
    ],
    ids=["500", "503", "429", "timeout", "malformed"],
)
def test_transient_failures_are_retried(serve, llm_judge, failure):
    def responder(prompt, n, payload):
        return failure if n <= 2 else "1"

    srv = serve(responder)
    # a reply that comes has 5 s to come (a loaded machine answers loopback in far less); only the stalled one of
    # the timeout case waits for the 2 s timeout (a 0.3 s timeout let a slow good reply count as a timeout)
    judge = llm_judge(srv, timeout=2.0 if failure.delay else 5.0, retries=3)
    v = judge.correct_true_false(Q, "True", "True", rounds=1)
    assert v.value is True and not v.error
    assert srv.requests == 3
    assert judge.stats()["backend_retries"] == 2


def test_retries_exhausted_is_a_judge_error_and_not_cached(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: Reply(status=500))
    judge = llm_judge(srv, retries=2)
    v = judge.correct_true_false(Q, "True", "True", rounds=1)
    assert v.error and v.value is None and v.raw[0].startswith("<no reply: gave up after 3 attempts")
    assert srv.requests == 3
    assert len(judge.cache) == 0  # no reply, nothing to remember: the next run asks again


def test_unreadable_replies_are_retried_then_counted(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "I think the respondent is probably right")
    judge = llm_judge(srv, parse_retries=2)
    v = judge.correct_true_false(Q, "True", "True", rounds=1)
    assert v.error and v.value is None and v.raw == ["I think the respondent is probably right"]
    assert srv.requests == 3  # one request and two retries
    assert judge.stats()["errors"] == 1 and judge.stats()["unreadable_replies"] == 3


def test_a_retry_can_rescue_an_unreadable_reply(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "hmm" if n == 1 else "0")
    v = llm_judge(srv, parse_retries=1).correct_true_false(Q, "True", "False", rounds=1)
    assert v.value is False and not v.error and v.raw == ["0"] and srv.requests == 2


@pytest.mark.parametrize(
    ("replies", "value", "error"),
    [
        (["1", "1", "1", "0", "0"], True, False),
        (["0", "0", "0", "1", "1"], False, False),
        (["1", "1", "0", "0", "?"], None, True),  # 2 / 2 / unreadable: no side has 3 votes
        (["1", "1", "1", "?", "?"], True, False),
    ],
)
def test_five_round_majority(serve, llm_judge, replies, value, error):
    srv = serve(lambda prompt, n, payload: replies[n - 1])
    judge = llm_judge(srv, parse_retries=0)
    v = judge.correct_multiple_choice("Which?\ni. a\nii. b", "ii. b", "ii", rounds=5, min_votes=3)
    assert (v.value, v.error) == (value, error)
    assert sorted(v.raw) == sorted(replies) and len(v.votes) == 5 and srv.requests == 5


def test_description_mean_over_rounds(serve, llm_judge):
    replies = ["2", "1", "2", "2", "1"]
    srv = serve(lambda prompt, n, payload: replies[n - 1])
    s = llm_judge(srv).description_score("two arcs", "two parallel arcs", rounds=5)
    assert s.mean == pytest.approx(1.6) and s.std == pytest.approx(0.4899, abs=1e-4) and s.errors == 0


def test_mcq_match(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "B" if "Response: I see six" in prompt else "None")
    judge = llm_judge(srv)
    assert judge.mcq_match("How many fingers?", ["5", "6", "Not Sure"], "I see six").value == 1
    assert judge.mcq_match("How many fingers?", ["5", "6", "Not Sure"], "no idea").value == -1


def test_concurrency_is_bounded(serve, llm_judge):
    # the first 4 requests are held until all 4 are in flight: the bound is reached on a busy machine too (with a
    # fixed latency, slow client threads could leave fewer than 4 overlapping), and a 5th request would arrive
    # while they are held if the bound let it
    held = threading.Barrier(4, timeout=120)

    def responder(prompt, n, payload):
        if srv.requests <= 4:
            held.wait()
        return "True"

    srv = serve(responder, latency=0.05)
    judge = llm_judge(srv, max_concurrency=4)
    with ThreadPoolExecutor(16) as pool:
        verdicts = list(pool.map(lambda i: judge.set_match([f"thing{i}"], [f"thing{i}"]), range(16)))
    assert all(v.value for v in verdicts)
    assert srv.requests == 16 and srv.max_inflight == 4


def test_identical_requests_in_flight_are_sent_once(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "False", latency=0.2)
    judge = llm_judge(srv, max_concurrency=8)
    with ThreadPoolExecutor(8) as pool:
        verdicts = list(pool.map(lambda i: judge.set_match(["cat"], ["xylophone"]), range(8)))
    assert all(v.value is False for v in verdicts)
    assert srv.requests == 1


def test_second_identical_run_sends_zero_requests(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: ["1", "0", "1", "1", "?"][(n - 1) % 5], latency=0.01)
    items = [(f"statement {i}", "True", "True" if i % 2 else "False") for i in range(20)]

    def run(judge):
        with ThreadPoolExecutor(6) as pool:
            return list(pool.map(lambda it: judge.correct_true_false(*it, rounds=5), items))

    first = run(llm_judge(srv, parse_retries=0))
    sent = srv.requests
    assert sent == 100
    srv.reset_counters()
    second = run(llm_judge(srv, parse_retries=0))  # a new judge (a new process would do the same)
    assert srv.requests == 0
    assert [(v.value, v.error, sorted(v.raw)) for v in first] == [(v.value, v.error, sorted(v.raw)) for v in second]


def test_cached_errors_are_reproduced_until_cleared(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: "garbage" if n <= 2 else "1")
    judge = llm_judge(srv, parse_retries=1)
    assert judge.correct_true_false(Q, "True", "True", rounds=1).error
    assert srv.requests == 2
    assert llm_judge(srv, parse_retries=1).correct_true_false(Q, "True", "True", rounds=1).error
    assert srv.requests == 2  # cached: no new request
    assert judge.cache.clear(errors_only=True) == 1
    assert llm_judge(srv, parse_retries=1).correct_true_false(Q, "True", "True", rounds=1).value is True
    assert srv.requests == 3


def test_wrong_credentials_stop_at_once(serve, llm_judge):
    srv = serve(lambda prompt, n, payload: Reply(status=401, text="invalid api key"))
    judge = llm_judge(srv)
    with pytest.raises(FatalJudgeError, match=r"HTTP 401.*judge-model.*invalid api key"):
        judge.set_match(["cat"], ["dog"])
    assert srv.requests == 1


def test_unreachable_server_is_a_transport_error(llm_judge, serve):
    srv = serve()
    url = srv.url
    srv.stop()
    judge = llm_judge(type("S", (), {"url": url})(), retries=1, timeout=0.5)
    v = judge.set_match(["cat"], ["dog"])
    assert v.error and v.raw[0].startswith("<no reply")


def test_info_names_backend_model_rounds_templates(serve, llm_judge):
    srv = serve()
    judge = llm_judge(srv, rounds=3)
    judge.set_match(["cat"], ["cat"])
    judge.correct_true_false("q", "True", "True", rounds=5)
    info = judge.info()
    assert (info["backend"], info["model"], info["rounds"]) == ("openai", "judge-model", 3)
    assert info["rounds_used"] == {"ambibench_set_match": {"3": 1}, "illusionbench_true_false": {"5": 1}}
    assert info["base_url"] == srv.url and info["templates"] == T.template_hashes()
    assert info["settings"]["api_key"] is None


def test_thread_safety_under_load(serve, llm_judge):
    """Many threads, shared judge, mixed hits and misses: every verdict is the scripted one."""
    srv = serve(lambda prompt, n, payload: "True" if "Set 2: even" in prompt else "False", latency=0.002)
    judge = llm_judge(srv, max_concurrency=8)
    errors = []

    def work(i):
        try:
            v = judge.set_match(["x"], ["even" if i % 2 == 0 else "odd", f"n{i % 10}"])
            assert v.value is (i % 2 == 0)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)  # a hang fails here, named; no wall-clock bound on a busy machine
    assert not [t for t in threads if t.is_alive()], "judge threads still running after 600 s"
    assert not errors
    assert srv.requests == 10  # 10 distinct prompts, each asked once
