"""Read lmms-eval output folders into runs: model name, metric values per task, logged per-item scores.

A *run* is one results JSON (``*_results.json``) with the ``--log_samples`` files next to it. Several
runs of one model (seeds, temperatures) share a name and are aggregated to mean +- std; runs of
different models become rows side by side.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ambi_plugin.core.jsonl import iter_jsonl
from ambi_plugin.inputfiles import named_input
from ambi_plugin.reports.results import task_metrics


class ReportError(ValueError):
    """A results path that cannot be read; the message names the path and what to do."""


@dataclass
class Run:
    name: str
    path: Path
    metrics: dict[str, dict[str, float]]
    samples: dict[str, Path] = field(default_factory=dict)  # task -> logged samples JSONL
    config: dict[str, Any] = field(default_factory=dict)
    ambi: dict[str, Any] = field(default_factory=dict)  # the results JSON's ``ambi_plugin`` section (skipped tasks ...)

    def value(self, task: str, metric: str) -> float | None:
        v = self.metrics.get(task, {}).get(metric)
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else v

    def items(self, task: str) -> list[dict]:
        """The per-item scores of ``task`` from its logged samples ([] without ``--log_samples``)."""
        path = self.samples.get(task)
        return read_sample_items(path) if path else []


def model_name(results: dict, fallback: str) -> str:
    """``pretrained=`` of the model args (its last path part), else lmms-eval's model name, else ``fallback``."""
    cfg = results.get("config") or {}
    args = cfg.get("model_args") or results.get("model_name_or_path") or ""
    if isinstance(args, dict):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    for part in str(args).split(","):
        key, _, val = part.partition("=")
        if key.strip() in ("pretrained", "model", "model_name", "predictions") and val.strip():
            return Path(val.strip()).name.removesuffix(".jsonl") or val.strip()
    return str(results.get("model_name") or cfg.get("model") or fallback)


def logged_item(row: dict) -> dict | None:
    """Our per-item score in one lmms-eval ``--log_samples`` row (logged under each metric name): the first
    dict value, other than the ``doc`` itself, that carries ``task_type`` or a record ``id`` (VIA-Bench items
    logged before they carried ``task_type`` have only the id)."""
    for key, val in row.items():
        if key != "doc" and isinstance(val, dict) and ("task_type" in val or "id" in val):
            return val
    return None


def iter_logged(path: Path) -> Iterator[tuple[dict, dict]]:
    """``(row, our item score)`` of each row of an lmms-eval ``--log_samples`` file that logged one; a line that
    is not a JSON object stops the read, named with its file and line."""
    for _, row in iter_jsonl(path, what="logged samples file", objects=True):
        item = logged_item(row)
        if item is not None:
            yield row, item


def read_sample_items(path: Path) -> list[dict]:
    """Our per-item score dicts from an lmms-eval ``--log_samples`` file (one per doc)."""
    return [item for _, item in iter_logged(path)]


def _results_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise ReportError(f"results path {str(path)!r} does not exist; pass an lmms-eval --output_path folder")
    found = sorted(p for p in path.rglob("*_results.json"))
    if not found:
        found = sorted(p for p in path.rglob("*results*.json"))
    if not found:
        raise ReportError(f"no lmms-eval results JSON (*_results.json) below {path}")
    return found


def load_run(results_path: Path, *, name: str | None = None) -> Run:
    try:
        with named_input(results_path, "results JSON"):
            results = json.loads(Path(results_path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ReportError(f"{results_path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(results, dict) or "results" not in results:
        raise ReportError(f"{results_path}: not an lmms-eval results JSON (no 'results' key)")
    stem = results_path.name.split("_results")[0]
    samples = {}
    for p in results_path.parent.glob(f"{stem}_samples_*.jsonl"):
        samples[p.name.split("_samples_", 1)[1].removesuffix(".jsonl")] = p
    return Run(
        name=name or model_name(results, results_path.parent.name),
        path=results_path,
        metrics=task_metrics(results),
        samples=samples,
        config=results.get("config") or {},
        ambi=results.get("ambi_plugin") if isinstance(results.get("ambi_plugin"), dict) else {},
    )


def load_runs(paths: list[str | Path], *, names: list[str] | None = None) -> list[Run]:
    """Every results JSON below each path; ``names`` (one per path) overrides the model names."""
    runs: list[Run] = []
    if names and len(names) != len(paths):
        raise ReportError(f"--name was given {len(names)} time(s) for {len(paths)} results path(s); give one per path")
    for i, path in enumerate(paths):
        for f in _results_files(Path(path)):
            runs.append(load_run(f, name=names[i] if names else None))
    return runs


def group_runs(runs: list[Run]) -> dict[str, list[Run]]:
    """Runs by model name, in first-seen order (repeated runs of one model form one group)."""
    out: dict[str, list[Run]] = {}
    for run in runs:
        out.setdefault(run.name, []).append(run)
    return out
