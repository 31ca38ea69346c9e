"""The HTML report's overview: every task (rows) by model (columns), its main metric with n and the interval, the
paper's number for the same model beside it (``--compare-paper``), and one chart across all tasks (inline SVG).

A task's main metric is the one its per-task table leads with (:func:`ambi_plugin.reports.layouts.generic_layout`:
``acc``, ``exact_match``, ``desc_score``, ``ap50``, ``human_like_rate``, else its first metric). The interval is the
one the report's tables give a cell (:func:`ambi_plugin.reports.tables._ci`); over repeated runs of one model, the
mean and the standard deviation over runs.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from ambi_plugin.reports import layouts as L
from ambi_plugin.reports.reference import find_paper_row, reference_table
from ambi_plugin.reports.runs import Run, group_runs
from ambi_plugin.reports.stats import mean_std
from ambi_plugin.reports.tables import EXTRA_REFERENCES, REF_ALIASES, _ci

OTHER = "Other tasks"


def benchmark_titles() -> dict[str, str]:
    """{benchmark: its title} in the report's order (the registry's; ``""``: tasks of no benchmark, last)."""
    from ambi_plugin.benchmarks.registry import entries

    return {**{e.source: e.title or e.name for e in entries().values()}, "": OTHER}


@dataclass
class OverviewCell:
    value: float | None
    ci: tuple[float, float] | None = None
    ci_method: str = ""  # "wilson" (a proportion) or "bootstrap" (reports/stats.py)
    std: float | None = None
    n: int | None = None  # items per run
    runs: int = 1
    paper: float | None = None  # the paper's value for this model (--compare-paper)
    paper_source: str = ""  # "AmbiBench Table 1 (%) / Hybrid: Qwen2.5-VL-7B"


@dataclass
class OverviewRow:
    task: str
    benchmark: str
    metric: str
    unit: str  # "%" or "score"
    cells: list[OverviewCell | None] = field(default_factory=list)

    @property
    def top(self) -> float:
        """The metric's full scale (percent 100, the 0-2 description score 2, other scores 1)."""
        return 100.0 if self.unit == "%" else 2.0 if self.metric.startswith("desc_score") else 1.0


