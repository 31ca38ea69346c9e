"""Make lmms-eval find our tasks, datasets and models without flags.

lmms-eval 0.7 has no entry point for tasks; its only entry-point group is ``lmms_eval.models``,
loaded whenever ``lmms_eval.models`` is imported, which every evaluation run does before it
builds its ``TaskManager``. Our entry point (:func:`lmms_eval_entry_point`) therefore

1. returns the manifests of our plugin models (``ambi_replay``, ``ambi_intervene``), and
2. as a side effect wraps lmms-eval methods (idempotent, never raising; each wrapper takes
   ``*args, **kwargs`` and passes them on unchanged, so a new keyword in lmms-eval reaches it):

   * ``TaskManager.initialize_tasks`` gets our ``task_yamls/`` folder appended to its include paths,
     so ``lmms-eval --tasks ambi_synth_all`` works in a fresh process, under ``python -m lmms_eval``
     and ``accelerate launch -m lmms_eval`` alike; ``--include_path "$(ambi tasks-path)"`` keeps working.
   * ``ConfigurableTask.download`` resolves ``dataset_path: ambi://...`` (see
     :mod:`ambi_plugin.data.sources`) to a local JSONL and then runs lmms-eval's own loader; it also
     notes which tasks are ours (:mod:`ambi_plugin.lmms.ownership`).
   * ``ConfigurableTask.process_results`` makes the task's per-model ``lmms_eval_specific_kwargs``
     visible to our scoring hooks while it runs (:mod:`ambi_plugin.runtime.task_kwargs`; e.g. the
     coordinate system a model answers boxes in).
   * ``EvaluationTracker.save_results_aggregated`` adds an ``ambi_plugin`` section to the results JSON
     (our version, the judge used with its rounds and error counts, the synthetic suite's seed and size;
     :mod:`ambi_plugin.lmms.results_meta`).
   * ``TaskManager.match_tasks`` runs the preflight of our requested tasks before the model is created
     (:mod:`ambi_plugin.lmms.preflight`): a missing release or package stops the run with one block and exit 2,
     or (``AMBI_SKIP_MISSING=1``) its tasks run on zero rows with NaN and the reason.
   * ``TaskManager._get_config`` adds to a group of ours the tasks that declare ``metadata.join_groups``
     (:mod:`ambi_plugin.lmms.category_hooks`, which also derives a new category's metrics after ``download``).
   * ``TaskManager.match_tasks`` also stops a requested name that looks like ours and matches nothing, with "did you
     mean" and exit 2 (:mod:`ambi_plugin.lmms.tasknames`).
   * ``ResponseCache.create`` and ``evaluator.simple_evaluate``: secrets kept out of the response cache's model
     fingerprint, and the CPU check before the model is created (:mod:`ambi_plugin.lmms.run_guards`).
   * ``ConfigurableTask.doc_to_text`` / ``doc_to_target`` / ``build_all_requests``: a task of ours whose release has
     no rows runs on zero rows, makes no request and reports NaN (:mod:`ambi_plugin.data.sources`).

A good guest: for a task that is not ours, the wrappers call lmms-eval's method exactly as they were
called, and a run without any task of ours gets no ``ambi_plugin`` section and builds no judge.
``AMBI_PLUGIN_HOOKS=0`` installs none of the wrappers (:func:`ambi_plugin.lmms.ownership.hooks_enabled`).

The wrapped methods are internals, not a public contract: the package pins
``lmms-eval>=0.7,<0.8`` and tests these hooks against the installed version.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import os
import sys
import weakref
from typing import Any

from ambi_plugin.runtime import task_kwargs  # light (contextvars only); read on every item scored

log = logging.getLogger("ambi_plugin")

_MARK = "__ambi_plugin_wrapped__"
REPLAY_MODEL = "ambi_replay"
INTERVENE_MODEL = "ambi_intervene"


def _tasks_path() -> str:
    from ambi_plugin.paths import tasks_dir

    return str(tasks_dir())


def _our_yamls_are_readable(ours: str) -> bool:
    """One malformed YAML under an include path breaks lmms-eval's whole task index: check ours first."""
    from pathlib import Path

    from ambi_plugin.runtime.taskindex import TaskYamlError, index

    try:
        idx = index(Path(ours))
    except TaskYamlError as exc:
        log.error("ambi-plugin: our tasks are disabled until this is fixed: %s", exc)
        print(f"ambi-plugin: our tasks are disabled until this is fixed: {exc}", file=sys.stderr)
        return False
    try:  # a key lmms-eval rejects breaks that task only: name file, task and key (lmms-eval names the key alone)
        from ambi_plugin.lmms.config_keys import lmms_eval_keys
        from ambi_plugin.runtime.taskindex import unknown_keys

        for problem in unknown_keys(idx, *lmms_eval_keys()):
            log.error("ambi-plugin: %s", problem)
            print(f"ambi-plugin: {problem}", file=sys.stderr)
    except Exception as exc:  # noqa: BLE001 - a check must not break lmms-eval's task index
        log.warning("ambi-plugin: could not check our task YAMLs' keys (%s: %s)", type(exc).__name__, exc)
    return True


