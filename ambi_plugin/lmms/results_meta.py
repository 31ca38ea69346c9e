"""An ``"ambi_plugin"`` section in lmms-eval's results JSON: our version, the judge, the synthetic suite.

lmms-eval writes the results JSON itself (``EvaluationTracker.save_results_aggregated``); our wrapper of that
method (:mod:`ambi_plugin.lmms.patches`) calls :func:`add_section` before it writes, for a run with a task of ours::

    "ambi_plugin": {
      "version": "0.1.0",
      "judge": {"backend", "model", "rounds", "rounds_used", "templates", "settings", "stats",
                "errors": {"<task>": <judge_errors of that task>, ...}, "errors_total": n},
      "synth": {"seed": 0, "n": 8},         # only when a task read ``ambi://synth``
      "viabench_debias": {"permute_seed": 3, "flip_seed": null},  # only when a VIA-Bench task ran with a seed set
      "skipped": {"<task>": "<why its preflight failed>"},        # only with AMBI_SKIP_MISSING=1 (NaN metrics)
      "item_errors": {"<task>": {"count": n, "items": [{"id", "reason"}, ...]}}  # items our hooks could not read
      "unparsed": {"<task>": {"count": 2, "examples": [{"id", "response", "reason"}, ...]}}  # up to 20 per task
    }

``judge.errors`` repeats each task's ``judge_errors`` metric (lmms-eval already aggregates it over
every process), so the judge used, its rounds and its error count sit together. The section is built
so that it never breaks the save: any problem is recorded as ``"error"`` inside it. A run without any
task of ours (:func:`ambi_plugin.lmms.ownership.run_has_our_tasks`) gets no section and builds no judge.
"""

from __future__ import annotations

import logging
import math
import os
from typing import Any

log = logging.getLogger("ambi_plugin")
SECTION = "ambi_plugin"


def _judge_errors(results: dict) -> dict[str, float]:
    out = {}
    for task, metrics in (results.get("results") or {}).items():
        for key, val in (metrics or {}).items():
            if key.split(",")[0] == "judge_errors" and isinstance(val, (int, float)) and not math.isnan(val):
                out[task] = float(val)
    return out


def judge_failures(results: dict) -> dict[str, dict]:
    """Per task with judge errors: ``{"errors", "items", "judged", "all_failed"}`` (``judged``: items whose answer
    parsed, so that a judge was asked; from ``unparsed_rate``)."""
    out = {}
    samples = results.get("n-samples") or {}
    for task, n_err in _judge_errors(results).items():
        n = int(((samples.get(task) or {}).get("effective")) or 0)
        if n_err <= 0 or n <= 0:
            continue
        unparsed = (results.get("results") or {}).get(task, {}).get("unparsed_rate,none")
        unparsed = unparsed if isinstance(unparsed, (int, float)) and not math.isnan(unparsed) else 0.0
        judged = n - round(unparsed * n)
        out[task] = {"errors": int(n_err), "items": n, "judged": judged, "all_failed": judged > 0 and n_err >= judged}
    return out


def mark_judge_failures(results: dict, section: dict) -> None:
    """Every judgement of a task failed (an unreachable judge): its metrics become NaN (not a silent 0) with the
    reason in ``ambi_plugin.judge.failed``; any judge error is told in one line per task on stderr."""
    import sys

    judge = section.get("judge") if isinstance(section.get("judge"), dict) else None
    reason = (judge or {}).get("first_error") or "the judge's replies could not be read"
    failed = {}
    for task, info in judge_failures(results).items():
        print(
            f"ambi-plugin: judge errors: {info['errors']} of {info['items']} items, task {task}: {reason}",
            file=sys.stderr,
            flush=True,
        )
        if info["all_failed"]:
            failed[task] = f"every judgement failed: {reason}"
            metrics = results["results"][task]
            for key, val in list(metrics.items()):
                # the counts of what failed stay: judge errors, and the model's own unread answers
                if "," in key and not key.startswith(("judge_errors", "unparsed")) and isinstance(val, (int, float)):
                    metrics[key] = math.nan
    if failed and judge is not None:
        judge["failed"] = failed


def _uses_synth(results: dict) -> bool:
    return any(
        isinstance(cfg, dict) and str(cfg.get("dataset_path", "")).startswith("ambi://synth")
        for cfg in (results.get("configs") or {}).values()
    )


def _extras(results: dict, section: dict[str, Any]) -> None:
    """What each benchmark adds to the section (its registry entry's ``results_extra``: a key and a function of the
    results), when it has something to say about this run; an error is written under the key, never raised."""
    from ambi_plugin.benchmarks.registry import entries

    for entry in entries().values():
        if entry.results_extra is None:
            continue
        key, extra = entry.results_extra
        try:
            value = extra(results)
            if value:
                section[key] = value
        except Exception as exc:  # noqa: BLE001 - the results must still be written
            section[key] = {"error": f"{type(exc).__name__}: {exc}"}


