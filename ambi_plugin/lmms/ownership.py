"""Which tasks of an lmms-eval run are ours, so that runs without them are left exactly as they are.

A task is ours when its dataset is an ``ambi://`` path, when one of its YAML functions lives in
``ambi_plugin`` (a user's own category YAML pointing to our hooks counts), or when its name is one of
our task YAMLs. The dataset hook notes each task of ours as lmms-eval builds it
(:func:`note_if_ours`); :func:`run_has_our_tasks` answers for a finished run's results dict.

Our wrappers of lmms-eval internals can be switched off: ``AMBI_PLUGIN_HOOKS=0`` (also ``false``,
``no``, ``off``) makes :func:`hooks_enabled` false, and then no wrapper is installed (the model
``ambi_replay`` stays registered; our tasks, whose ``ambi://`` datasets need the hooks, do not run).
"""

from __future__ import annotations

import os
import threading
from typing import Any

HOOKS_ENV = "AMBI_PLUGIN_HOOKS"
_OFF = {"0", "false", "no", "off"}
_FUNCTION_FIELDS = ("doc_to_visual", "doc_to_text", "doc_to_target", "doc_to_messages", "process_results")

_lock = threading.Lock()
_ours: set[str] = set()


def hooks_enabled() -> bool:
    """False when ``AMBI_PLUGIN_HOOKS`` is set to 0 / false / no / off."""
    return os.environ.get(HOOKS_ENV, "").strip().lower() not in _OFF


def _is_our_function(fn: Any) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return callable(fn) and (module == "ambi_plugin" or module.startswith("ambi_plugin."))


def config_is_ours(config: Any, dataset_path: Any = None) -> bool:
    """True for a task config (an lmms-eval ``TaskConfig`` or a dict) that reads our data or uses our hooks."""

    def get(key: str) -> Any:
        # lmms-eval's TaskConfig is a dict subclass whose fields are attributes (the dict itself stays empty)
        if isinstance(config, dict) and key in config:
            return config[key]
        return getattr(config, key, None)

    path = dataset_path if dataset_path is not None else get("dataset_path")
    if isinstance(path, str) and path.startswith("ambi://"):
        return True
    return any(_is_our_function(get(name)) for name in _FUNCTION_FIELDS)


def note_if_ours(task: Any) -> bool:
    """Remember an lmms-eval task object as ours when it is; return whether it is. Never raises."""
    try:
        config = getattr(task, "config", None)
        ours = config is not None and config_is_ours(config, getattr(task, "DATASET_PATH", None))
        name = getattr(config, "task", None)
    except Exception:  # noqa: BLE001 - a wrapper of lmms-eval must not break a run
        return False
    if ours and isinstance(name, str):
        with _lock:
            _ours.add(name)
    return bool(ours)


def _our_yaml_names() -> set[str]:
    try:
        from ambi_plugin.runtime.taskindex import index

        return set(index())
    except Exception:  # noqa: BLE001 - a broken YAML of ours is reported elsewhere
        return set()


def run_has_our_tasks(results: dict) -> bool:
    """True when a results dict (what lmms-eval writes as its results JSON) has a task or group of ours."""
    configs = results.get("configs") or {}
    names = set(configs) | set(results.get("results") or {}) | set(results.get("group_subtasks") or {})
    with _lock:
        if names & _ours:
            return True
    if any(isinstance(cfg, dict) and config_is_ours(cfg) for cfg in configs.values()):
        return True
    return bool(names & _our_yaml_names())


def task_is_ours(task: Any) -> bool:
    """An lmms-eval task object of ours: noted as ours when its data was loaded, or its config is ours (read before
    and after our dataset hook replaced its ``ambi://`` path). Never raises."""
    try:
        config = getattr(task, "config", None)
        name = getattr(config, "task", None)
        with _lock:
            if isinstance(name, str) and name in _ours:
                return True
        return config is not None and (config_is_ours(config) or note_if_ours(task))
    except Exception:  # noqa: BLE001 - a wrapper of lmms-eval must not break a run
        return False
