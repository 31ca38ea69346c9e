"""Every patch of an lmms-eval internal, in one place, each made by the one wrap helper (:func:`wrap`).

lmms-eval 0.7 has no hook for what a plugin of tasks needs (our include path, ``ambi://`` datasets, the preflight,
the ``ambi_plugin`` section of the results JSON ...), so we wrap a few of its methods. :data:`PATCHES` lists them
all, each with what it does and which call is ours; :func:`install_hooks` installs them (from the entry point of
:mod:`ambi_plugin.lmms.discovery`, ``ambi lmms-eval`` and ``ambi validate-tasks``). Each patch's logic lives in the
module that owns it (:mod:`.include_path`, :mod:`.tasknames`, :mod:`.preflight`, :mod:`.run_guards`,
:mod:`.category_hooks`, :mod:`.results_meta`, :mod:`.tasks_without_records`, :mod:`ambi_plugin.data.sources`); this
module says when it runs.

The wrap helper makes every patch a good guest:

* it wraps once: the wrapper is marked (:data:`MARK`), and installing again leaves the method as it is;
* the wrapper takes ``*args, **kwargs`` (``functools.wraps`` keeps the original's name, docs and signature), so a
  keyword a later lmms-eval adds still arrives;
* a call that is not ours (the patch's ``ours`` answers no, or cannot answer) calls lmms-eval's method exactly as it
  was called and returns its result as is; only a call that is ours reaches our logic.

``AMBI_PLUGIN_HOOKS=0`` installs none of them (:func:`ambi_plugin.lmms.ownership.hooks_enabled`). These are
internals, not a public contract: the package pins ``lmms-eval>=0.7,<0.8``, and ``tests/lmms/test_patches.py`` runs
each patch against the installed version.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import logging
import os
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ambi_plugin.lmms import run_guards  # light: reads lmms_eval only inside its functions
from ambi_plugin.lmms.ownership import config_is_ours, note_if_ours, run_has_our_tasks  # light: never reads lmms_eval
from ambi_plugin.runtime import task_kwargs  # light (contextvars only); read on every item scored

log = logging.getLogger("ambi_plugin")

MARK = "__ambi_plugin_wrapped__"  # on each wrapper: installing again does not wrap twice


# ----------------------------------------------------------------------------------------------- the wrap helper


class Call:
    """One call of a wrapped method: lmms-eval's original, the arguments as given, and their names."""

    __slots__ = ("_bound", "_signature", "args", "kwargs", "original")

    def __init__(self, original: Callable, signature: inspect.Signature | None, args: tuple, kwargs: dict):
        self.original, self._signature, self.args, self.kwargs = original, signature, args, kwargs
        self._bound: Any = None

    @property
    def first(self) -> Any:
        """``self`` of a method (``cls`` of a classmethod), the first argument of a function."""
        return self.args[0] if self.args else None

    def _bind(self) -> inspect.BoundArguments | None:
        if self._bound is None:
            try:
                self._bound = self._signature.bind(*self.args, **self.kwargs)  # type: ignore[union-attr]
            except (TypeError, AttributeError):  # a call lmms-eval's method itself rejects: none of ours
                self._bound = False
        return self._bound or None

    def get(self, name: str, default: Any = None) -> Any:
        """The argument ``name`` as the original receives it (its default when not given); ``default`` when the call
        does not fit the original's signature."""
        bound = self._bind()
        if bound is None:
            return default
        if name in bound.arguments:
            return bound.arguments[name]
        param = bound.signature.parameters.get(name)
        return default if param is None or param.default is param.empty else param.default

    def through(self) -> Any:
        """lmms-eval's method, called exactly as the wrapper was."""
        return self.original(*self.args, **self.kwargs)

    def replacing(self, **changes: Any) -> Any:
        """lmms-eval's method with the named arguments changed; every other argument as given."""
        bound = self._bind()
        if bound is None:
            return self.through()  # lmms-eval's own error for a wrong call
        for name, value in changes.items():
            bound.arguments[name] = value
        return self.original(*bound.args, **bound.kwargs)


_warned: set[str] = set()


def _is_ours(ours: Callable[[Call], bool], call: Call, where: str) -> bool:
    try:
        return bool(ours(call))
    except Exception as exc:  # noqa: BLE001 - a call we cannot judge is lmms-eval's, untouched
        if where not in _warned:
            _warned.add(where)
            log.warning("ambi-plugin: %s: left to lmms-eval (%s: %s)", where, type(exc).__name__, exc)
        return False


