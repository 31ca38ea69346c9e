"""How core scoring gets a judge: it is HANDED IN, never looked up (core sits below ``ambi_plugin.judge``).

``score_item(record, response, judge=...)`` uses the judge it is given. Without one, it asks the *judge provider*
handed in with it (``judge_provider=``: a callable ``provider(matcher) -> judge``, called only when a judge-decided
item needs a judge): the runtime hands in its run's (``ambi_plugin.runtime.run_state``: the run's judge, else the
judge layer's default, ``ambi_plugin.judge.default_judge_for``, built on first need). Nothing is installed on
import. A caller may install a process-wide provider with :func:`set_judge_provider` (explicitly: no module does
it for you); a judge-decided item (open, region, description) scored with no judge, no provider handed in and none
installed raises :class:`NoJudgeError`, which says what to do.

``item_info`` (what an item score records about its judgements) reads only the judge's and its verdicts'
attributes, so it lives here; ``ambi_plugin.core.judging.item_info`` is the same function.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

JudgeProvider = Callable[[Any], Any]  # (matcher or None) -> a judge

_provider: JudgeProvider | None = None
_lock = threading.Lock()


class NoJudgeError(RuntimeError):
    """A judge-decided item was scored with no judge handed in and no judge provider installed."""


def set_judge_provider(provider: JudgeProvider | None) -> JudgeProvider | None:
    """Install ``provider`` (None: remove it); returns the one it replaces."""
    global _provider
    with _lock:
        old, _provider = _provider, provider
    return old


def judge_provider() -> JudgeProvider | None:
    """The installed judge provider, or None."""
    return _provider


def resolve_judge(judge: Any, matcher: Any = None, provider: JudgeProvider | None = None) -> Any:
    """``judge`` when given, else ``provider``'s judge for ``matcher``, else the installed provider's."""
    if judge is not None:
        return judge
    provider = provider or _provider
    if provider is None:
        raise NoJudgeError(
            "this item is decided by a judge, and none was handed in: pass judge=... (e.g. "
            "ambi_plugin.judge.get_judge()) or judge_provider=... to score_item, or score it through the runtime "
            "(ambi_plugin.runtime.hooks.score_record), which hands in its run's judge"
        )
    return provider(matcher)


def item_info(judge: Any, results: Sequence[Any]) -> dict[str, Any]:
    """What an item score records about its judgements (kept in lmms-eval's logged samples for audit).

    ``rounds``: the most rounds any judgement asked for (0 when no judgement was needed, e.g. an
    unparseable response); ``raw``: every raw reply, judgement by judgement; ``error``: some judgement
    could not be read (the item counts as not correct and in ``judge_errors``).
    """
    raw: list[str] = []
    rounds = 0
    for res in results:
        raw.extend(res.raw)
        rounds = max(rounds, len(getattr(res, "votes", None) or getattr(res, "scores", None) or []))
    return {
        "backend": judge.backend_name,
        "model": judge.model,
        "rounds": rounds,
        "judgements": len(results),
        "raw": raw,
        "error": any(res.error for res in results),
    }
