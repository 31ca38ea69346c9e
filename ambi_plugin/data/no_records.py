"""What the tasks of a run read, and the tasks that read nothing: shared by :mod:`.sources` and the harness adapters.

* :data:`LOADED`: the folder each ``(dataset_path, dataset_name)`` came from, for the results JSON's data section
  (:func:`data_summary`, with the rows a converted release skipped, from its load report).
* :data:`NO_RECORDS`: the records a release has no rows for, and why; such a task runs on zero rows (a one-row
  stand-in no model sees) and its metrics are written as NaN (:func:`mark_tasks_without_records`).
* :data:`SKIPPED` (:func:`skipped_tasks`): the tasks whose preflight failed in a run with ``AMBI_SKIP_MISSING=1``
  (:func:`.sources.skip_task`), a by-product of the run kept on its state (:mod:`ambi_plugin.runtime.run_state`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections import Counter
from pathlib import Path

from ambi_plugin.benchmarks.release import REPORT_FILE
from ambi_plugin.core.jsonl import count_rows
from ambi_plugin.paths import cache_dir
from ambi_plugin.runtime.run_state import current


def skipped_tasks() -> dict[str, str]:
    """The run's task -> why its preflight failed (AMBI_SKIP_MISSING=1: it runs on zero rows and reports NaN); the
    run state's own dict (``SKIPPED`` names it too)."""
    return current().skipped_tasks


def __getattr__(name: str):
    if name == "SKIPPED":  # the run's, not a module global
        return skipped_tasks()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# (dataset_path, dataset_name) -> the folder its records came from, for the results JSON's data section
LOADED: dict[tuple[str, str], Path] = {}
# (dataset_path, dataset_name) -> why the release has no rows for it (its tasks run on zero rows)
NO_RECORDS: dict[tuple[str, str], str] = {}
NO_RECORDS_ID = "ambi-no-records"


def absent_reason(report: dict, name: str) -> str:
    """Why a converted release has no records ``name`` (the loader's reason, else a generic one)."""
    return (report.get("absent") or {}).get(name) or (
        f"the release read from {report.get('source')} gives no rows for it "
        f"({report.get('skipped_total', 0)} rows of the release were skipped as bad: see {REPORT_FILE})"
    )


def rows_absent(root: Path, name: str) -> str | None:
    """Why the converted release at ``root`` (a folder with a load report) has no rows ``name``; None when it has
    them, or when ``root`` is no converted release."""
    from ambi_plugin.benchmarks.release import read_report

    src = root / f"{name}.jsonl"
    report = read_report(root)
    if report is None or (src.is_file() and count_rows(src, most=1)):
        return None
    return absent_reason(report, name)


def skipped_stand_in(dataset_path: str, name: str) -> Path | None:
    """The stand-in file of a task skipped by the preflight, None for every other task."""
    reason = NO_RECORDS.get((dataset_path, name)) if skipped_tasks() else None
    if reason is None or not reason.startswith("preflight failed: "):
        return None
    out_dir = cache_dir() / "harness"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"skipped-{hashlib.sha256(f'{dataset_path}|{name}|{reason}'.encode()).hexdigest()[:16]}.jsonl"
    if not out.exists():
        rec = {"id": NO_RECORDS_ID, "no_records": reason}
        row = {"id": NO_RECORDS_ID, "task_type": "none", "category": "none", "record": json.dumps(rec)}
        tmp = out.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(row) + "\n", encoding="utf-8")
        os.replace(tmp, out)
    return out


def _key(cfg: dict) -> tuple[str, str]:
    return (str(cfg.get("dataset_path", "")), str(cfg.get("dataset_name", "")))


def no_records_reason(task) -> str | None:
    """Why an lmms-eval task of ours has no records in its release (None: it has records, or is not ours)."""
    if not NO_RECORDS:  # the usual case; this runs for every doc
        return None
    cfg = getattr(task, "config", None)
    key = (str(getattr(cfg, "dataset_path", "") or ""), str(getattr(cfg, "dataset_name", "") or ""))
    return NO_RECORDS.get(key)


def mark_tasks_without_records(results: dict) -> list[str]:
    """Give every task that ran on zero rows (no records in its release) its declared metrics as NaN and zero
    samples in an lmms-eval results dict (lmms-eval itself writes no metric for a task without documents).
    Returns those tasks."""
    tasks = []
    for task, cfg in (results.get("configs") or {}).items():
        if not isinstance(cfg, dict) or _key(cfg) not in NO_RECORDS:
            continue
        metrics = results.setdefault("results", {}).setdefault(task, {})
        for entry in cfg.get("metric_list") or []:
            if isinstance(entry, dict) and entry.get("metric"):
                metrics.setdefault(f"{entry['metric']},none", math.nan)
        if isinstance(results.get("n-samples"), dict):
            results["n-samples"][task] = {"original": 0, "effective": 0}
        tasks.append(task)
    return tasks


def data_summary(configs: dict) -> dict[str, dict]:
    """Per task of ours that read a benchmark release: its source and the rows skipped (from the load report)."""
    from ambi_plugin.benchmarks.release import UNASSIGNED, LoadReport, read_report

    out: dict[str, dict] = {}
    for task, cfg in (configs or {}).items():
        if not isinstance(cfg, dict):
            continue
        key = _key(cfg)
        root = LOADED.get(key)
        if root is None:
            continue
        report = read_report(root)
        if report is None:
            out[task] = {"source": str(root), "load_report": None}
            continue
        rows = [s for s in report.get("skipped", []) if s.get("task") == task or task in (s.get("also") or ())]
        src = root / f"{key[1]}.jsonl"
        out[task] = {
            "source": report.get("source"),
            "records": 0 if key in NO_RECORDS or not src.is_file() else count_rows(src),
            "skipped": len(rows),
            "skipped_by_reason": dict(sorted(Counter(LoadReport.reason_key(s["reason"]) for s in rows).items())),
            "benchmark_skipped_total": report.get("skipped_total", 0),
            "benchmark_skipped_unassigned": (report.get("skipped_by_task") or {}).get(UNASSIGNED, 0),
        }
        if key in NO_RECORDS:
            out[task]["no_records"] = NO_RECORDS[key]
        if report.get("results_notes"):  # e.g. RCID's Hub copy: zero-shot on a subset of the paper's data
            out[task]["benchmark_notes"] = list(report["results_notes"])
        if report.get("identity"):  # rows read = items loaded + skipped (by reason) + merged duplicates
            out[task]["benchmark_release"] = report["identity"]
        if report.get("flagged"):
            out[task]["benchmark_flagged"] = {what: len(ids) for what, ids in report["flagged"].items()}
    return out


__all__ = [
    "LOADED",
    "NO_RECORDS",
    "NO_RECORDS_ID",
    "skipped_tasks",
    "absent_reason",
    "data_summary",
    "mark_tasks_without_records",
    "no_records_reason",
    "skipped_stand_in",
]
