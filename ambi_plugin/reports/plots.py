"""Charts of report tables (matplotlib, the ``report`` extra): PNG and SVG for each.

* :func:`category_bars` - one bar per column (category) for each of the user's rows, error bars from the
  bootstrap interval (one run) or the standard deviation (repeated runs).
* :func:`versus_human` - each model row against the paper's human row of the same table.

Sizes are fixed by :func:`figure_size` (inches at :data:`DPI`), so a PNG's pixel size is known in advance.
The y axis is fixed too (:func:`y_limits`): 0-100 for percent tables, from 0 to at least 1 for score tables,
so a chart of all-zero bars still shows its axis and one tick per category.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.reports.tables import AVG, RANK, Row, Table

DPI = 100
HEIGHT = 4.0
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
HUMAN_COLOR = "#7f7f7f"


def _mpl():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'ambi-plugin[report]' (or --no-plots)") from exc
    return plt


def figure_size(n_bars: int) -> tuple[float, float]:
    """(width, height) in inches: 0.35 in per bar plus margins, between 6 and 16 inches wide, whole pixels."""
    return round(DPI * min(16.0, max(6.0, 0.35 * n_bars + 2.0))) / DPI, HEIGHT


def pixel_size(n_bars: int) -> tuple[int, int]:
    """The PNG's (width, height) in pixels for ``n_bars`` bars."""
    w, h = figure_size(n_bars)
    return round(w * DPI), round(h * DPI)


def _ok(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def _err(row: Row, i: int) -> tuple[float, float]:
    c = row.cells[i]
    if c.ci and all(_ok(x) for x in c.ci) and _ok(c.value):
        return max(0.0, c.value - c.ci[0]), max(0.0, c.ci[1] - c.value)
    if _ok(c.std):
        return c.std, c.std
    return 0.0, 0.0


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower() or "chart"


def y_limits(table: Table, peaks: Sequence[float] = ()) -> tuple[float, float]:
    """Percent tables 0-100; score tables 0 to 1.05 x max(1, the highest bar or interval end). Extended, never
    cut, when a value lies outside (a std bar above 100 %, a negative score)."""
    peaks = [p for p in peaks if _ok(p)]
    low = min([0.0, *peaks])
    if _ylabel(table) == "%":
        return low, max([100.0, *peaks])
    return low, 1.05 * max([1.0, *peaks])


def _bars(table: Table, series: Sequence[tuple[str, Row, str, str]], out: Path, ylabel: str) -> list[Path]:
    plt = _mpl()
    cols = [i for i, c in enumerate(table.columns) if c not in (AVG, RANK)]
    n = len(series) * len(cols)
    fig, ax = plt.subplots(figsize=figure_size(n), dpi=DPI)
    width = 0.8 / max(1, len(series))
    peaks: list[float] = []
    for k, (label, row, color, hatch) in enumerate(series):
        xs = [j + (k - (len(series) - 1) / 2) * width for j in range(len(cols))]
        ys = [row.cells[i].value if _ok(row.cells[i].value) else 0.0 for i in cols]
        errs = [_err(row, i) for i in cols]
        yerr = [[e[0] for e in errs], [e[1] for e in errs]] if any(sum(e) for e in errs) else None
        ax.bar(xs, ys, width=width, color=color, hatch=hatch, label=label, yerr=yerr, capsize=2,
               ecolor="black", linewidth=0)  # fmt: skip
        peaks += [y + e[1] for y, e in zip(ys, errs)] + [y - e[0] for y, e in zip(ys, errs)]
    ax.set_xlim(-0.5, len(cols) - 0.5)  # one slot per category, the bars centred in it
    ax.set_ylim(*y_limits(table, peaks))
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([table.columns[i] for i in cols], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(table.title, fontsize=9)
    if len(series) > 1:
        ax.legend(fontsize=7)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in ("png", "svg"):
        path = out.with_suffix(f".{ext}")
        fig.savefig(path, dpi=DPI)
        paths.append(path)
    plt.close(fig)
    return paths


def _ylabel(table: Table) -> str:
    return "score" if table.digits == 4 else "%"


def category_bars(table: Table, out_dir: Path) -> list[Path]:
    """One bar per column for each of the user's rows (one colour per row), PNG + SVG."""
    rows = table.run_rows()
    series = [(r.label + (f" ({r.setting})" if r.setting else ""), r, PALETTE[k % len(PALETTE)], "")
              for k, r in enumerate(rows)]  # fmt: skip
    return _bars(table, series, Path(out_dir) / _slug(table.key), _ylabel(table))


def versus_human(table: Table, out_dir: Path, human: Row) -> list[Path]:
    """Each of the user's rows beside the paper's human row (grey, hatched)."""
    rows = table.run_rows()
    series = [(r.label + (f" ({r.setting})" if r.setting else ""), r, PALETTE[k % len(PALETTE)], "")
              for k, r in enumerate(rows)]  # fmt: skip
    series.append((f"paper: {human.label}", human, HUMAN_COLOR, "//"))
    return _bars(table, series, Path(out_dir) / (_slug(table.key) + "_vs_human"), _ylabel(table))
