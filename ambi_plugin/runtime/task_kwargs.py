"""The running task's ``lmms_eval_specific_kwargs`` (the model's entry), visible to scoring.

lmms-eval hands a task's per-model kwargs to ``doc_to_text`` and ``doc_to_visual`` but not to
``process_results``. Some settings are per model AND needed to score, e.g. the coordinate system
a model answers boxes in (``box_format``, :mod:`ambi_plugin.core.coords`). Our patch
(:mod:`ambi_plugin.lmms.patches`) wraps ``ConfigurableTask.process_results`` so that, while it
runs, :func:`current` returns that task's kwargs. A context variable keeps concurrent calls apart:
each thread that scores sees the kwargs of the task it is scoring.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar, Token
from typing import Any

_CURRENT: ContextVar[Mapping[str, Any] | None] = ContextVar("ambi_task_kwargs", default=None)


def current() -> Mapping[str, Any]:
    """The kwargs of the task whose results are being processed ({} outside such a call)."""
    return _CURRENT.get() or {}


def enter(kwargs: Mapping[str, Any] | None) -> Token:
    """Make ``kwargs`` current until :func:`leave` with the returned token (the per-item form of :func:`using`)."""
    return _CURRENT.set(kwargs if isinstance(kwargs, Mapping) else None)


def leave(token: Token) -> None:
    _CURRENT.reset(token)


@contextlib.contextmanager
def using(kwargs: Mapping[str, Any] | None) -> Iterator[None]:
    """Make ``kwargs`` the current task kwargs inside the block."""
    token = _CURRENT.set(kwargs if isinstance(kwargs, Mapping) else None)
    try:
        yield
    finally:
        _CURRENT.reset(token)


__all__ = ["current", "enter", "leave", "using"]
