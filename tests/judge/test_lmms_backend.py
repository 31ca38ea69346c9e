"""The lmms_eval backend: lmms-eval's own judge provider (API_TYPE, OPENAI_API_URL ...) against loopback."""

from __future__ import annotations

import lmms_eval.llm_judge  # noqa: F401 - a hard dependency of the test extras
import pytest
from support.chat_server import Reply

from ambi_plugin.judge import JudgeConfigError, JudgeSettings, make_judge


@pytest.fixture
def lmms_env(monkeypatch):
    def set_url(url: str) -> None:
        monkeypatch.setenv("API_TYPE", "openai")
        monkeypatch.setenv("OPENAI_API_URL", url)  # lmms-eval's provider reads these itself
        monkeypatch.setenv("OPENAI_API_KEY", "sk-loopback")
        monkeypatch.setenv("MODEL_VERSION", "lmms-judge-model")

    return set_url


def test_uses_lmms_eval_settings(serve, lmms_env, tmp_path):
    srv = serve()
    lmms_env(srv.url)
    judge = make_judge(JudgeSettings(backend="lmms_eval", cache_path=str(tmp_path / "c.sqlite"), backoff=0.01))
    assert judge.info()["backend"] == "lmms_eval" and judge.model == "lmms-judge-model"
    assert judge.info()["api_type"] == "openai"
    v = judge.set_match(["desert", "skull"], ["desert scene", "cow skull"])
    assert v.value is True and v.raw == ["True"]
    assert srv.payloads[0]["model"] == "lmms-judge-model"
    tf = judge.correct_true_false("q", "True", "True", rounds=5)
    assert tf.value is True and len(tf.votes) == 5
    sent = srv.requests
    again = make_judge(JudgeSettings(backend="lmms_eval", cache_path=str(tmp_path / "c.sqlite")))
    assert again.correct_true_false("q", "True", "True", rounds=5).value is True
    assert srv.requests == sent  # cached


def test_server_errors_are_retried(serve, lmms_env, tmp_path):
    srv = serve(lambda prompt, n, payload: Reply(status=500) if n == 1 else "False")
    lmms_env(srv.url)
    judge = make_judge(JudgeSettings(backend="lmms_eval", cache=False, backoff=0.01, retries=3))
    v = judge.set_match(["cat"], ["dog"])
    assert v.value is False and not v.error and srv.requests >= 2


def test_unreadable_replies_count_as_judge_errors(serve, lmms_env):
    srv = serve(lambda prompt, n, payload: "dunno")
    lmms_env(srv.url)
    judge = make_judge(JudgeSettings(backend="lmms_eval", cache=False, parse_retries=1))
    v = judge.set_match(["cat"], ["dog"])
    assert v.error and v.raw == ["dunno"] and srv.requests == 2


def test_needs_a_model_name(monkeypatch):
    for var in ("MODEL_VERSION", "GPT_EVAL_MODEL_NAME"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(JudgeConfigError, match="model name"):
        make_judge(JudgeSettings(backend="lmms_eval", cache=False))


def test_unknown_provider(monkeypatch):
    monkeypatch.setenv("MODEL_VERSION", "m")
    with pytest.raises(JudgeConfigError, match="nosuch"):
        make_judge(JudgeSettings(backend="lmms_eval", api_type="nosuch", cache=False))
