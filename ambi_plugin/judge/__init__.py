"""Judges for every judge-based metric: the papers' prompts, four backends, voting, a persistent cache.

    from ambi_plugin.judge import get_judge
    judge = get_judge()                       # configured once per process (see settings.py), thread-safe
    judge.set_match(["desert", "skull"], ["desert scene", "cow skull"]).value    # True

Backends: ``offline`` (default; lexicon + sentence embeddings, deterministic, no network), ``openai``
(any OpenAI-compatible chat API), ``lmms_eval`` (lmms-eval's own judge providers), ``hf`` (a local
transformers causal LM). See ``docs/judges.md``.
"""

from __future__ import annotations

import threading
from typing import Any

from ambi_plugin.judge.base import Judge
from ambi_plugin.judge.cache import JudgeCache
from ambi_plugin.judge.settings import BACKENDS, JudgeConfigError, JudgeSettings, resolve_settings
from ambi_plugin.judge.templates import TEMPLATES, template_hashes
from ambi_plugin.judge.transport import FatalJudgeError
from ambi_plugin.judge.voting import Choice, Score, Verdict

_judge: Judge | None = None
_judge_lock = threading.Lock()


def make_judge(settings: JudgeSettings | None = None, **overrides: Any) -> Judge:
    """A new judge for ``settings`` (default: :func:`resolve_settings` with ``overrides``)."""
    settings = settings or resolve_settings(**overrides)
    if settings.backend == "offline":
        from ambi_plugin.judge.offline import OfflineJudge

        return OfflineJudge(settings)
    from ambi_plugin.judge.backends import backend_class
    from ambi_plugin.judge.llm import LLMJudge

    backend_cls = backend_class(settings.backend if settings.backend in ("openai", "lmms_eval") else "hf")

    cache = JudgeCache(settings.cache_path) if settings.cache else None
    return LLMJudge(settings, backend_cls(settings), cache)


def get_judge() -> Judge:
    """The configured judge, built on first use and shared by every thread of the process."""
    global _judge
    with _judge_lock:
        if _judge is None:
            _judge = make_judge()
        return _judge


def set_judge(judge: Judge | None) -> None:
    """Install ``judge`` as the process's judge (None: the next ``get_judge()`` resolves the settings again)."""
    global _judge
    with _judge_lock:
        _judge = judge


def reset_judge() -> None:
    set_judge(None)


def current_judge() -> Judge | None:
    """The judge built so far in this process, or None (does not build one)."""
    return _judge


def default_judge_for(matcher: Any = None) -> Judge:
    """The default judge of a run that was given none (``ambi_plugin.runtime.run_state``; a judge provider core
    scoring can be handed): an offline judge using ``matcher`` when one is given, else the process's configured
    judge (:func:`get_judge`, built on first call). Importing this package installs nothing."""
    if matcher is not None:  # a core Matcher alone decides set matches (tests, custom matchers)
        from ambi_plugin.judge.offline import OfflineJudge

        return OfflineJudge(matcher=matcher)
    return get_judge()


def judge_info() -> dict[str, Any]:
    """``info()`` of the judge this process used; when none was built, the configured one's settings."""
    judge = current_judge()
    if judge is not None:
        return judge.info()
    settings = resolve_settings()
    if settings.backend == "offline":
        return get_judge().info()  # cheap: the embedding model loads on first use only
    return {
        "backend": settings.backend,
        "model": settings.model or "",
        "rounds": settings.rounds,
        "templates": template_hashes(),
        "settings": settings.public(),
        "stats": {},
        "note": "no judgement was made in this process",
    }


__all__ = [
    "BACKENDS",
    "TEMPLATES",
    "Choice",
    "FatalJudgeError",
    "Judge",
    "JudgeCache",
    "JudgeConfigError",
    "JudgeSettings",
    "Score",
    "Verdict",
    "current_judge",
    "default_judge_for",
    "get_judge",
    "judge_info",
    "make_judge",
    "reset_judge",
    "resolve_settings",
    "set_judge",
]