def wrap(owner: Any, name: str, hook: Callable[[Call], Any], *, ours=None, needs: tuple[str, ...] = ()) -> bool:
    """Wrap ``owner.<name>`` (a class's method, classmethod or staticmethod, or a module's function) once.

    The wrapper calls ``hook(call)`` (a :class:`Call`) when ``ours(call)`` is true (always when ``ours`` is None),
    else lmms-eval's method exactly as it was called. ``needs``: parameters the original must have (checked now).
    Returns whether it wrapped now (False: already wrapped)."""
    raw = inspect.getattr_static(owner, name)
    kind = type(raw) if isinstance(raw, (classmethod, staticmethod)) else None
    original = raw.__func__ if kind is not None else raw
    if getattr(original, MARK, False):
        return False
    where = f"{getattr(owner, '__name__', owner)}.{name}"
    try:
        signature: inspect.Signature | None = inspect.signature(original)
    except (TypeError, ValueError):
        signature = None
    missing = [p for p in needs if signature is None or p not in signature.parameters]
    if missing:
        raise TypeError(f"{where}{signature or '(?)'} has no parameter {', '.join(missing)}")

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        call = Call(original, signature, args, kwargs)
        if ours is not None and not _is_ours(ours, call, where):
            return original(*args, **kwargs)
        return hook(call)

    setattr(wrapper, MARK, True)
    setattr(owner, name, kind(wrapper) if kind is not None else wrapper)
    return True


@dataclass(frozen=True)
class Patch:
    module: str  # where the owner is: lmms_eval.api.task
    attribute: str  # the owner's attribute path: ConfigurableTask.download (a class's method) or simple_evaluate
    hook: Callable[[Call], Any]  # our logic, for a call that is ours
    ours: Callable[[Call], bool] | None  # which calls are ours; None: every call (the patch says why)
    needs: tuple[str, ...] = ()  # parameters the original must have
    late: bool = False  # may not exist yet when the entry point runs (lmms-eval is still importing its module)
    when: Callable[[], bool] | None = None  # installed only where this holds

    @property
    def target(self) -> str:
        return f"{self.module}.{self.attribute}"


# ------------------------------------------------------------------- TaskManager: include path, preflight, groups


def _initialize_tasks(call: Call) -> Any:
    """Every run: our ``task_yamls/`` (and ``$AMBI_TASKS_PATH``) after lmms-eval's include path, which is how it finds
    our tasks at all (what ``--include_path "$(ambi tasks-path)"`` would give); the late patches go in first."""
    from ambi_plugin.lmms.include_path import with_our_path

    _install_each(p for p in PATCHES if p.late)
    return call.replacing(include_path=with_our_path(call.get("include_path")))


_preflighted: set[tuple[str, ...]] = set()


def _match_tasks(call: Call) -> Any:
    """lmms-eval's answer as is; then a requested name like ours that matched nothing stops the run (did you mean,
    exit 2), and the preflight of the tasks of ours among the answer runs once, before the model is created."""
    from ambi_plugin.lmms.tasknames import stop_on_unknown_names_like_ours

    names = call.through()
    stop_on_unknown_names_like_ours(call.first, call.get("task_list"), names)
    try:
        key = tuple(n for n in names if isinstance(n, str))
    except TypeError:
        return names
    if key and key not in _preflighted:
        _preflighted.add(key)
        from ambi_plugin.lmms.preflight import check_or_exit, our_tasks

        if our_tasks(list(key)):
            check_or_exit(list(key))  # SystemExit(2) with the block when a task of ours cannot run
    return names


def _group_is_ours(call: Call) -> bool:
    from ambi_plugin.lmms.category_hooks import is_our_group  # lazy, as the imports below: they read lmms_eval

    return is_our_group(call.first, call.get("name"))


def _get_config(call: Call) -> Any:
    """A group of ours also lists the tasks that join it by ``metadata.join_groups``."""
    from ambi_plugin.lmms.category_hooks import with_joining_tasks

    return with_joining_tasks(call.first, call.get("name"), call.through())


# --------------------------------------------------------------------------------------------- the response cache


def _chunks_requests(call: Call) -> bool:
    requests = call.get("requests")
    return 0 < run_guards.resume_chunk() < len(requests) if isinstance(requests, list) else False


