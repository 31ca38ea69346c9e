"""Which per-model entry of a task YAML's ``lmms_eval_specific_kwargs`` a VLMEvalKit run uses.

The YAMLs key per-model prompt settings by lmms-eval model name (``qwen2_5_vl``, ``internvl3`` ...;
e.g. the coordinate system AmbiBench localization boxes are answered in). A VLMEvalKit dataset of ours
takes the entry to use as its ``prompt_model`` kwarg (``--config``: ``{"class": ..., "prompt_model":
"qwen2_5_vl"}``); without it, the launcher's choice for the run's model applies: :func:`lmms_key` maps
well-known VLMEvalKit model names to lmms-eval keys, and :func:`for_model` reads the image-resize
settings the VLMEvalKit model is configured with (Qwen2.5-VL answers boxes in pixels of its resized
input, so scoring needs its ``min_pixels`` / ``max_pixels``; ``Qwen2VLChat`` without them resizes with
``qwen_vl_utils``' defaults). A name not listed uses the ``default``
entry, as lmms-eval does for a model without an entry.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ambi_plugin.core.coords import MODEL_SETTING_KEYS

# VLMEvalKit model names (supported_VLM keys, or a --config entry's name or model_path) -> lmms-eval model key.
# Checked in order: InternVL3_5 before InternVL3.
KNOWN_MODELS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"qwen2\.5-vl", re.IGNORECASE), "qwen2_5_vl"),
    (re.compile(r"qwen3-vl", re.IGNORECASE), "qwen3_vl"),
    (re.compile(r"internvl3[_.]5", re.IGNORECASE), "internvl3_5"),
    (re.compile(r"internvl3", re.IGNORECASE), "internvl3"),
    (re.compile(r"internvl2", re.IGNORECASE), "internvl2"),
)
# Settings a VLMEvalKit model entry may carry that change how its answers are scored (Qwen2VLChat's resize).
RESIZE_KEYS: tuple[str, ...] = ("min_pixels", "max_pixels")
# What VLMEvalKit's Qwen2VLChat resizes with when its entry sets no min_pixels / max_pixels: qwen_vl_utils'
# defaults (0.0.14: 4 and 16384 tokens of 28 x 28 pixels).
QWEN2VLCHAT_RESIZE: dict[str, int] = {"min_pixels": 4 * 28 * 28, "max_pixels": 16384 * 28 * 28}

_DEFAULT: tuple[str | None, dict[str, Any]] = (None, {})


class PromptModelError(ValueError):
    """A ``prompt_model`` / ``prompt_settings`` value a dataset of ours cannot use."""


def lmms_key(*names: str | None) -> str | None:
    """The lmms-eval model key of the first name that matches a known VLMEvalKit model family, else None."""
    for name in names:
        for pattern, key in KNOWN_MODELS:
            if name and pattern.search(str(name)):
                return key
    return None


def model_settings(entry: Mapping[str, Any] | None) -> dict[str, Any]:
    """The resize settings (``min_pixels``, ``max_pixels``) a VLMEvalKit model entry sets (kwargs of its class)."""
    return {k: int(entry[k]) for k in RESIZE_KEYS if entry and entry.get(k) is not None}


def check_settings(settings: Mapping[str, Any] | None, *, where: str) -> dict[str, Any]:
    """``prompt_settings`` may set only the scoring settings of a model entry (``box_format``, resize ...)."""
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(MODEL_SETTING_KEYS))
    if unknown:
        raise PromptModelError(
            f"{where}: prompt_settings may set {', '.join(MODEL_SETTING_KEYS)}; got {', '.join(unknown)}. "
            "Prompts themselves come from the task YAML's lmms_eval_specific_kwargs."
        )
    return settings


def set_default(key: str | None, settings: Mapping[str, Any] | None = None) -> None:
    """The entry datasets of ours built without ``prompt_model`` use in this process (set by the launcher)."""
    global _DEFAULT
    _DEFAULT = (key, dict(settings or {}))


def default() -> tuple[str | None, dict[str, Any]]:
    return _DEFAULT[0], dict(_DEFAULT[1])


def _keywords(builder: Any) -> dict[str, Any]:
    """The kwargs a ``supported_VLM`` entry (a ``functools.partial``) builds its model with."""
    return dict(getattr(builder, "keywords", None) or {})


def for_model(name: str, config_models: Mapping[str, Any] | None = None) -> tuple[str | None, dict[str, Any]]:
    """(lmms-eval key, resize settings) for a VLMEvalKit model, as run.py builds it: a ``--config`` entry with a
    ``class`` (its name, ``model_path`` and kwargs), else the ``supported_VLM`` entry of that name."""
    from vlmeval.config import supported_VLM

    entry = dict((config_models or {}).get(name) or {})
    builder = supported_VLM.get(name)
    if "class" in entry:
        kwargs, cls = entry, str(entry["class"])
    else:
        kwargs, cls = {**_keywords(builder), **entry}, getattr(getattr(builder, "func", None), "__name__", "")
    key = lmms_key(name, kwargs.get("model_path"), kwargs.get("model"))
    if key is None:
        return None, {}
    defaults = QWEN2VLCHAT_RESIZE if cls == "Qwen2VLChat" else {}
    return key, {**defaults, **model_settings(kwargs)}


def choose(models: Mapping[str, tuple[str | None, dict[str, Any]]], tasks: list) -> tuple[str | None, dict[str, Any]]:
    """The one entry for a run's models; refuses models that need different prompts for a task of the run."""
    choices = {(key, tuple(sorted(settings.items()))) for key, settings in models.values()}
    if len(choices) <= 1:
        key, settings = next(iter(choices), (None, ()))
        return key, dict(settings)
    differ = [
        task.name
        for task in tasks
        if len({repr(sorted(task.prompt_kwargs_for(k, dict(st)).items())) for k, st in choices}) > 1
    ]
    if differ:
        listed = ", ".join(f"{m} -> {key or 'default'}" for m, (key, _) in models.items())
        raise PromptModelError(
            f"the models of this run need different per-model prompt settings ({listed}) for "
            f"{', '.join(differ[:5])}{' ...' if len(differ) > 5 else ''}; the launcher applies one entry per run: "
            "run these models in separate commands (or set each dataset's prompt_model in a --config file)"
        )
    return None, {}


__all__ = [
    "KNOWN_MODELS",
    "QWEN2VLCHAT_RESIZE",
    "PromptModelError",
    "check_settings",
    "choose",
    "default",
    "for_model",
    "lmms_key",
    "model_settings",
    "set_default",
]
