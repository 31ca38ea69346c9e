"""Build the report's tables: one per paper layout (and per uncovered task), a row per model and variant,
mean +- std over repeated runs, 95% intervals from logged samples, and the paper's rows.

A cell's interval (one run with ``--log_samples``): the Wilson score interval when the metric is the mean of 0/1
item scores (every logged item's score is 0 or 1 and the score is not a graded one), the percentile bootstrap over
items otherwise (graded 0/1/2 scores, AP, rates that are not item means). Each cell carries its method; each
table's notes say which method gives the intervals of which column.

Cells hold display values (percent or raw, per layout). A row's ``kind`` is ``run`` (the user's),
``paper`` (a reference row; ``marks`` flag printed cells that contradict the paper's own counts) or
``diff`` (the user's row minus the paper's row of the same model and setting).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ambi_plugin.core.scoring import aggregate
from ambi_plugin.reports import layouts as L
from ambi_plugin.reports.reference import find_paper_row, reference_table
from ambi_plugin.reports.runs import Run, group_runs
from ambi_plugin.reports.stats import (
    BOOTSTRAP,
    WILSON,
    bootstrap_ci,
    bootstrap_mean_ci,
    interval_label,
    mean_std,
    wilson_ci,
)

AVG, RANK = "AVG", "Rank"
REF_ALIASES = {"Avg.": AVG}
# IllusionVQA's Table 1 and Table 8 share a layout; both papers' rows are references for it.
EXTRA_REFERENCES = {"iv_table_1": ("iv_table_8",)}


@dataclass
class Cell:
    value: float | None
    std: float | None = None
    ci: tuple[float, float] | None = None
    mark: str = ""
    ci_method: str = ""  # "wilson" | "bootstrap" (stats.WILSON / stats.BOOTSTRAP) when ``ci`` is set
    n: int | None = None  # the items the interval is over


@dataclass
class Row:
    label: str
    setting: str
    kind: str  # run | paper | diff
    cells: list[Cell]
    note: str = ""
    n_runs: int = 1
    group: str = ""


@dataclass
class Table:
    key: str
    benchmark: str
    title: str
    columns: list[str]
    rows: list[Row]
    digits: int = 2
    transpose: bool = False
    chart: bool = True
    notes: list[str] = field(default_factory=list)
    number_format: str = "f"  # "f": ``digits`` decimals; "g": ``digits`` significant digits (p-values)
    ci_level: float = 0.95

    def run_rows(self) -> list[Row]:
        return [r for r in self.rows if r.kind == "run"]


def _finite(v: float | None) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _metrics_of(run: Run) -> dict[str, dict[str, float]]:
    return L.derived_metrics(run.metrics)  # with the pseudo-tasks a benchmark gathers from its tasks


def _lookup(layout: L.Layout, col: L.Column, var: L.Variant, metrics: dict) -> tuple[str, str, float] | None:
    for task, metric in layout.sources(col, var):
        v = metrics.get(task, {}).get(metric)
        if _finite(v):
            return task, metric, float(v)
    return None


def _ci(run: Run, task: str, metric: str, scale: float, *, n_boot: int, seed: int, cache: dict) -> Cell | None:
    """A cell holding only the interval of ``metric`` over the run's logged items of ``task`` (its method and n),
    or None (no samples, no item scored, a metric the core does not compute, or ``n_boot`` 0: no intervals)."""
    if n_boot <= 0 or task not in run.samples:
        return None
    key = (str(run.path), task)
    if key not in cache:
        cache[key] = run.items(task)
    items = cache[key]
    if not items:
        return None
    from ambi_plugin.reports.significance import binary_scores, item_scores

    scores = item_scores(metric, items)
    if scores is not None:  # a mean of per-item scores (none scored: no interval)
        if not scores:
            return None
        vals = list(scores.values())
        if binary_scores(metric, vals):  # a proportion: k of n items
            lo, hi = wilson_ci(round(sum(vals)), len(vals))
            return Cell(None, ci=(lo * scale, hi * scale), ci_method=WILSON, n=len(vals))
        lo, hi = bootstrap_mean_ci(vals, n_resamples=n_boot, seed=seed)
        return Cell(None, ci=(lo * scale, hi * scale), ci_method=BOOTSTRAP, n=len(vals)) if _finite(lo) else None
    try:
        aggregate(metric, items)
    except (KeyError, TypeError, ValueError):
        return None  # a metric the core aggregations do not compute (another module's own metric)
    lo, hi = bootstrap_ci(items, lambda xs: aggregate(metric, xs), n_resamples=n_boot, seed=seed)
    return Cell(None, ci=(lo * scale, hi * scale), ci_method=BOOTSTRAP, n=len(items)) if _finite(lo) else None


def interval_note(table: Table, *, n_boot: int, seed: int) -> str | None:
    """Which interval each column's ``[lo, hi]`` is: level and method, and the columns (or cells) it covers."""
    where: dict[str, list[str]] = {}
    for j, col in enumerate(table.columns):
        methods = {r.cells[j].ci_method for r in table.rows if j < len(r.cells) and r.cells[j].ci}
        for m in sorted(methods):
            if len(methods) == 1:
                where.setdefault(m, []).append(col)
            else:  # one column, two methods (different metrics behind it): name the rows
                rows = [r.label + (f" ({r.setting})" if r.setting else "") for r in table.rows
                        if j < len(r.cells) and r.cells[j].ci_method == m]  # fmt: skip
                where.setdefault(m, []).append(f"{col} ({', '.join(rows)})")
    if not where:
        return None
    what = {WILSON: "a proportion: every logged item scored 0 or 1",
            BOOTSTRAP: f"over the logged items; {n_boot} resamples, seed {seed}"}  # fmt: skip
    if len(where) == 1:  # one method for every interval of the table
        ((m, _),) = where.items()
        return f"[lo, hi]: {interval_label(m, table.ci_level)} interval ({what[m]})"
    return "; ".join(f"[lo, hi] in {', '.join(cols)}: {interval_label(m, table.ci_level)} interval ({what[m]})"
                     for m, cols in where.items())  # fmt: skip


