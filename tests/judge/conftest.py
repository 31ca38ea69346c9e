"""Fixtures of the judge tests: a loopback chat server, an isolated cache, a clean judge registry."""

from __future__ import annotations

import pytest
from support.chat_server import LoopbackChatServer

from ambi_plugin.judge import JudgeSettings, make_judge, reset_judge


@pytest.fixture(autouse=True)
def _fresh_registry(monkeypatch):
    for var in ("AMBI_JUDGE_BACKEND", "AMBI_JUDGE_MODEL", "AMBI_JUDGE_BASE_URL", "AMBI_JUDGE_API_KEY", "AMBI_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    reset_judge()
    yield
    reset_judge()


@pytest.fixture
def serve():
    """``serve(responder, latency=...)`` starts a loopback server that is stopped after the test."""
    servers = []

    def start(responder=None, **kw) -> LoopbackChatServer:
        srv = LoopbackChatServer(responder, **kw).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.stop()


@pytest.fixture
def llm_judge(tmp_path):
    """``llm_judge(server, **settings)``: an openai-backend judge on the server, cache in tmp_path."""

    def build(server, **kw):
        opts = {"backend": "openai", "model": "judge-model", "base_url": server.url, "backoff": 0.01, "timeout": 5.0}
        opts.setdefault("cache_path", str(tmp_path / "judge.sqlite"))
        opts.update(kw)
        return make_judge(JudgeSettings(**opts))

    return build
