"""One run's state: the judge it scores with and every by-product its results report, in one object.

A run of our tasks leaves by-products the results writer puts in the ``ambi_plugin`` section: the answers no parser
read (:mod:`.unparsed`), how each answer was read with the extraction step on, the items whose visuals could not be
read (:mod:`.item_errors`), and the tasks its preflight skipped (:mod:`ambi_plugin.data.no_records`). They are kept
on one :class:`RunState`, never in module globals, and a run reads them from :func:`current`::

    with run_state(judge=my_judge) as state:   # the VLMEvalKit adapter, `ambi score`, a test
        ...                                     # hooks note into `state`; scoring asks `state.judge_for()`
        state.item_errors_by_task               # what the results report

A run that opens none (a plain ``lmms-eval`` run, where lmms-eval calls our hooks) uses the process's default
state, one :class:`RunState` made on first use. Two runs opened one after the other in one process see only their
own by-products; the state is process-wide while open (lmms-eval scores in threads of its own).

**The judge** is the run's, handed to scoring from here: :meth:`RunState.judge_for` is the judge the run was given,
else the judge layer's default (the configured judge, offline unless ``AMBI_JUDGE_*`` say otherwise), built when a
judge-decided item first needs one, never on import and never for a run that decides no item by a judge.

**Reviewed judge decisions** (:attr:`RunState.overrides`) are handed to a run the same way: ``ambi score --overrides``
opens its run with them, and a benchmark's LLM-assisted scoring reads them from here (IllusionBench's
``process_results_llm``). A run that hands in none (None: a plain ``lmms-eval`` run) leaves the benchmark to its own
default (IllusionBench: the file named by ``$AMBI_ILLUSIONBENCH_OVERRIDES``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(eq=False)
class RunState:
    """What one run configures (its judge) and collects (its by-products)."""

    judge: Any = None  # the run's judge; None: the judge layer's default, built on first need (judge_for)
    overrides: Any = None  # reviewed judge decisions the run applies (`ambi score --overrides`); None: none handed in
    unparsed: dict[str, dict[str, Any]] = field(default_factory=dict)  # task -> {"count", "examples"}
    read_by: dict[str, dict[str, int]] = field(default_factory=dict)  # task -> {"rule", "judge", "none"}
    item_errors_by_record: dict[tuple[str, str], str] = field(default_factory=dict)  # (id, media) -> reason
    item_errors_by_task: dict[str, dict[str, str]] = field(default_factory=dict)  # task -> {record id: reason}
    item_errors_told: set[tuple[str, str]] = field(default_factory=set)  # told once on stderr
    skipped_tasks: dict[str, str] = field(default_factory=dict)  # task -> why its preflight failed
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def judge_for(self, matcher: Any = None) -> Any:
        """The judge this run scores a judge-decided item with: the one it was given, else the judge layer's
        default for ``matcher`` (:func:`ambi_plugin.judge.default_judge_for`), built on first call."""
        if self.judge is not None:
            return self.judge
        from ambi_plugin.judge import default_judge_for

        return default_judge_for(matcher)


_lock = threading.Lock()
_default: RunState | None = None
_opened: list[RunState] = []  # the states opened with run_state(), innermost last


def current() -> RunState:
    """The state of the run in progress: the innermost opened with :func:`run_state`, else the process's default."""
    global _default
    if _opened:
        return _opened[-1]
    state = _default  # asked for every item: no lock once the default exists
    if state is None:
        with _lock:
            if _default is None:
                _default = RunState()
            state = _default
    return state


@contextlib.contextmanager
def run_state(*, judge: Any = None, overrides: Any = None) -> Iterator[RunState]:
    """A fresh :class:`RunState` (its judge: ``judge``, None for the default; its reviewed judge decisions:
    ``overrides``) current inside the block."""
    state = RunState(judge=judge, overrides=overrides)
    with _lock:
        _opened.append(state)
    try:
        yield state
    finally:
        with _lock:
            _opened.remove(state)


__all__ = ["RunState", "current", "run_state"]
