"""Read lmms-eval results JSON files: the one place a results JSON is found (:func:`find_results_json`) and read into
``{task: {metric: value}}`` (:func:`task_metrics`), for every report route: ``ambi results`` (:func:`results_sections`),
``ambi score --results`` (:func:`ambi_plugin.reports.paper_tables.paper_tables_of_results`) and ``ambi report``
(:func:`ambi_plugin.reports.build_report`, through :mod:`ambi_plugin.reports.runs`)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path

from ambi_plugin.benchmarks.layout import task_metrics

RESULTS_EXPECTED = (
    "expected the results JSON lmms-eval writes (<output_path>/.../<date>_results.json) or the output folder "
    "holding it; per-item samples (*.jsonl) are not results: re-score them with 'ambi score'"
)


def find_results_json(path: Path) -> Path:
    """A results JSON itself, or the newest ``*_results.json`` below an lmms-eval output folder."""
    path = Path(path)
    if path.is_file():
        return path
    found = sorted(path.rglob("*results*.json"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise FileNotFoundError(f"no lmms-eval results JSON below {path}")
    return found[-1]


# Metrics that count items (lmms-eval stores every metric as a float): printed as whole numbers.
COUNT_METRICS = frozenset({"unparsed", "judge_errors"})


def format_value(v: float | None, metric: str | None = None) -> str:
    """A table cell: ``n/a`` for NaN (or no value), a count as a whole number, anything else to 4 decimals."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if metric in COUNT_METRICS and float(v).is_integer():
        return str(int(v))
    return f"{v:.4f}"


def format_results_table(results: dict) -> str:
    """A Markdown table: one row per task and metric."""
    rows = [("task", "metric", "value")]
    for task, metrics in sorted(task_metrics(results).items()):
        for metric, val in metrics.items():
            rows.append((task, metric, format_value(val, metric)))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def limit_warning(limit) -> str | None:
    """What a run's ``--limit`` means for its numbers ("used --limit 6: ..."), None for a run without one."""
    if limit in (None, "", 0):
        return None
    return (
        f"used --limit {limit}: each task ran on at most {limit} items, so the numbers are not the benchmark's and "
        "cannot be compared with the papers"
    )


def format_run_header(results: dict) -> str:
    """What ran: the model and its arguments, items per task, a warning when ``--limit`` cut the tasks short, and the
    tasks skipped by the preflight or with item errors."""
    config = results.get("config") or {}
    lines = []
    if config.get("model"):
        args = config.get("model_args")
        lines.append(f"model: {config['model']}" + (f" ({args})" if args else ""))
    samples = results.get("n-samples") or {}
    counts = {t: (v or {}).get("effective") for t, v in sorted(samples.items()) if isinstance(v, dict)}
    if counts:
        lines.append("items per task: " + ", ".join(f"{t} {n}" for t, n in counts.items()))
    warning = limit_warning(config.get("limit"))
    if warning:
        lines.append(f"WARNING: this run {warning}")
    section = results.get("ambi_plugin") or {}
    for task, why in (section.get("skipped") or {}).items():
        lines.append(f"skipped (NaN): {task}: {why}")
    for task, info in (section.get("item_errors") or {}).items():
        first = (info.get("items") or [{}])[0]
        lines.append(f"item errors: {task}: {info.get('count')} (first: id {first.get('id')}: {first.get('reason')})")
    return "\n".join(lines)


def read_results(path: str | Path) -> tuple[Path, dict]:
    """(the results JSON found at ``path``, its content), checked to be lmms-eval's results (a ``results`` table)."""
    path = find_results_json(Path(path))
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ValueError(f"{path} is not a JSON file: {RESULTS_EXPECTED}") from None
    if not isinstance(results, dict) or not isinstance(results.get("results"), dict):
        raise ValueError(f"{path} has no 'results' table: {RESULTS_EXPECTED}")
    return path, results


def results_sections(path: str | Path, *, unparsed_examples: Callable[[dict], str] | None = None) -> Iterator[str]:
    """``ambi results``, a section at a time: what ran, every task and metric, the unread answers (formatted by the
    harness adapter's ``unparsed_examples``), and each benchmark's own tables (its registry entry's ``results_tables``)
    when it ran."""
    _path, results = read_results(path)
    header = format_run_header(results)
    if header:
        yield header + "\n"
    yield format_results_table(results)
    unread = (results.get("ambi_plugin") or {}).get("unparsed")
    if unparsed_examples is not None and isinstance(unread, dict) and unread and "error" not in unread:
        yield "\nUnparsed answers (the model's style is not read; full list: the results JSON's ambi_plugin.unparsed):"
        yield unparsed_examples(unread)
    how = (results.get("ambi_plugin") or {}).get("read_by")
    if isinstance(how, dict) and how:
        from ambi_plugin.runtime.unparsed import format_read_by

        yield "\nAnswers read by rule / by the judge (--extract-with-judge) / unread, per task:"
        yield format_read_by(how)
    from ambi_plugin.benchmarks.registry import entries

    metrics = task_metrics(results)
    for entry in entries().values():  # a benchmark's own tables (AmbiBench's paper columns and AVG), when it ran
        extra = entry.results_tables(metrics) if entry.results_tables is not None else ""
        if extra:
            yield "\n" + extra
