"""Call a task YAML's own ``doc_to_*`` functions the way lmms-eval 0.7 calls them.

``doc_to_text(doc, kwargs)``; ``doc_to_visual(doc, kwargs)`` when it takes two parameters, else
``doc_to_visual(doc)``; ``doc_to_messages(doc, lmms_eval_specific_kwargs=kwargs)`` when it takes them;
``doc_to_target(doc)``. A benchmark with hooks of its own (VIA-Bench's system prompts and blind
variant) is thus prompted in VLMEvalKit exactly as in lmms-eval, with no code here.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from ambi_plugin.vlmeval.spec import VlmevalTask, resolve_function


@dataclass
class TaskHooks:
    spec: VlmevalTask
    kwargs: dict[str, Any]

    @classmethod
    def of(cls, spec: VlmevalTask, model: str | None = None) -> TaskHooks:
        return cls(spec, spec.prompt_kwargs_for(model))

    def _fn(self, name: str):
        return resolve_function(self.spec.hooks[name])

    def text(self, doc: dict) -> str:
        return self._fn("doc_to_text")(doc, self.kwargs)

    def visuals(self, doc: dict) -> list:
        fn = self._fn("doc_to_visual")
        return list(fn(doc, self.kwargs) if len(inspect.signature(fn).parameters) == 2 else fn(doc))

    def target(self, doc: dict) -> str:
        return str(self._fn("doc_to_target")(doc))

    def messages(self, doc: dict) -> list[dict]:
        fn = self._fn("doc_to_messages")
        params = inspect.signature(fn).parameters
        takes = "lmms_eval_specific_kwargs" in params or len(params) == 2
        takes = takes or any(p.kind == inspect.Parameter.VAR_KEYWORD for p in params.values())
        return fn(doc, lmms_eval_specific_kwargs=self.kwargs) if takes else fn(doc)


__all__ = ["TaskHooks"]
