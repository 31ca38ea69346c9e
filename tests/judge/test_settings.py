"""Choosing a judge: environment > ambi config > offline default; validated on creation."""

from __future__ import annotations

import json

import pytest

from ambi_plugin.judge import JudgeConfigError, JudgeSettings, get_judge, reset_judge, resolve_settings


def _config(tmp_path, monkeypatch, text: str):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    monkeypatch.setenv("AMBI_CONFIG", str(path))
    return path


def test_default_is_offline(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "absent.yaml"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # a key alone never selects a network judge
    s = resolve_settings()
    assert s.backend == "offline" and s.rounds == 1
    assert get_judge().info()["backend"] == "offline"


def test_config_file_then_environment(monkeypatch, tmp_path):
    _config(tmp_path, monkeypatch, "judge:\n  backend: openai\n  model: from-config\n  rounds: 5\n  timeout: 7\n")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    s = resolve_settings()
    assert (s.backend, s.model, s.rounds, s.timeout) == ("openai", "from-config", 5, 7.0)
    assert s.base_url == "http://127.0.0.1:9/v1"  # OPENAI_* fills what is missing
    monkeypatch.setenv("AMBI_JUDGE_MODEL", "from-env")
    monkeypatch.setenv("AMBI_JUDGE_BASE_URL", "http://127.0.0.1:10/v1")
    monkeypatch.setenv("AMBI_JUDGE_ROUNDS", "3")
    s = resolve_settings()
    assert (s.model, s.base_url, s.rounds) == ("from-env", "http://127.0.0.1:10/v1", 3)
    assert resolve_settings(rounds=2).rounds == 2  # keyword overrides win


def test_api_key_from_named_variable_and_hidden(monkeypatch, tmp_path):
    _config(tmp_path, monkeypatch, "judge:\n  backend: openai\n  model: m\n  api_key_env: MY_JUDGE_KEY\n")
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-secret")
    s = resolve_settings()
    assert s.api_key == "sk-secret" and s.public()["api_key"] == "***"


def test_get_judge_is_cached_per_process(monkeypatch, tmp_path):
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "absent.yaml"))
    assert get_judge() is get_judge()
    reset_judge()
    monkeypatch.setenv("AMBI_JUDGE_ROUNDS", "4")
    assert get_judge().settings.rounds == 4


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"AMBI_JUDGE_BACKEND": "gpt"}, "to be one of"),
        ({"AMBI_JUDGE_BACKEND": "openai"}, "needs a model"),
        ({"AMBI_JUDGE_BACKEND": "hf"}, "needs a model"),
        ({"AMBI_JUDGE_ROUNDS": "zero"}, "AMBI_JUDGE_ROUNDS"),
        ({"AMBI_JUDGE_ROUNDS": "0"}, "at least 1"),
    ],
)
def test_bad_settings_fail_clearly(monkeypatch, tmp_path, env, message):
    monkeypatch.setenv("AMBI_CONFIG", str(tmp_path / "absent.yaml"))
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(JudgeConfigError, match=message):
        resolve_settings()


def test_unknown_config_key_names_file_and_suggests(monkeypatch, tmp_path):
    path = _config(tmp_path, monkeypatch, "judge:\n  backend: offline\n  round: 5\n")
    with pytest.raises(JudgeConfigError, match=r"did you mean 'rounds'") as err:
        resolve_settings()
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://user:s3cret@judge.local:8000/v1", "http://***@judge.local:8000/v1"),
        ("https://tok3n@judge.local/v1", "https://***@judge.local/v1"),
        (
            "https://h/v1?api-version=2024-02-01&api_key=s3cret&access_token=s3cret",
            "https://h/v1?api-version=2024-02-01&api_key=***&access_token=***",
        ),
        ("http://h/v1?sig=s3cret#s3cret", "http://h/v1?sig=***#***"),
        ("http://localhost:8000/v1", "http://localhost:8000/v1"),
        (None, None),
    ],
)
def test_recorded_settings_strip_url_credentials(url, shown):
    from ambi_plugin.judge.settings import redact_url

    assert redact_url(url) == shown
    if url:
        public = JudgeSettings(backend="openai", model="m", base_url=url, api_key="s3cret").public()
        assert public["base_url"] == shown and "s3cret" not in json.dumps(public)


def test_a_judge_with_url_credentials_records_none_of_them(serve):
    from ambi_plugin.judge import make_judge

    srv = serve(lambda prompt, n, payload: "True")
    host = srv.url.split("://", 1)[1]
    judge = make_judge(JudgeSettings(backend="openai", model="m", base_url=f"http://me:s3cret@{host}?token=s3cret"))
    assert judge.set_match(["a cat"], ["a cat"]) is not None  # the request still reaches the server
    info = json.dumps(judge.info())
    assert "s3cret" not in info and f"http://***@{host}?token=***" in info
