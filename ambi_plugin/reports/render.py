"""Render report tables as Markdown, CSV, LaTeX or JSON (the HTML page: :mod:`ambi_plugin.reports.web`, from the
same :func:`grid`).

A cell prints its value with the table's digits (significant digits for the p-value tables); ``v ± s`` when it
is a mean over repeated runs;
``[lo, hi]`` after it when an interval was computed (its level and method in the table's notes, the caption in
LaTeX, and per cell in CSV and JSON); ``!`` after a paper cell that contradicts
the paper's own counts (kept as printed); ``-`` when absent. Difference rows are prefixed with ``Δ``.
The report's warnings (a ``--limit`` run, tasks skipped by ``--skip-missing``) come first in every format; the
significance tests come in one section per protocol (:func:`test_sections`), each with its correction stated.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence

from ambi_plugin.reports.paired import PAIRED, PAIRED_COLUMNS
from ambi_plugin.reports.paired import note as paired_note
from ambi_plugin.reports.stats import METHOD_NAMES
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


def _test_rows(tests: Sequence[dict], columns: Sequence[str] = TEST_COLUMNS) -> list[list[str]]:
    def f(v):
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1e-3 and v != 0 else f"{v:.4f}"
        if isinstance(v, list):
            return "[" + ", ".join(f(x) for x in v) + "]"
        return "-" if v is None else str(v)

    return [[f(t.get(k)) for k in columns] for t in tests]


def test_sections(tests: Sequence[dict], notes: Sequence[str] = ()) -> list[tuple[str, list[str], tuple, list]]:
    """(title, notes, header, rows) per protocol: models on the same items (McNemar exact / paired bootstrap, Holm),
    then each benchmark's own protocol (AmbiBench A.6: t-tests, Bonferroni uncapped and capped; its registry entry's
    ``significance``). ``notes``: the pairs not compared."""
    paired = [t for t in tests if t.get("protocol") == PAIRED]
    a6 = [t for t in tests if t.get("protocol") != PAIRED]
    out = []
    if paired or notes:
        out.append(("Significance tests: models on the same items (McNemar exact / paired bootstrap; Holm)",
                    [paired_note(paired), *notes] if paired else list(notes), PAIRED_COLUMNS,
                    _test_rows(paired, PAIRED_COLUMNS)))  # fmt: skip
    for protocol in dict.fromkeys(str(t.get("protocol")) for t in a6):
        rows = [t for t in a6 if str(t.get("protocol")) == protocol]
        kinds = " / ".join(dict.fromkeys("Welch t-test" if t.get("test") == "welch" else "paired t-test" for t in rows))
        out.append((f"Significance tests: {protocol} protocol ({kinds}; Bonferroni uncapped as its paper prints it, "
                    "and capped at 1)",
                    ["The paper's own protocol, kept to reproduce its Tables 10 and 11: category against category "
                     "within a model, and model against model where both have repeated runs. samples: 'runs' = the "
                     "per-run values, 'items' = one run's per-item scores (for 0/1 scores a t-test is a large-sample "
                     "approximation). p_bonferroni = p x the comparisons of its block (family_size in the JSON), "
                     "uncapped as the paper prints it; p_bonferroni_capped = min(1, p_bonferroni)."],
                    TEST_COLUMNS, _test_rows(rows)))  # fmt: skip
    return out


def _warnings_md(warnings: Sequence[str]) -> list[str]:
    return [f"> - **{w}**" if w.startswith("WARNING") else f"> - {w}" for w in warnings] + [""] if warnings else []


def to_markdown(
    tables: Sequence[Table],
    tests: Sequence[dict] = (),
    *,
    title: str = "Report",
    plots=None,
    paper_tests: Sequence[Table] = (),
    warnings: Sequence[str] = (),
    test_notes: Sequence[str] = (),
) -> str:
    """``paper_tests``: the paper's own test tables (AmbiBench Tables 10 and 11), printed under the tests;
    ``warnings``: the runs' warnings, first; ``test_notes``: model pairs not compared (and why)."""
    parts = [f"# {title}", "", *_warnings_md(warnings)]
    for t in tables:
        parts += [f"## {t.title}", "", _md_table(*grid(t)), ""]
        parts += [f"- {n}" for n in _notes(t)]
        for img in (plots or {}).get(t.key, []):
            parts.append(f"\n![{t.title}]({img})")
        parts.append("")
    for head, notes, header, rows in test_sections(tests, test_notes):
        parts += [f"## {head}", ""] + ([_md_table(header, rows), ""] if rows else [])
        parts += [f"- {n}" for n in notes] + [""]
    for t in paper_tests:
        parts += [f"### Paper: {t.title}", "", _md_table(*grid(t)), ""]
        parts += [f"- {n}" for n in _notes(t)] + [""]
    return "\n".join(parts).rstrip() + "\n"


def _details(test: dict, keys: Sequence[str]) -> str:
    return "; ".join(f"{k}={test[k]}" for k in keys if test.get(k) is not None)