def _with_our_path(include_path):
    ours = _tasks_path()
    if not _our_yamls_are_readable(ours):
        return include_path
    from ambi_plugin.runtime.taskindex import user_task_dirs

    extra = [ours, *(str(d) for d in user_task_dirs())]  # $AMBI_TASKS_PATH: the user's own categories
    paths = [] if include_path is None else [include_path] if isinstance(include_path, str) else list(include_path)
    norm = {os.path.realpath(p) for p in paths}
    for path in extra:
        if os.path.realpath(path) not in norm:
            paths.append(path)
            norm.add(os.path.realpath(path))
    return paths


def _patch_task_manager() -> None:
    from lmms_eval.tasks import TaskManager

    original = TaskManager.initialize_tasks
    if getattr(original, _MARK, False):
        return
    signature = inspect.signature(original)
    if "include_path" not in signature.parameters:
        raise TypeError(f"TaskManager.initialize_tasks{signature} has no include_path parameter")

    @functools.wraps(original)
    def initialize_tasks(self, *args, **kwargs):
        _late_patches()
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError:  # lmms-eval's own error for a wrong call
            return original(self, *args, **kwargs)
        bound.arguments["include_path"] = _with_our_path(bound.arguments.get("include_path"))
        return original(*bound.args, **bound.kwargs)

    setattr(initialize_tasks, _MARK, True)
    TaskManager.initialize_tasks = initialize_tasks


def _late_patches() -> None:
    """What cannot be wrapped while lmms-eval imports the module that loads our entry point (its evaluator)."""
    try:
        from ambi_plugin.lmms.run_guards import patch_device_check

        patch_device_check()
    except Exception as exc:  # noqa: BLE001 - a hook must not break lmms-eval's task index
        log.warning("ambi-plugin: could not install the CPU check (%s: %s)", type(exc).__name__, exc)


def _patch_match_tasks() -> None:
    """The preflight of our requested tasks (:mod:`ambi_plugin.lmms.preflight`) runs when lmms-eval's CLI resolves the
    task names (``cli_evaluate`` calls ``match_tasks`` before ``simple_evaluate`` creates the model)."""
    from lmms_eval.tasks import TaskManager

    original = TaskManager.match_tasks
    if getattr(original, _MARK, False):
        return
    checked: set[tuple[str, ...]] = set()

    @functools.wraps(original)
    def match_tasks(self, *args, **kwargs):
        names = original(self, *args, **kwargs)
        _stop_on_unknown_names_like_ours(self, args[0] if args else kwargs.get("task_list"), names)
        try:
            key = tuple(n for n in names if isinstance(n, str))
        except TypeError:
            return names
        if key and key not in checked:
            checked.add(key)
            from ambi_plugin.lmms.preflight import check_or_exit, our_tasks

            if our_tasks(list(key)):
                check_or_exit(list(key))  # SystemExit(2) with the block when a task of ours cannot run
        return names

    setattr(match_tasks, _MARK, True)
    TaskManager.match_tasks = match_tasks


def _stop_on_unknown_names_like_ours(manager, requested, matched) -> None:
    """A requested name that looks like ours (``ambi...``) and matched nothing stops the run with "did you mean" and
    exit code 2 (lmms-eval alone prints a traceback and exits 0); any other name is left to lmms-eval."""
    from ambi_plugin.lmms.tasknames import looks_like_ours, unknown_task_message

    if not isinstance(requested, (list, tuple)):
        return
    try:
        found = set(matched)
    except TypeError:
        return
    for name in requested:
        if looks_like_ours(name) and name not in found:
            known = [n for n in (getattr(manager, "all_tasks", None) or []) if isinstance(n, str)]
            print(f"ambi-plugin: {unknown_task_message(name, known)}", file=sys.stderr, flush=True)
            raise SystemExit(2)


RESUME_CHUNK_ENV = "AMBI_RESUME_CHUNK"