def layout_table(
    layout: L.Layout, runs: list[Run], *, n_boot: int = 0, seed: int = 0, cache: dict | None = None
) -> Table | None:
    """The table of ``layout`` over ``runs`` (None when no run has any of its cells)."""
    cache = {} if cache is None else cache
    rows: list[Row] = []
    for name, group in group_runs(runs).items():
        metrics = [_metrics_of(r) for r in group]
        for var in layout.variants:
            cells, found = [], False
            for col in layout.columns:
                hits = [_lookup(layout, col, var, m) for m in metrics]
                vals = [h[2] * layout.scale for h in hits if h]
                if not vals:
                    cells.append(Cell(None))
                    continue
                found = True
                mean, std = mean_std(vals)
                cell = Cell(mean, std if len(vals) > 1 else None)
                if len(group) == 1 and hits[0]:
                    got = _ci(group[0], hits[0][0], hits[0][1], layout.scale, n_boot=n_boot, seed=seed, cache=cache)
                    if got is not None:
                        cell.ci, cell.ci_method, cell.n = got.ci, got.ci_method, got.n
                cells.append(cell)
            if found:
                rows.append(Row(name, var.label if len(layout.variants) > 1 else "", "run", cells, n_runs=len(group)))
    if not rows:
        return None
    columns = [c.label for c in layout.columns]
    if layout.avg:
        columns.append(AVG)
        for row in rows:
            vals = [c.value for c in row.cells if _finite(c.value)]
            row.cells.append(Cell(math.fsum(vals) / len(vals) if vals else None))
    if layout.rank:
        columns.append(RANK)
        add_ranks(rows)
    notes = [layout.note] if layout.note else []
    table = Table(layout.key, layout.benchmark, layout.title, columns, rows, layout.digits, layout.transpose,
                  layout.chart, notes)  # fmt: skip
    note = interval_note(table, n_boot=n_boot, seed=seed)
    if note:
        table.notes.append(note)
    return table


