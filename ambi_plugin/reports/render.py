"""Render report tables as Markdown, CSV, LaTeX or JSON (the HTML page: :mod:`ambi_plugin.reports.web`, from the
same :func:`grid`).

A cell prints its value with the table's digits (significant digits for the p-value tables); ``v ± s`` when it
is a mean over repeated runs;
``[lo, hi]`` after it when a bootstrap interval was computed; ``!`` after a paper cell that contradicts
the paper's own counts (kept as printed); ``-`` when absent. Difference rows are prefixed with ``Δ``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

from ambi_plugin.reports.tables import Cell, Row, Table

FORMATS = ("md", "csv", "latex", "json", "html")
TEST_COLUMNS = ("comparison", "column", "samples", "test", "mean_a", "mean_b", "t", "df", "p", "p_bonferroni",
                "p_bonferroni_capped")  # fmt: skip
TESTS_TITLE = "Significance tests (Bonferroni: uncapped as AmbiBench prints it, and capped at 1)"  # md and HTML


def _ok(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def fmt_cell(cell: Cell, digits: int, *, ci: bool = True, pm: str = "±", fmt: str = "f") -> str:
    if not _ok(cell.value):
        return "-"
    spec = f".{digits}{fmt}"
    text = f"{cell.value:{spec}}"
    if _ok(cell.std):
        text += f" {pm} {cell.std:{spec}}"
    if ci and cell.ci and all(_ok(x) for x in cell.ci):
        text += f" [{cell.ci[0]:{spec}}, {cell.ci[1]:{spec}}]"
    if cell.mark:
        text += " !"
    return text


def _label(row: Row) -> str:
    if row.kind == "paper":
        return f"paper: {row.label}"
    if row.kind == "diff":
        return f"Δ {row.label}"
    return row.label


def grid(table: Table, *, pm: str = "±") -> tuple[list[str], list[list[str]]]:
    """(header, rows) of plain strings in the table's printed orientation."""
    has_setting = any(r.setting for r in table.rows)
    if table.transpose:
        heads = [_label(r) + (f" ({r.setting})" if r.setting else "") for r in table.rows]
        header = ["Class", *heads]
        rows = [[col, *(fmt_cell(r.cells[i], table.digits, pm=pm, fmt=table.number_format) for r in table.rows)]
                for i, col in enumerate(table.columns)]  # fmt: skip
        return header, rows
    header = ["Model", *(["Setting"] if has_setting else []), *table.columns]
    rows = []
    for r in table.rows:
        cells = [fmt_cell(c, table.digits, pm=pm, fmt=table.number_format) if col != "Rank"
                 else (f"{c.value:.0f}" if _ok(c.value) else "-")
                 for col, c in zip(table.columns, r.cells)]  # fmt: skip
        rows.append([_label(r), *([r.setting] if has_setting else []), *cells])
    return header, rows


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    esc = [[str(c).replace("|", "\\|") for c in r] for r in [header, *rows]]
    widths = [max(len(r[i]) for r in esc) for i in range(len(header))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in esc]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def _notes(table: Table) -> list[str]:
    out = list(table.notes)
    for r in table.rows:
        if r.note:
            out.append(f"{_label(r)}: {r.note}")
        for col, c in zip(table.columns, r.cells):
            if c.mark:
                out.append(f"! {_label(r)} {r.setting} / {col}: {c.mark}".replace("  ", " "))
    return out