def to_csv(tables: Sequence[Table], tests: Sequence[dict] = (), *, warnings: Sequence[str] = ()) -> str:
    """Long format: one line per cell (table, model, setting, kind, column, value, std, ci_low, ci_high, mark,
    ci_level, ci_method, n); a ``warning`` line per warning first, a ``significance`` line per test last (its
    protocol, correction, family size and counts in ``mark``)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["table", "model", "setting", "kind", "column", "value", "std", "ci_low", "ci_high", "mark",
                "ci_level", "ci_method", "n"])  # fmt: skip
    for text in warnings:
        w.writerow(["warning", "", "", "warning", "", "", "", "", "", text, "", "", ""])
    for t in tables:
        for r in t.rows:
            for col, c in zip(t.columns, r.cells):
                lo, hi = c.ci if c.ci else (None, None)
                w.writerow([t.key, r.label, r.setting, r.kind, col, *("" if not _ok(x) else x for x in
                            (c.value, c.std, lo, hi)), c.mark, t.ci_level if c.ci else "",
                            c.ci_method if c.ci else "", "" if c.n is None else c.n])  # fmt: skip
    for test in tests:
        if test.get("protocol") == PAIRED:
            lo, hi = test.get("diff_ci") or ("", "")
            w.writerow(["significance", test["comparison"], test.get("test"), "test", f"{test['task']}/{test['metric']}",
                        test.get("p"), "", lo, hi, _details(test, ("protocol", "correction", "family_size", "p_holm",
                        "matched", "only_a", "only_b", "no_id", "duplicate_ids", "b", "c", "mean_a", "mean_b", "diff")),
                        0.95 if test.get("diff_ci") else "", "paired bootstrap" if test.get("diff_ci") else "",
                        test.get("matched")])  # fmt: skip
            continue
        w.writerow(["significance", test["comparison"], test.get("test"), "test", test["column"], test.get("p"),
                    "", "", "", f"bonferroni={test.get('p_bonferroni')}; "
                    + _details(test, ("protocol", "correction", "family_size", "samples")), "", "", ""])  # fmt: skip
    return buf.getvalue()


_LATEX_ESC = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
              "~": r"\textasciitilde{}", "^": r"\^{}", "\\": r"\textbackslash{}", "±": r"$\pm$", "Δ": r"$\Delta$"}  # fmt: skip


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESC.get(ch, ch) for ch in str(text))


def _interval_caption(table: Table) -> str:
    """`` (95% intervals: Wilson score, percentile bootstrap; see the notes)`` when the table has intervals."""
    methods = sorted({c.ci_method for r in table.rows for c in r.cells if c.ci and c.ci_method})
    if not methods:
        return ""
    names = ", ".join(METHOD_NAMES.get(m, m) for m in methods)
    return f" ({100 * table.ci_level:g}% intervals: {names}; which column has which: the notes)"


def _latex_table(caption: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    spec = "l" * min(2, len(header)) + "r" * max(0, len(header) - 2)
    lines = [r"\begin{table}[ht]", r"\centering", r"\small", rf"\caption{{{latex_escape(caption)}}}",
             rf"\begin{{tabular}}{{{spec}}}", r"\toprule", " & ".join(latex_escape(h) for h in header) + r" \\",
             r"\midrule"]  # fmt: skip
    lines += [" & ".join(latex_escape(c) for c in r) + r" \\" for r in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def to_latex(
    tables: Sequence[Table],
    tests: Sequence[dict] = (),
    *,
    paper_tests: Sequence[Table] = (),
    warnings: Sequence[str] = (),
    test_notes: Sequence[str] = (),
) -> str:
    """One ``table`` environment per table (booktabs rules); the interval methods in the caption; notes as a comment
    block under each; the warnings as comments first."""
    parts = ["% generated by `ambi report`; needs \\usepackage{booktabs}", *(f"% {w}" for w in warnings)]
    for t in tables:
        parts.append(_latex_table(t.title + _interval_caption(t), *grid(t)))
        parts += [f"% {n}" for n in _notes(t)]
        parts.append("")
    for head, notes, header, rows in test_sections(tests, test_notes):
        if rows:
            parts.append(_latex_table(head, header, rows))
        parts += [f"% {n}" for n in notes]
    for t in paper_tests:
        parts.append(_latex_table(f"Paper: {t.title}", *grid(t)))
        parts += [f"% {n}" for n in _notes(t)]
    return "\n".join(parts) + "\n"


def to_json(
    tables: Sequence[Table],
    tests: Sequence[dict] = (),
    *,
    warnings: Sequence[str] = (),
    test_notes: Sequence[str] = (),
    switch_heads: Sequence[dict] = (),
) -> str:
    """``tables`` (a cell's interval as ``ci`` with ``ci_level``, ``ci_method`` and ``n``), ``significance`` (each
    row with its protocol, correction and family size), ``significance_notes``, ``warnings`` and (when there are
    any) the switch-head sections (``reports.switch_heads``' dicts)."""

    def cell(c: Cell, level: float) -> dict:
        d = {"value": c.value if _ok(c.value) else None}
        if _ok(c.std):
            d["std"] = c.std
        if c.ci:
            d["ci"], d["ci_level"], d["ci_method"] = list(c.ci), level, c.ci_method
            if c.n is not None:
                d["n"] = c.n
        if c.mark:
            d["mark"] = c.mark
        return d

    out = {"tables": [{"key": t.key, "benchmark": t.benchmark, "title": t.title, "columns": t.columns,
                       "notes": _notes(t),
                       "rows": [{"model": r.label, "setting": r.setting, "kind": r.kind, "runs": r.n_runs,
                                 "group": r.group, "cells": [cell(c, t.ci_level) for c in r.cells]} for r in t.rows]}
                      for t in tables], "significance": list(tests),
           "significance_notes": {head: notes for head, notes, _, _ in test_sections(tests, test_notes)},
           "warnings": list(warnings)}  # fmt: skip
    if switch_heads:
        out["switch_heads"] = list(switch_heads)
    return json.dumps(out, indent=1, ensure_ascii=False) + "\n"


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