def ambi_section(results: dict) -> dict[str, Any]:
    """The section for a results dict (pure but for the judge's process-wide state)."""
    import ambi_plugin
    from ambi_plugin.judge import judge_info

    section: dict[str, Any] = {"version": ambi_plugin.__version__}
    if os.environ.get("AMBI_RUN_ID"):  # set by ambi eval / ambi demo: the run that started us claims only this file
        section["run_id"] = os.environ["AMBI_RUN_ID"]
    try:
        info = judge_info()
        errors = _judge_errors(results)
        info["errors"] = errors
        info["errors_total"] = float(sum(errors.values()))
        section["judge"] = info
    except Exception as exc:  # noqa: BLE001 - the results must still be written
        section["judge"] = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        from ambi_plugin.data.no_records import data_summary

        data = data_summary(results.get("configs") or {})
        if data:
            section["data"] = data
    except Exception as exc:  # noqa: BLE001 - the results must still be written
        section["data"] = {"error": f"{type(exc).__name__}: {exc}"}
    try:
        _extras(results, section)
    except Exception as exc:  # noqa: BLE001 - the results must still be written (an entry that cannot be loaded)
        section["extras"] = {"error": f"{type(exc).__name__}: {exc}"}
    from ambi_plugin.data.no_records import skipped_tasks

    skipped = skipped_tasks()
    if skipped:
        section["skipped"] = {t: r for t, r in skipped.items() if t in (results.get("configs") or {})}
    from ambi_plugin.runtime.item_errors import summary as item_error_summary

    errors = item_error_summary()
    if errors:
        section["item_errors"] = errors
    try:
        from ambi_plugin.runtime.unparsed import examples, read_by

        section["unparsed"] = examples()  # answers no parser read, per task (runtime/unparsed.py)
        if read_by():  # --extract-with-judge: how every answer was read, per task (runtime/extraction.py)
            section["read_by"] = read_by()
    except Exception as exc:  # noqa: BLE001 - the results must still be written
        section["unparsed"] = {"error": f"{type(exc).__name__}: {exc}"}
    if _uses_synth(results):
        from ambi_plugin.config import data_dir
        from ambi_plugin.data.sources import synth_setting
        from ambi_plugin.synth import DEFAULT_N
        from ambi_plugin.synth.suite import read_manifest

        local = data_dir("synth")
        manifest = read_manifest(local) if local is not None else None
        if manifest is not None:  # AMBI_SYNTH_DIR: the suite folder says what it is
            section["synth"] = {"seed": manifest.get("seed"), "n": manifest.get("n"), "dir": str(local)}
        else:
            section["synth"] = {
                "seed": synth_setting("AMBI_SYNTH_SEED", 0),
                "n": synth_setting("AMBI_SYNTH_N", DEFAULT_N),
            }
    return section


def add_section(results: dict) -> None:
    """Before lmms-eval writes the results JSON of a run with a task of ours: NaN for tasks whose release has no rows,
    the ``ambi_plugin`` section, NaN where every judgement failed (not 0)."""
    from ambi_plugin.data.no_records import mark_tasks_without_records

    mark_tasks_without_records(results)
    results[SECTION] = ambi_section(results)
    mark_judge_failures(results, results[SECTION])


def name_items(scored: Any, task: Any) -> None:
    """Each item score says its task (``item["task"]``): the ``unparsed`` aggregation keeps examples per task."""
    if not isinstance(scored, dict) or not task:
        return
    for item in scored.values():
        if isinstance(item, dict) and "task" not in item:
            item["task"] = str(task)


def _note_item_error(task: Any, out: Any) -> None:
    """An item scored with ``item_error`` (its visuals could not be read) is counted under its task's name."""
    from ambi_plugin.runtime import item_errors

    if not item_errors.any_errors() or not isinstance(out, dict):
        return
    for item in out.values():
        if isinstance(item, dict) and item.get("item_error"):
            name = str(getattr(getattr(task, "config", None), "task", "") or "?")
            item_errors.note_task(name, item.get("id"), item["item_error"])
            return


def note_item_scores(task: Any, scored: Any) -> None:
    """After a task of ours scored an item (``process_results``): what the section reports of it, per task (the item
    marked with its task's name for ``unparsed``; an item error counted)."""
    name_items(scored, getattr(getattr(task, "config", None), "task", None))
    _note_item_error(task, scored)