def _patch_response_cache() -> None:
    """lmms-eval 0.7.3's response cache hands the model every uncached request at once and stores the answers only
    after the model returned them all, so a run killed mid-generation keeps nothing. With ``$AMBI_RESUME_CHUNK=N``
    (set by ``ambi eval``, which turns the cache on) the requests go to the model N at a time, each chunk stored
    before the next starts: a kill loses at most one chunk. Unset (plain lmms-eval), lmms-eval's method runs as is."""
    from lmms_eval.caching.response_cache import ResponseCache

    original = ResponseCache.execute
    if getattr(original, _MARK, False):
        return

    @functools.wraps(original)
    def execute(self, lm, reqtype, requests, *args, **kwargs):
        try:
            size = int(os.environ.get(RESUME_CHUNK_ENV) or 0)
        except ValueError:
            size = 0
        if size <= 0 or not isinstance(requests, list) or len(requests) <= size:
            return original(self, lm, reqtype, requests, *args, **kwargs)
        out: list = []
        for start in range(0, len(requests), size):
            out.extend(original(self, lm, reqtype, requests[start : start + size], *args, **kwargs))
        return out

    setattr(execute, _MARK, True)
    ResponseCache.execute = execute


def _patch_download() -> None:
    from lmms_eval.api.task import ConfigurableTask

    original = ConfigurableTask.download
    if getattr(original, _MARK, False):
        return
    signature = inspect.signature(original)

    @functools.wraps(original)
    def download(self, *args, **kwargs):
        from ambi_plugin.lmms.ownership import note_if_ours

        note_if_ours(self)
        path = getattr(self, "DATASET_PATH", None)
        if not (isinstance(path, str) and path.startswith("ambi://")):
            return original(self, *args, **kwargs)
        from ambi_plugin.data.no_records import skipped_stand_in
        from ambi_plugin.data.sources import resolve_jsonl

        split = self.config.test_split or "test"
        jsonl = skipped_stand_in(path, self.DATASET_NAME or "") or resolve_jsonl(  # no rows: runs on zero rows
            path, self.DATASET_NAME or "", allow_empty=True
        )
        self.DATASET_PATH = "json"
        self.DATASET_NAME = None
        bound = signature.bind(self, *args, **kwargs)
        bound.arguments["dataset_kwargs"] = {"data_files": {split: str(jsonl)}}
        return original(*bound.args, **bound.kwargs)

    setattr(download, _MARK, True)
    ConfigurableTask.download = download


def _name_items(scored: Any, task: Any) -> None:
    """Each item score says its task (``item["task"]``): the ``unparsed`` aggregation keeps examples per task."""
    if not isinstance(scored, dict) or not task:
        return
    for item in scored.values():
        if isinstance(item, dict) and "task" not in item:
            item["task"] = str(task)


def _patch_process_results() -> None:
    """While a task scores, its per-model kwargs are visible to our hooks (:mod:`ambi_plugin.runtime.task_kwargs`)."""
    from lmms_eval.api.task import ConfigurableTask

    original = ConfigurableTask.process_results
    if getattr(original, _MARK, False):
        return
    asked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # task object -> ours? (nothing set on the task)

    @functools.wraps(original)
    def process_results(self, *args, **kwargs):
        # asked once per task object (this runs for every item); not ``config or {}``: lmms-eval's TaskConfig
        # is an (empty) dict subclass, falsy however it is set
        try:
            ours = asked.get(self)
        except TypeError:  # not weakly referenceable: ask every time
            ours = None
        if ours is None:
            from ambi_plugin.lmms.ownership import config_is_ours

            config = getattr(self, "config", None)
            ours = config is not None and config_is_ours(config)
            with contextlib.suppress(TypeError):
                asked[self] = ours
        if not ours:
            return original(self, *args, **kwargs)
        token = task_kwargs.enter(getattr(self, "lmms_eval_specific_kwargs", None))
        try:
            scored = original(self, *args, **kwargs)
        finally:
            task_kwargs.leave(token)
        _name_items(scored, getattr(getattr(self, "config", None), "task", None))
        _note_item_error(self, scored)
        return scored

    setattr(process_results, _MARK, True)
    ConfigurableTask.process_results = process_results


def _note_item_error(task, out) -> None:
    """An item scored with ``item_error`` (its visuals could not be read) is counted under its task's name."""
    from ambi_plugin.runtime import item_errors

    if not item_errors._by_record or not isinstance(out, dict):
        return
    for item in out.values():
        if isinstance(item, dict) and item.get("item_error"):
            name = str(getattr(getattr(task, "config", None), "task", "") or "?")
            item_errors.note_task(name, item.get("id"), item["item_error"])
            return