def _finite(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def task_benchmark(task: str) -> str:
    """The benchmark a task belongs to: the paper layout reading it, else its name's prefix ("" if none)."""
    for lay in L.PAPER_LAYOUTS:
        for var in lay.variants:
            for col in lay.columns:
                if any(t == task for t, _ in lay.sources(col, var)):
                    return lay.benchmark
    from ambi_plugin.benchmarks.registry import of_task

    entry = of_task(task)  # where no paper layout reads it: its name's prefix (the entry's task_prefixes)
    return entry.source if entry is not None else ""


def _paper_value(task: str, metric: str, model: str, aliases: dict | None, scale: float) -> tuple[float | None, str]:
    for lay in L.PAPER_LAYOUTS:
        for var in lay.variants:
            for col in lay.columns:
                if (task, metric) not in set(lay.sources(col, var)):
                    continue
                setting = var.label if len(lay.variants) > 1 else ""
                for key in (lay.key, *EXTRA_REFERENCES.get(lay.key, ())):
                    ref = reference_table(key)
                    cols = [REF_ALIASES.get(c, c) for c in ref["columns"]] if ref else []
                    row = find_paper_row(ref, model, setting, aliases) if ref and col.label in cols else None
                    v = row["values"][cols.index(col.label)] if row else None
                    if v is not None:
                        where = f"{ref['title']} / {col.label}: {row['name']}" + (f" ({setting})" if setting else "")
                        return float(v) / lay.scale * scale, where
    return None, ""


def _n_items(run: Run, task: str, counts: dict) -> int | None:
    key = (str(run.path), task)
    if key not in counts:
        n = len(run.items(task)) if task in run.samples else None
        if n is None:
            import json

            try:
                info = json.loads(run.path.read_text(encoding="utf-8"))
                n = ((info.get("n-samples") or {}).get(task) or {}).get("effective")
            except (OSError, ValueError, AttributeError):
                n = None
        counts[key] = n
    return counts[key]


def overview_rows(
    runs: Sequence[Run],
    *,
    compare_paper: bool = False,
    aliases: dict[str, str] | None = None,
    n_boot: int = 0,
    seed: int = 0,
    cache: dict | None = None,
) -> tuple[list[str], list[OverviewRow]]:
    """(model names, one row per task): tasks grouped by benchmark in the report's order, then by name."""
    cache = {} if cache is None else cache
    groups = group_runs(list(runs))
    names: dict[str, list[str]] = {}
    for run in runs:
        for task, metrics in run.metrics.items():
            have = names.setdefault(task, [])
            have.extend(m for m in metrics if m not in have)
    order = list(benchmark_titles())
    rows, counts = [], {}
    for task in sorted(names, key=lambda t: (order.index(task_benchmark(t)), t)):
        lay = L.generic_layout(task, names[task])
        if lay is None:
            continue
        metric, scale = lay.columns[0].sources[0][1], lay.scale
        row = OverviewRow(task, task_benchmark(task), metric, "%" if scale == 100.0 else "score")
        for model, group in groups.items():
            vals = [r.value(task, metric) for r in group]
            vals = [v * scale for v in vals if _finite(v)]
            if not vals:
                row.cells.append(None)
                continue
            mean, std = mean_std(vals)
            cell = OverviewCell(mean, std=std if len(vals) > 1 else None, runs=len(vals),
                                n=_n_items(group[0], task, counts))  # fmt: skip
            if len(group) == 1:
                got = _ci(group[0], task, metric, scale, n_boot=n_boot, seed=seed, cache=cache)
                if got is not None:  # the interval the task's table gives the same cell, with its method
                    cell.ci, cell.ci_method = got.ci, got.ci_method
            if compare_paper:
                cell.paper, cell.paper_source = _paper_value(task, metric, model, aliases, scale)
            row.cells.append(cell)
        if any(c is not None for c in row.cells):
            rows.append(row)
    return list(groups), rows


def _err(cell: OverviewCell) -> tuple[float, float] | None:
    if cell.ci and all(_finite(x) for x in cell.ci):
        return cell.ci
    if _finite(cell.std):
        return cell.value - cell.std, cell.value + cell.std
    return None


def overview_svg(models: Sequence[str], rows: Sequence[OverviewRow], palette: Sequence[str]) -> str:
    """One horizontal bar chart of every percent row: a bar per model (its colour), whiskers from the interval
    (or the std over runs), a 0-100 axis. Score rows (another scale) are listed under it instead."""
    e = html.escape
    pct = [r for r in rows if r.unit == "%"]
    bar, gap, label_w, plot_w, top = 9, 6, 175, 300, 22
    band = bar * max(1, len(models)) + gap
    height = top + band * len(pct) + 26
    width = label_w + plot_w + 16
    x = lambda v: label_w + plot_w * max(0.0, min(100.0, v)) / 100.0  # noqa: E731
    out = [f'<svg class="ov-chart" role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
           f'xmlns="http://www.w3.org/2000/svg"><title>Main metric per task and model (%)</title>']  # fmt: skip
    for k, m in enumerate(models):
        lx = label_w + k * 110
        out.append(f'<rect x="{lx}" y="4" width="10" height="10" fill="{palette[k % len(palette)]}"/>'
                   f'<text x="{lx + 14}" y="13" class="lg">{e(m[:15])}</text>')  # fmt: skip
    for v in range(0, 101, 25):
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top - 2}" y2="{height - 22}" class="grid"/>'
                   f'<text x="{x(v):.1f}" y="{height - 8}" class="ax" text-anchor="middle">{v}</text>')  # fmt: skip
    for i, r in enumerate(pct):
        y0 = top + i * band
        out.append(f'<a href="#items={e(r.task)}"><text x="{label_w - 6}" y="{y0 + band / 2 + 1:.1f}" class="tk" '
                   f'text-anchor="end" dominant-baseline="middle">{e(r.task[:30])}</text></a>')  # fmt: skip
        for k, cell in enumerate(r.cells):
            if cell is None or not _finite(cell.value):
                continue
            y = y0 + k * bar
            w = max(0.0, x(cell.value) - label_w)
            tip = f"{models[k]}: {cell.value:.2f}%"
            out.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar - 1}" '
                       f'fill="{palette[k % len(palette)]}"><title>{e(r.task)} / {e(tip)}</title></rect>')  # fmt: skip
            err = _err(cell)
            if err:
                ym = y + (bar - 1) / 2
                out.append(f'<line x1="{x(err[0]):.1f}" x2="{x(err[1]):.1f}" y1="{ym}" y2="{ym}" class="wh"/>')
    out.append("</svg>")
    other = [r for r in rows if r.unit != "%"]
    if other:
        listed = ", ".join(f"{e(r.task)} ({e(r.metric)}, 0-{r.top:g})" for r in other)
        out.append(f"<figcaption class='notes'>Not charted (another scale): {listed}.</figcaption>")
    return "".join(out)