def _execute(call: Call) -> list:
    """The requests go to the model ``$AMBI_RESUME_CHUNK`` at a time, each chunk stored before the next starts."""
    return run_guards.in_chunks(
        lambda part: call.replacing(requests=part), call.get("requests"), run_guards.resume_chunk()
    )


def _run_is_ours(call: Call) -> bool:
    return run_guards.started_by_ambi_eval() or run_guards.task_dict_has_ours(call.get("task_dict"))


def _create(call: Call) -> Any:
    """The model fingerprint stored in the cache with every secret value of ``--model_args`` written ``***``."""
    try:
        masked = run_guards.masked_model_args(call.get("model_args"))
    except Exception:  # noqa: BLE001 - lmms-eval's own fingerprint then
        masked = None
    return call.through() if masked is None else call.replacing(model_args=masked)


# ---------------------------------------------------------------------------------------------------- evaluator


def _evaluation_is_ours(call: Call) -> bool:
    return run_guards.started_by_ambi_eval() or run_guards.has_our_names(call.get("tasks"))


def _simple_evaluate(call: Call) -> Any:
    """No CUDA and a backend that will put the model on it: one line naming the CPU arguments, exit 2, before the
    model is created."""
    try:
        args = (call.get("model"), call.get("model_args"), call.get("device"), bool(call.get("force_simple")))
        problem = run_guards.cuda_problem(*args)
    except Exception:  # noqa: BLE001 - a guard never breaks a run; lmms-eval's own errors follow
        problem = None
    if problem:
        print(f"ambi-plugin: {problem}", file=sys.stderr, flush=True)
        raise SystemExit(2)
    return call.through()


# ------------------------------------------------------------------------------------------- ConfigurableTask


def _task_is_ours(call: Call) -> bool:
    return note_if_ours(call.first)  # noted, for the results writer


def _download(call: Call) -> Any:
    """``dataset_path: ambi://...`` resolved to a local JSONL read by lmms-eval's own loader; then the metrics the
    task's rows imply that its ``metric_list`` lacks (a new category as a YAML alone)."""
    task = call.first
    path = getattr(task, "DATASET_PATH", None)
    if isinstance(path, str) and path.startswith("ambi://"):
        from ambi_plugin.data.no_records import skipped_stand_in
        from ambi_plugin.data.sources import resolve_jsonl

        split = task.config.test_split or "test"
        name = task.DATASET_NAME or ""
        jsonl = skipped_stand_in(path, name) or resolve_jsonl(path, name, allow_empty=True)  # no rows: zero rows
        task.DATASET_PATH, task.DATASET_NAME = "json", None
        out = call.replacing(dataset_kwargs={"data_files": {split: str(jsonl)}})
    else:
        out = call.through()
    from ambi_plugin.lmms.category_hooks import derive_metrics

    derive_metrics(task)
    return out


_asked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # task object -> ours? (nothing set on the task)


def _scores_ours(call: Call) -> bool:
    """Asked once per task object (process_results runs for every item). Not ``config or {}``: lmms-eval's
    TaskConfig is an (empty) dict subclass, falsy however it is set."""
    task = call.first
    try:
        ours = _asked.get(task)
    except TypeError:  # not weakly referenceable: asked every time
        ours = None
    if ours is None:
        config = getattr(task, "config", None)
        ours = config is not None and config_is_ours(config)
        with contextlib.suppress(TypeError):
            _asked[task] = ours
    return ours


def _process_results(call: Call) -> Any:
    """While a task of ours scores, its per-model ``lmms_eval_specific_kwargs`` are visible to our hooks
    (:mod:`ambi_plugin.runtime.task_kwargs`); each item score is marked with its task's name."""
    task = call.first
    token = task_kwargs.enter(getattr(task, "lmms_eval_specific_kwargs", None))
    try:
        scored = call.through()
    finally:
        task_kwargs.leave(token)
    from ambi_plugin.lmms.results_meta import note_item_scores

    note_item_scores(task, scored)
    return scored


def _has_no_records(call: Call) -> bool:
    from ambi_plugin.data.no_records import no_records_reason

    return no_records_reason(call.first) is not None


def _no_documents(call: Call) -> None:
    from ambi_plugin.lmms.tasks_without_records import no_documents

    no_documents(call.first)


# ------------------------------------------------------------------------------------------- the results writer


def _results_are_ours(call: Call) -> bool:
    results = call.get("results")
    return isinstance(results, dict) and run_has_our_tasks(results)


