"""Render report tables as Markdown, CSV, LaTeX, JSON or HTML.

A cell prints its value with the table's digits (significant digits for the p-value tables); ``v ± s`` when it
is a mean over repeated runs;
``[lo, hi]`` after it when a bootstrap interval was computed; ``!`` after a paper cell that contradicts
the paper's own counts (kept as printed); ``-`` when absent. Difference rows are prefixed with ``Δ``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
from collections.abc import Sequence

from ambi_plugin.reports.switch_heads import section_markdown
from ambi_plugin.reports.tables import Cell, Row, Table

FORMATS = ("md", "csv", "latex", "json", "html")
TEST_COLUMNS = ("comparison", "column", "samples", "test", "mean_a", "mean_b", "t", "df", "p", "p_bonferroni",
                "p_bonferroni_capped")  # fmt: skip


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
        parts += ["## Significance tests (Bonferroni: uncapped as AmbiBench prints it, and capped at 1)", ""]
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


def to_json(tables: Sequence[Table], tests: Sequence[dict] = (), switch_heads: Sequence[dict] = ()) -> str:
    """The tables, the tests and (when there are any) the switch-head sections (``reports.switch_heads``' dicts)."""

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
    if switch_heads:
        out["switch_heads"] = list(switch_heads)
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;
margin:1em 0;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td:first-child,
th:first-child{text-align:left}tr.paper{color:#555;background:#f6f6f6}tr.diff{color:#036;font-style:italic}
.notes{font-size:12px;color:#444}img{max-width:100%;border:1px solid #eee}"""


def to_html(
    tables: Sequence[Table],
    tests: Sequence[dict] = (),
    *,
    title: str = "Report",
    plots=None,
    paper_tests: Sequence[Table] = (),
) -> str:
    """A self-contained page: tables, notes and each table's charts (PNG inlined as data URIs, SVG linked)."""
    import base64
    from pathlib import Path

    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{e(title)}</title>",
             f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>"]  # fmt: skip
    for t in tables:
        header, rows = grid(t)
        kinds = [r.kind for r in t.rows] if not t.transpose else ["run"] * len(rows)
        parts.append(f"<h2 id='{e(t.key)}'>{e(t.title)}</h2><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header))
        for kind, r in zip(kinds, rows):
            parts.append(f"<tr class='{kind}'>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>")
        parts.append("</table>")
        notes = _notes(t)
        if notes:
            parts.append("<ul class='notes'>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
        for img in (plots or {}).get(t.key, []):
            path = Path(img)
            if path.suffix == ".png" and path.is_file():
                data = base64.b64encode(path.read_bytes()).decode()
                svg = path.with_suffix(".svg")
                parts.append(f"<p><img alt='{e(t.title)}' src='data:image/png;base64,{data}'>"
                             + (f"<br><a href='{e(svg.parent.name + '/' + svg.name)}'>SVG</a>" if svg.is_file() else "")
                             + "</p>")  # fmt: skip
    if tests:
        parts.append("<h2>Significance tests</h2><p class='notes'>Bonferroni-corrected p-values uncapped (as "
                     "AmbiBench Table 11 prints them) and capped at 1.</p><table><tr>"
                     + "".join(f"<th>{e(h)}</th>" for h in TEST_COLUMNS) + "</tr>")  # fmt: skip
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in _test_rows(tests)]
        parts.append("</table>")
    for t in paper_tests:
        header, rows = grid(t)
        parts.append(f"<h3 id='{e(t.key)}'>Paper: {e(t.title)}</h3><table class='paper'><tr>"
                     + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>")  # fmt: skip
        parts += ["<tr class='paper'>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows]
        parts.append("</table>")
        if _notes(t):
            parts.append("<ul class='notes'>" + "".join(f"<li>{e(n)}</li>" for n in _notes(t)) + "</ul>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def patching_markdown(sections: Sequence, plots: dict[int, str] | None = None) -> str:
    """The switch-head causal checks (``ambi switch-heads patch``): each folder's section (``section_data``; a folder
    written before it existed: its Markdown as written), and its plot."""
    if not sections:
        return ""
    parts = ["", "## Switch heads: causal check (activation patching, AtP)", ""]
    for i, sec in enumerate(sections):
        text = section_markdown(sec.section) if getattr(sec, "section", None) else sec.markdown
        parts += [f"### {sec.folder.name}: {sec.category}", "", text.strip(), ""]
        if (plots or {}).get(i):
            parts += [f"![patching {sec.category}]({plots[i]})", ""]
    return "\n".join(parts).rstrip() + "\n"
