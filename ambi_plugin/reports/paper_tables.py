"""The paper tables of ``ambi score`` and ``ambi score --results`` (Markdown), each benchmark's own.

Input: a :class:`~ambi_plugin.benchmarks.layout.TableData`: ``values = {column: {metric name: value}}``, metric
names as the tasks report them (``acc``, ``acc_<class>``, ``fp_ratio_<category>`` ...), one column per model or
answer set, and the record counts, prompt types and protocols. Missing or NaN cells print as ``n/a``.

A task names its table kind in its YAML (``metadata.paper_table``); the benchmark whose registry entry lists that
kind (``rescore.kinds``) prints it (``rescore.tables``), in the compact form of ``ambi score``: answer sets as
columns or rows. Which metric is which row or column is laid out once, in the benchmark's layouts
(``benchmarks/<b>/tables.py``) that ``ambi report`` renders too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ambi_plugin.benchmarks.layout import TableData, markdown

__all__ = ["kinds", "markdown", "paper_tables", "paper_tables_of_results", "tables_from_results"]


def _printers() -> dict[str, Any]:
    """{paper table kind: the tables function of the benchmark that prints it}."""
    from ambi_plugin.benchmarks.registry import entries

    out: dict[str, Any] = {}
    for entry in entries().values():
        rescore = entry.rescore
        if rescore is not None and rescore.tables is not None:
            out.update(dict.fromkeys(rescore.kinds, rescore.tables))
    return out


def kinds() -> tuple[str, ...]:
    """Every paper table kind a registered benchmark prints."""
    return tuple(_printers())


def paper_tables(kind: str, data: TableData) -> str:
    """Every table of ``kind`` for ``data`` (its ``values``; ``protocols``: "rule" and/or "llm" where the benchmark
    has an LLM-assisted protocol)."""
    printers = _printers()
    if kind not in printers:
        raise ValueError(f"Expected argument `kind` to be one of {tuple(printers)} but got {kind!r}")
    return printers[kind](kind, data)


def tables_from_results(results: Mapping[str, Any]) -> str:
    """The paper tables of every task of ours with one (``metadata.paper_table``) in an lmms-eval results JSON."""
    from ambi_plugin.benchmarks.layout import task_metrics
    from ambi_plugin.reports.answers import ScoreError
    from ambi_plugin.runtime.taskindex import index

    idx = index()
    printers = _printers()
    parts = []
    column = str(results.get("model_name") or (results.get("config") or {}).get("model") or "results")
    for task, metrics in sorted(task_metrics(results).items()):
        info = idx.get(task)
        meta = (info.config.get("metadata") or {}) if info else {}
        kind = meta.get("paper_table")
        if not kind or kind not in printers:
            continue
        protocols = ("rule", "llm") if any(k.endswith("_llm") for k in metrics) else ("rule",)
        parts.append(f"## {task}\n")
        parts.append(
            paper_tables(
                kind, TableData({column: metrics}, prompt_type=str(meta.get("prompt_type", "")), protocols=protocols)
            )
        )
        parts.append("")
    if not parts:
        raise ScoreError(
            "the results JSON holds no task of ours with a paper table (metadata.paper_table: "
            + ", ".join(sorted(printers))
            + ")"
        )
    return "\n".join(parts).rstrip()


def paper_tables_of_results(path: str | Path) -> str:
    """``ambi score --results``: the paper tables of the results JSON found at ``path`` (a file or an output folder)."""
    from ambi_plugin.inputfiles import named_input
    from ambi_plugin.reports.results import find_results_json

    path = find_results_json(Path(path))
    with named_input(path, "results JSON"):
        return tables_from_results(json.loads(path.read_text(encoding="utf-8")))