def _save_results_aggregated(call: Call) -> Any:
    """The results JSON of a run with a task of ours gets the ``ambi_plugin`` section."""
    from ambi_plugin.lmms.results_meta import add_section

    try:
        add_section(call.get("results"))
    except Exception as exc:  # noqa: BLE001 - never break lmms-eval's save
        log.warning("ambi-plugin: could not add the ambi_plugin section (%s: %s)", type(exc).__name__, exc)
    return call.through()


# ----------------------------------------------------------------------------------------------------- Ctrl-C


def _is_interrupt(call: Call) -> bool:
    return isinstance(call.first, type) and issubclass(call.first, KeyboardInterrupt)


# ----------------------------------------------------------------------------------------------------- the list

_TASK = "lmms_eval.api.task"
_MANAGER = "lmms_eval.tasks"
_CACHE = "lmms_eval.caching.response_cache"

PATCHES: tuple[Patch, ...] = (
    Patch(_MANAGER, "TaskManager.initialize_tasks", _initialize_tasks, None, needs=("include_path",)),
    # ours are the names it answers: lmms-eval answers first, and its answer is returned as is
    Patch(_MANAGER, "TaskManager.match_tasks", _match_tasks, None),
    Patch(_MANAGER, "TaskManager._get_config", _get_config, _group_is_ours),
    Patch(_CACHE, "ResponseCache.execute", _execute, _chunks_requests),
    Patch(_CACHE, "ResponseCache.create", _create, _run_is_ours),
    Patch("lmms_eval.evaluator", "simple_evaluate", _simple_evaluate, _evaluation_is_ours, late=True),
    Patch(_TASK, "ConfigurableTask.download", _download, _task_is_ours, needs=("dataset_kwargs",)),
    Patch(_TASK, "ConfigurableTask.process_results", _process_results, _scores_ours),
    # a task of ours whose release has no rows: built on a one-row stand-in, no request, NaN metrics
    Patch(_TASK, "ConfigurableTask.doc_to_text", lambda call: "", _has_no_records),
    Patch(_TASK, "ConfigurableTask.doc_to_target", lambda call: "", _has_no_records),
    Patch(_TASK, "ConfigurableTask.build_all_requests", _no_documents, _has_no_records),
    Patch(
        "lmms_eval.loggers.evaluation_tracker",
        "EvaluationTracker.save_results_aggregated",
        _save_results_aggregated,
        _results_are_ours,
    ),
    # not lmms-eval's: in an lmms-eval that ambi eval started, Ctrl-C ends without the child's traceback
    Patch("sys", "excepthook", lambda call: None, _is_interrupt, when=run_guards.started_by_ambi_eval),
)
TARGETS: tuple[str, ...] = tuple(p.target for p in PATCHES)


def install(target: str) -> bool:
    """Install the patch of ``target`` (one of :data:`TARGETS`), idempotently. Returns whether it wrapped now."""
    (patch,) = [p for p in PATCHES if p.target == target]
    if patch.when is not None and not patch.when():
        return False
    owner: Any = importlib.import_module(patch.module)
    *path, name = patch.attribute.split(".")
    for part in path:
        owner = getattr(owner, part)
    if patch.late and not hasattr(owner, name):  # lmms-eval is still importing it: the include-path hook retries
        return False
    return wrap(owner, name, patch.hook, ours=patch.ours, needs=patch.needs)


def _install_each(patches) -> bool:
    ok = True
    for patch in patches:
        try:
            install(patch.target)
        except Exception as exc:  # noqa: BLE001 - an entry point, or a hook, must never raise into lmms-eval
            ok = False
            log.warning("ambi-plugin: could not patch %s (%s: %s)", patch.target, type(exc).__name__, exc)
    return ok


def install_hooks() -> bool:
    """Install every patch of :data:`PATCHES`. Returns True on success; never raises (one failing entry point makes
    lmms-eval skip the rest). Does nothing (and returns False) when ``AMBI_PLUGIN_HOOKS=0`` switches our hooks off."""
    from ambi_plugin.lmms.ownership import HOOKS_ENV, hooks_enabled

    if not hooks_enabled():
        log.info("ambi-plugin: %s=%s, lmms-eval runs without our hooks", HOOKS_ENV, os.environ.get(HOOKS_ENV))
        return False
    return _install_each(PATCHES)


__all__ = ["MARK", "PATCHES", "TARGETS", "Call", "Patch", "install", "install_hooks", "wrap"]
