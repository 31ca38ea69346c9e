"""Chat backends of the LLM judge, by backend name: ``openai`` (``openai_chat``: OpenAI-compatible HTTP),
``lmms_eval`` (lmms-eval's own judge providers) and ``hf`` (a local transformers causal LM).

The judge package never imports a harness adapter, so the backends are found through a registry:

* :func:`register_backend` ``(name, cls)``: a module that defines a backend adds itself when it is imported.
  ``ambi_plugin.lmms.judge_backend`` (the only module that may import ``lmms_eval``'s judge) registers
  ``lmms_eval`` this way.
* :data:`ON_DEMAND` ``{name: "module:Class"}``: where a backend not registered yet lives. :func:`backend_class`
  imports that module by name (``importlib``) the first time the backend is asked for; a backend module that
  registers itself on import is found in the registry from then on. So ``make_judge(backend="lmms_eval")`` works
  whether or not the lmms adapter was imported before, and lmms-eval itself is imported only when the backend is
  built (as before).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

ON_DEMAND: dict[str, str] = {
    "openai": "ambi_plugin.judge.backends.openai_chat:OpenAIChatBackend",
    "lmms_eval": "ambi_plugin.lmms.judge_backend:LmmsEvalBackend",
    "hf": "ambi_plugin.judge.backends.hf:HFBackend",
}

_registry: dict[str, Any] = {}
_lock = threading.Lock()


def register_backend(name: str, cls: Any) -> Any:
    """Register backend class ``cls`` under ``name`` (the settings' ``backend``); returns ``cls``."""
    with _lock:
        _registry[name] = cls
    return cls


def backend_class(name: str) -> Any:
    """The backend class registered as ``name``, importing its module from :data:`ON_DEMAND` if needed."""
    with _lock:
        cls = _registry.get(name)
    if cls is not None:
        return cls
    if name not in ON_DEMAND:
        raise KeyError(f"Expected a judge backend in {sorted(set(ON_DEMAND) | set(_registry))} but got {name!r}")
    module, _, attr = ON_DEMAND[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    with _lock:
        return _registry.setdefault(name, cls)