def add_ranks(rows: list[Row]) -> None:
    """Append a Rank cell: by the last cell (AVG), descending, among the rows of the same setting (the models
    compared under one protocol); equal AVGs share the best rank (1, 1, 3); no AVG, no rank."""
    for setting in dict.fromkeys(r.setting for r in rows):
        group = [r for r in rows if r.setting == setting]
        avgs = [r.cells[-1].value for r in group]
        for row, avg in zip(group, avgs):
            better = sum(1 for a in avgs if _finite(a) and _finite(avg) and a > avg)
            row.cells.append(Cell(float(better + 1) if _finite(avg) else None))


def add_paper_rows(table: Table, *, aliases: dict[str, str] | None = None) -> None:
    """Append the paper's rows (every model and human row) and, for each of the user's rows whose model
    the paper also reports, a difference row (user minus paper)."""
    refs = [k for k in (table.key, *EXTRA_REFERENCES.get(table.key, ())) if reference_table(k)]
    if not refs:
        return
    diffs, papers = [], []
    for key in refs:
        ref = reference_table(key)
        ref_cols = [REF_ALIASES.get(c, c) for c in ref["columns"]]
        table.notes.append(f"paper rows: {ref['title']}")
        for prow in ref["rows"]:
            cells = []
            for col in table.columns:
                v, mark, std = None, "", None
                if col in ref_cols:
                    i = ref_cols.index(col)
                    v = prow["values"][i]
                    std = prow["std"][i] if "std" in prow else None
                    mark = (prow.get("marks") or {}).get(ref["columns"][i], "")
                cells.append(Cell(float(v) if v is not None else None, std=std, mark=mark))
            papers.append(Row(prow["name"], prow.get("setting", ""), "paper", cells, note=prow.get("note", ""),
                              group=prow.get("group", "")))  # fmt: skip
        for row in table.run_rows():
            prow = find_paper_row(ref, row.label, row.setting, aliases)
            if prow is None:
                continue
            pcells = next(p.cells for p in papers if p.label == prow["name"] and p.setting == prow.get("setting", ""))
            cells = [
                Cell(a.value - b.value if _finite(a.value) and _finite(b.value) else None)
                for col, a, b in zip(table.columns, row.cells, pcells)
            ]
            if RANK in table.columns:
                cells[table.columns.index(RANK)] = Cell(None)
            diffs.append(Row(f"{row.label} - paper {prow['name']}", row.setting, "diff", cells))
    table.rows.extend(diffs + papers)
    if any(c.mark for r in papers for c in r.cells):
        table.notes.append(
            "'!' marks a printed cell that contradicts the paper's own counts or totals; kept as printed."
        )


def build_tables(
    runs: list[Run],
    *,
    compare_paper: bool = False,
    aliases: dict[str, str] | None = None,
    n_boot: int = 0,
    seed: int = 0,
) -> list[Table]:
    """Every paper table any run has cells for, then a per-task table for each task no layout covers."""
    cache: dict = {}
    tables = []
    for layout in L.PAPER_LAYOUTS:
        table = layout_table(layout, runs, n_boot=n_boot, seed=seed, cache=cache)
        if table is None:
            continue
        if compare_paper:
            add_paper_rows(table, aliases=aliases)
        tables.append(table)
    covered = L.paper_tasks()
    tasks: dict[str, list[str]] = {}
    for run in runs:
        gathered = L.derived_tasks(run.metrics)  # read through a pseudo-task: no table of their own
        for task, metrics in run.metrics.items():
            if task in covered or task in gathered:
                continue
            names = tasks.setdefault(task, [])
            names.extend(m for m in metrics if m not in names)
    for task in sorted(tasks):
        layout = L.generic_layout(task, tasks[task])
        table = layout and layout_table(layout, runs, n_boot=n_boot, seed=seed, cache=cache)
        if table is not None:
            tables.append(table)
    return tables
