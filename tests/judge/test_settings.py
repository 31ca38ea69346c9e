"""Choosing a judge: environment > ambi config > offline default; validated on creation."""

from __future__ import annotations

import pytest

from ambi_plugin.judge import JudgeConfigError, get_judge, reset_judge, resolve_settings


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