def _patch_no_records() -> None:
    """A task whose release has no rows runs on zero rows (:mod:`ambi_plugin.data.sources`)."""
    from ambi_plugin.lmms.tasks_without_records import patch_tasks_without_records

    patch_tasks_without_records()


def _patch_results_writer() -> None:
    """The results JSON gets an ``ambi_plugin`` section: version, judge, synth (:mod:`ambi_plugin.lmms.results_meta`)."""
    from ambi_plugin.lmms.results_meta import patch_results_writer

    patch_results_writer()


WRAPPED_METHODS = (
    "lmms_eval.tasks.TaskManager.initialize_tasks",
    # the preflight of our requested tasks, before the model is created (lmms/preflight.py)
    "lmms_eval.tasks.TaskManager.match_tasks",
    # answers stored chunk by chunk when $AMBI_RESUME_CHUNK is set (ambi eval): a kill loses at most one chunk
    "lmms_eval.caching.response_cache.ResponseCache.execute",
    # the model fingerprint stored in the response cache with secret values written *** (lmms/run_guards.py)
    "lmms_eval.caching.response_cache.ResponseCache.create",
    # no CUDA and a backend that will need it: one line with the CPU arguments, before the model is created
    "lmms_eval.evaluator.simple_evaluate",
    "lmms_eval.api.task.ConfigurableTask.download",
    "lmms_eval.api.task.ConfigurableTask.process_results",
    "lmms_eval.loggers.evaluation_tracker.EvaluationTracker.save_results_aggregated",
    # a new category as a YAML alone (lmms/category_hooks.py): joining a group of ours by metadata.join_groups
    "lmms_eval.tasks.TaskManager._get_config",
    # a task whose release has no rows runs on zero rows (data/sources.py)
    "lmms_eval.api.task.ConfigurableTask.doc_to_text",
    "lmms_eval.api.task.ConfigurableTask.doc_to_target",
    "lmms_eval.api.task.ConfigurableTask.build_all_requests",
)


def _guard_patches() -> tuple:
    """Secrets kept out of the response cache, the CPU check, a quiet Ctrl-C under ambi eval (:mod:`.run_guards`)."""
    from ambi_plugin.lmms.run_guards import patch_device_check, patch_response_cache_fingerprint, quiet_interrupt

    return (patch_response_cache_fingerprint, patch_device_check, quiet_interrupt)


def _category_patches() -> tuple:
    """A new category as a YAML alone: derived metrics, joining a group of ours (:mod:`.category_hooks`)."""
    from ambi_plugin.lmms.category_hooks import patch_derived_metrics, patch_group_membership

    return (patch_derived_metrics, patch_group_membership)


def install_hooks() -> bool:
    """Wrap the methods of :data:`WRAPPED_METHODS`. Returns True on success; never raises.

    Does nothing (and returns False) when ``AMBI_PLUGIN_HOOKS=0`` switches our hooks off.
    """
    from ambi_plugin.lmms.ownership import HOOKS_ENV, hooks_enabled

    if not hooks_enabled():
        log.info("ambi-plugin: %s=%s, lmms-eval runs without our hooks", HOOKS_ENV, os.environ.get(HOOKS_ENV))
        return False
    ok = True
    patches = (
        _patch_task_manager,
        _patch_match_tasks,
        _patch_response_cache,
        _patch_download,
        _patch_process_results,
        _patch_results_writer,
        _patch_no_records,
    )
    for patch in (*patches, *_guard_patches(), *_category_patches()):
        try:
            patch()
        except Exception as exc:  # noqa: BLE001 - an entry point must never raise
            ok = False
            log.warning("ambi-plugin: could not install %s (%s: %s)", patch.__name__, type(exc).__name__, exc)
    return ok


def model_manifests() -> list:
    from lmms_eval.models.registry_v2 import ModelManifest

    return [
        ModelManifest(model_id=REPLAY_MODEL, simple_class_path="ambi_plugin.lmms.replay.AmbiReplay"),
        ModelManifest(model_id=INTERVENE_MODEL, simple_class_path="ambi_plugin.lmms.intervene.AmbiIntervene"),
    ]


def lmms_eval_entry_point() -> list:
    """Entry point of group ``lmms_eval.models``: our model manifests; installs the hooks."""
    install_hooks()
    try:
        return model_manifests()
    except Exception as exc:  # noqa: BLE001 - an entry point must never raise
        log.warning("ambi-plugin: could not register models (%s: %s)", type(exc).__name__, exc)
        return []
