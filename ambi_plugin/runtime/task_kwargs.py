"""The running task's ``lmms_eval_specific_kwargs`` (the model's entry), visible to scoring.

lmms-eval hands a task's per-model kwargs to ``doc_to_text`` and ``doc_to_visual`` but not to
``process_results``. Some settings are per model AND needed to score, e.g. the coordinate system
a model answers boxes in (``box_format``, :mod:`ambi_plugin.core.coords`). Our patch
(:mod:`ambi_plugin.lmms.patches`) wraps ``ConfigurableTask.process_results`` so that, while it
runs, :func:`current` returns that task's kwargs. A context variable keeps concurrent calls apart:
each thread that scores sees the kwargs of the task it is scoring.

A caller that evaluates a task itself (:meth:`ambi_plugin.runtime.task.Task.evaluate`: the VLMEvalKit adapter,
``ambi score --judge``) can hand in a judge the same way: while it is current, :func:`judge` returns it and the
runtime's item scoring uses it (None, the default: the judge layer's default, as in an lmms-eval run).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar, Token
from typing import Any

_CURRENT: ContextVar[Mapping[str, Any] | None] = ContextVar("ambi_task_kwargs", default=None)
_JUDGE: ContextVar[Any] = ContextVar("ambi_task_judge", default=None)


def current() -> Mapping[str, Any]:
    """The kwargs of the task whose results are being processed ({} outside such a call)."""
    return _CURRENT.get() or {}


def enter(kwargs: Mapping[str, Any] | None) -> Token:
    """Make ``kwargs`` current until :func:`leave` with the returned token (the per-item form of :func:`using`)."""
    return _CURRENT.set(kwargs if isinstance(kwargs, Mapping) else None)


def leave(token: Token) -> None:
    _CURRENT.reset(token)


def judge() -> Any:
    """The judge handed in for the task being scored (None: the judge layer's default)."""
    return _JUDGE.get()


@contextlib.contextmanager
def using(kwargs: Mapping[str, Any] | None, *, judge: Any = None) -> Iterator[None]:
    """Make ``kwargs`` the current task kwargs, and ``judge`` the current judge, inside the block."""
    token = _CURRENT.set(kwargs if isinstance(kwargs, Mapping) else None)
    judge_token = _JUDGE.set(judge)
    try:
        yield
    finally:
        _JUDGE.reset(judge_token)
        _CURRENT.reset(token)


__all__ = ["current", "enter", "judge", "leave", "using"]
