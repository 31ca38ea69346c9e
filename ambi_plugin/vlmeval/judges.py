"""VLMEvalKit's judge arguments, mapped onto our judge subsystem (:mod:`ambi_plugin.judge`).

``run.py`` hands ``evaluate`` the judge kwargs it built from ``--judge``, ``--judge-base-url``,
``--judge-key``, ``--judge-api-nproc``, ``--judge-retry``, ``--judge-timeout`` and ``--judge-args``.
Our datasets use VLMEvalKit type ``VQA``, for which run.py names no default judge, so:

* no ``--judge``: the judge configured for ambi-plugin (``AMBI_JUDGE_*`` / the ambi config; offline by
  default) — exactly what an lmms-eval run uses;
* ``--judge exact_matching``: rule-based only — the offline judge with its lexicon rules and the
  sentence-embedding fallback turned off; no model is called;
* ``--judge offline``: the offline judge with its defaults;
* any other name: an OpenAI-compatible chat judge (our ``openai`` backend with the papers' prompts,
  voting and cache) for that model; ``LOCAL_LLM`` replaces the model name as in VLMEvalKit's
  ``build_judge``; the URL comes from ``--judge-base-url``, else ``OPENAI_API_BASE`` (VLMEvalKit
  writes it with ``/chat/completions``, which is removed), the key from ``--judge-key`` or
  ``OPENAI_API_KEY``; ``--judge-api-nproc`` is the number of concurrent requests.

Keys of ``--judge-args`` that are judge settings of ours (``backend``, ``rounds``, ``temperature`` ...)
override the rest; with a ``backend`` other than ``openai``, ``--judge`` names its model, e.g.
``--judge /models/Qwen3-8B --judge-args '{"backend": "hf"}'`` (a local transformers judge).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from ambi_plugin.judge.settings import JudgeSettings

RULE_BASED = "exact_matching"
# run.py's own judge kwargs; any other key that is one of our judge settings comes from --judge-args
_RUN_PY_KEYS = {"model", "nproc", "verbose", "retry", "timeout", "api_base", "key"}
_OURS = {f.name for f in fields(JudgeSettings)} - _RUN_PY_KEYS


def _strip_endpoint(url: str | None) -> str | None:
    if not url:
        return None
    url = url.rstrip("/")
    for tail in ("/chat/completions", "/completions"):
        if url.endswith(tail):
            url = url[: -len(tail)]
    return url


def settings_overrides(judge_kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword overrides for :func:`ambi_plugin.judge.resolve_settings` from VLMEvalKit's judge kwargs."""
    model = judge_kwargs.get("model")
    out: dict[str, Any] = {}
    if model in (None, ""):
        pass  # the configured judge, as in lmms-eval
    elif model == RULE_BASED:
        out = {"backend": "offline", "embeddings": False}
    elif model == "offline":
        out = {"backend": "offline"}
    else:
        out = {
            "backend": "openai",
            "model": os.environ.get("LOCAL_LLM") or str(model),
            "base_url": _strip_endpoint(judge_kwargs.get("api_base") or os.environ.get("OPENAI_API_BASE")),
            "api_key": judge_kwargs.get("key") or None,
        }
        if judge_kwargs.get("nproc"):
            out["max_concurrency"] = int(judge_kwargs["nproc"])
        if judge_kwargs.get("retry") is not None:
            out["retries"] = int(judge_kwargs["retry"])
        if judge_kwargs.get("timeout"):
            out["timeout"] = float(judge_kwargs["timeout"])
    extra = {k: v for k, v in judge_kwargs.items() if k in _OURS}
    if extra.get("backend") not in (None, "openai") and model not in (None, "", RULE_BASED, "offline"):
        out = {"model": str(model)}  # e.g. --judge /models/Qwen3-8B --judge-args '{"backend": "hf"}'
    out.update(extra)
    return {k: v for k, v in out.items() if v is not None}


def judge_for(judge_kwargs: Mapping[str, Any]) -> Any:
    """The judge a VLMEvalKit evaluation scores with: built from what the kwargs ask for, else the process's
    configured judge. It is handed to the task's scoring (a run state of its own), never installed for the process:
    an evaluation with ``--judge`` leaves the next one's judge as it was."""
    from ambi_plugin.judge import get_judge, make_judge, resolve_settings

    overrides = settings_overrides(judge_kwargs)
    return make_judge(resolve_settings(**overrides)) if overrides else get_judge()


__all__ = ["RULE_BASED", "judge_for", "settings_overrides"]