def _test_rows(tests: Sequence[dict]) -> list[list[str]]:
    def f(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e-3 and v != 0 else f"{v:.4f}"
        return "-" if v is None else str(v)

    return [[f(t.get(k)) for k in TEST_COLUMNS] for t in tests]


def to_markdown(
    tables: Sequence[Table],
    tests: Sequence[dict] = (),
    *,
    title: str = "Report",
    plots=None,
    paper_tests: Sequence[Table] = (),
) -> str:
    """``paper_tests``: the paper's own test tables (AmbiBench Tables 10 and 11), printed under the tests."""
    parts = [f"# {title}", ""]
    for t in tables:
        parts += [f"## {t.title}", "", _md_table(*grid(t)), ""]
        parts += [f"- {n}" for n in _notes(t)]
        for img in (plots or {}).get(t.key, []):
            parts.append(f"\n![{t.title}]({img})")
        parts.append("")
    if tests:
        parts += [f"## {TESTS_TITLE}", ""]
        parts += [_md_table(TEST_COLUMNS, _test_rows(tests)), ""]
    for t in paper_tests:
        parts += [f"### Paper: {t.title}", "", _md_table(*grid(t)), ""]
        parts += [f"- {n}" for n in _notes(t)] + [""]
    return "\n".join(parts).rstrip() + "\n"


def to_csv(tables: Sequence[Table], tests: Sequence[dict] = ()) -> str:
    """Long format: one line per cell (table, model, setting, kind, column, value, std, ci_low, ci_high, mark)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["table", "model", "setting", "kind", "column", "value", "std", "ci_low", "ci_high", "mark"])
    for t in tables:
        for r in t.rows:
            for col, c in zip(t.columns, r.cells):
                lo, hi = c.ci if c.ci else (None, None)
                w.writerow([t.key, r.label, r.setting, r.kind, col, *("" if not _ok(x) else x for x in
                            (c.value, c.std, lo, hi)), c.mark])  # fmt: skip
    for test in tests:
        w.writerow(["significance", test["comparison"], test.get("test"), "test", test["column"], test.get("p"),
                    "", "", "", f"bonferroni={test.get('p_bonferroni')}"])  # fmt: skip
    return buf.getvalue()


_LATEX_ESC = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
              "~": r"\textasciitilde{}", "^": r"\^{}", "\\": r"\textbackslash{}", "±": r"$\pm$", "Δ": r"$\Delta$"}  # fmt: skip


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESC.get(ch, ch) for ch in str(text))


def _latex_table(caption: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    spec = "l" * min(2, len(header)) + "r" * max(0, len(header) - 2)
    lines = [r"\begin{table}[ht]", r"\centering", r"\small", rf"\caption{{{latex_escape(caption)}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(latex_escape(h) for h in header) + r" \\",
             r"\midrule"]  # fmt: skip
    lines += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def to_latex(tables: Sequence[Table], tests: Sequence[dict] = (), *, paper_tests: Sequence[Table] = ()) -> str:
    """One ``table`` environment per table (booktabs rules); notes as a comment block under each."""
    parts = ["% generated by `ambi report`; needs \\usepackage{booktabs}"]
    for t in tables:
        parts.append(_latex_table(t.title, *grid(t)))
        parts += [f"% {n}" for n in _notes(t)]
        parts.append("")
    if tests:
        parts.append(
            _latex_table("Significance tests (Bonferroni uncapped and capped)", TEST_COLUMNS, _test_rows(tests))
        )
    for t in paper_tests:
        parts.append(_latex_table(f"Paper: {t.title}", *grid(t)))
        parts += [f"% {n}" for n in _notes(t)]
    return "\n".join(parts) + "\n"


def to_json(tables: Sequence[Table], tests: Sequence[dict] = ()) -> str:
    def cell(c: Cell) -> dict:
        d = {"value": c.value if _ok(c.value) else None}
        if _ok(c.std):
            d["std"] = c.std
        if c.ci:
            d["ci95"] = list(c.ci)
        if c.mark:
            d["mark"] = c.mark
        return d

    out = {"tables": [{"key": t.key, "benchmark": t.benchmark, "title": t.title, "columns": t.columns,
                       "notes": _notes(t),
                       "rows": [{"model": r.label, "setting": r.setting, "kind": r.kind, "runs": r.n_runs,
                                 "group": r.group, "cells": [cell(c) for c in r.cells]} for r in t.rows]}
                      for t in tables], "significance": list(tests)}  # fmt: skip
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


def patching_markdown(sections: Sequence, plots: dict[int, str] | None = None) -> str:
    """The switch-head causal checks (``ambi switch-heads patch``): each folder's table as written, and its plot."""
    if not sections:
        return ""
    parts = ["", "## Switch heads: causal check (activation patching, AtP)", ""]
    for i, sec in enumerate(sections):
        parts += [f"### {sec.folder.name}: {sec.category}", "", sec.markdown.strip(), ""]
        if (plots or {}).get(i):
            parts += [f"![patching {sec.category}]({plots[i]})", ""]
    return "\n".join(parts).rstrip() + "\n"
