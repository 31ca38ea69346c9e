"""What a paper table reads: one :class:`Layout` per table, and the metric values of a results JSON it reads from.

A layout has columns and variants. A row of a table is one model (one run group) in one variant
(0-shot / 4-shot, rule / LLM-assisted, normal / CoT / blind, pixel / human prompts ...). A column names
where its value comes from as ``(task, metric)`` candidates, formatted with the variant's fields, the
first one present wins (``task`` None: each of the variant's tasks in turn). Everything is driven by
metric names, so a results JSON built by hand, an lmms-eval run, or a task added later all render the
same way.

Each benchmark declares its own layouts (``benchmarks/<b>/tables.py``) on its registry entry
(``paper_layouts``); the reports (:mod:`ambi_plugin.reports.layouts`) collect them from the registry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

Source = tuple["str | None", str]
Values = Mapping[str, Mapping[str, float]]


@dataclass(frozen=True)
class Column:
    label: str
    sources: tuple[Source, ...]


@dataclass(frozen=True)
class Variant:
    label: str
    tasks: tuple[str, ...] = ()
    fields: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Layout:
    key: str
    benchmark: str
    title: str
    columns: tuple[Column, ...]
    variants: tuple[Variant, ...] = (Variant(""),)
    scale: float = 100.0  # results hold fractions; percent tables show 100 x
    digits: int = 2
    avg: bool = False  # an AVG column: unweighted mean of the available cells
    rank: bool = False  # a Rank column (by AVG, within the table's rows)
    transpose: bool = False  # print columns as rows (IllusionVQA Table 1 / 8)
    chart: bool = True  # draw a per-column bar chart
    note: str = ""

    def sources(self, column: Column, variant: Variant) -> Iterable[tuple[str, str]]:
        for task, metric in column.sources:
            metric = metric.format(**variant.fields)
            if task is None:
                for t in variant.tasks:
                    yield t.format(**variant.fields), metric
            else:
                yield task.format(**variant.fields), metric


def cols(columns: Sequence[tuple[str, str, str]]) -> tuple[Column, ...]:
    """Columns from ``(label, task, metric)`` triples, one source each."""
    return tuple(Column(label, ((task, metric),)) for label, task, metric in columns)


def task_metrics(results: Mapping) -> dict[str, dict[str, float]]:
    """{task: {metric: value}} from an lmms-eval results JSON, filter suffix and stderr dropped."""
    out: dict[str, dict[str, float]] = {}
    for task, vals in (results.get("results") or {}).items():
        row = {}
        for key, val in vals.items():
            if "," not in key or "_stderr" in key:
                continue
            metric = key.split(",", 1)[0]
            if isinstance(val, (int, float)):
                row[metric] = float(val)
        if row:
            out[task] = row
    return out


@dataclass(frozen=True)
class TableData:
    """What ``ambi score`` prints a benchmark's paper tables from (its entry's ``rescore.tables(kind, data)``):
    ``values = {column: {metric name: value}}``, one column per model or answer set; the record ``counts`` per
    class or question type; the ``prompt_type`` of every column (one for all, or one per column); the
    ``protocols`` scored ("rule" and/or "llm", for a benchmark with an LLM-assisted protocol)."""

    values: Values
    counts: Mapping[str, int] | None = None
    prompt_type: str | Mapping[str, str] = ""
    protocols: Sequence[str] = ("rule",)


def cell(value: float | None, digits: int = 4, scale: float = 1.0) -> str:
    """One number of a table: ``n/a`` when missing or NaN, else ``scale * value`` with ``digits`` decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{scale * value:.{digits}f}"


def markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table, columns padded to their widest cell."""
    table = [list(header), *[list(r) for r in rows]]
    widths = [max(len(str(r[i])) for r in table) for i in range(len(header))]
    lines = ["| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |" for r in table]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def shipped_reference(benchmark: str) -> dict:
    """The papers' printed rows shipped with ambi-plugin for one benchmark (``reports/reference/<b>.json``, the
    format of :mod:`ambi_plugin.reports.reference`)."""
    import json
    from importlib import resources

    path = resources.files("ambi_plugin").joinpath("reports").joinpath("reference").joinpath(f"{benchmark}.json")
    return json.loads(path.read_text(encoding="utf-8"))


__all__ = [
    "Column",
    "Layout",
    "Source",
    "TableData",
    "Values",
    "Variant",
    "cell",
    "cols",
    "markdown",
    "shipped_reference",
    "task_metrics",
]
