"""``ambi report``: read results folders, build the tables, tests and charts, write each format.

The tests: models of one run each on the same items (:mod:`ambi_plugin.reports.paired`: McNemar's exact test,
the paired bootstrap, Holm), and the AmbiBench A.6 protocol where it reproduces the paper's tables
(:mod:`ambi_plugin.reports.significance`: categories within a model, models with repeated runs). The warnings: a
run cut short by ``--limit``, tasks a run skipped (``--skip-missing``) with the reason.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.reports import render
from ambi_plugin.reports.paired import paired_model_tests
from ambi_plugin.reports.reference import reference_table
from ambi_plugin.reports.results import limit_warning
from ambi_plugin.reports.runs import Run, load_runs
from ambi_plugin.reports.significance import category_tests, model_tests
from ambi_plugin.reports.switch_heads import PatchingSection, find_patching, has_results
from ambi_plugin.reports.tables import Cell, Row, Table, add_paper_rows, build_tables


@dataclass
class Report:
    runs: list[Run]
    tables: list[Table]
    tests: list[dict]
    plots: dict[str, list[str]] = field(default_factory=dict)  # table key -> image paths (relative to out)
    written: dict[str, Path] = field(default_factory=dict)  # format -> file
    paper_tests: list[Table] = field(default_factory=list)  # the paper's test tables (--compare-paper)
    patching: list[PatchingSection] = field(default_factory=list)  # switch-head causal checks (ambi switch-heads)
    settings: dict = field(default_factory=dict)  # compare_paper, aliases, n_boot, seed: for the HTML overview
    warnings: list[str] = field(default_factory=list)  # --limit runs, skipped tasks: printed first in every format
    test_notes: list[str] = field(default_factory=list)  # model pairs the tests do not compare, and why


def paper_test_tables() -> list[Table]:
    """The papers' own test tables as printed (each benchmark's ``significance.paper_tables``; AmbiBench Tables 10
    and 11): Bonferroni-corrected p-values (uncapped), 4 significant digits."""
    from ambi_plugin.benchmarks.registry import entries

    out = []
    for entry in entries().values():
        for key in entry.significance.paper_tables if entry.significance is not None else ():
            ref = reference_table(key)
            rows = [Row(r["name"], "", "paper", [Cell(None if v is None else float(v)) for v in r["values"]],
                        note=r.get("note", ""), group=r.get("group", "")) for r in ref["rows"]]  # fmt: skip
            out.append(Table(key, entry.name, f"{entry.title} {ref['title']}", list(ref["columns"]), rows, digits=4,
                             chart=False, number_format="g"))  # fmt: skip
    return out


def run_warnings(runs: Sequence[Run]) -> list[str]:
    """Per run: a warning when ``--limit`` cut its tasks short (as ``ambi results`` says it), and each task it
    skipped (``ambi eval --skip-missing``: no numbers) with the reason its preflight gave."""
    out = []
    for run in runs:
        where = f"{run.name} ({run.path})"
        warning = limit_warning(run.config.get("limit"))
        if warning:
            out.append(f"WARNING: run {where} {warning}")
        skipped = run.ambi.get("skipped")
        for task, why in skipped.items() if isinstance(skipped, dict) else ():
            out.append(f"skipped task {task} (run {where}): {why}. ambi eval --skip-missing ran the other tasks; this "
                       "one has no numbers and is absent from the tables")  # fmt: skip
    return out


def human_row(table: Table) -> Row | None:
    """The paper's first human row for this table (shipped reference data), aligned to its columns."""
    probe = copy.copy(table)
    probe.rows, probe.notes = list(table.run_rows()), []
    add_paper_rows(probe)
    return next((r for r in probe.rows if r.kind == "paper" and (r.group == "Human" or r.label.lower().startswith("human"))),
                None)  # fmt: skip


def make_plots(tables: Sequence[Table], out_dir: Path) -> dict[str, list[str]]:
    """PNG + SVG per chartable table (and a versus-human chart where the paper has a human row)."""
    from ambi_plugin.reports.plots import category_bars, versus_human

    plots: dict[str, list[str]] = {}
    for t in tables:
        if not t.chart or not t.run_rows() or len([c for c in t.columns if c not in ("AVG", "Rank")]) < 1:
            continue
        paths = category_bars(t, out_dir / "plots")
        human = human_row(t)
        if human is not None:
            paths += versus_human(t, out_dir / "plots", human)
        plots[t.key] = [str(p.relative_to(out_dir)) for p in paths if p.suffix == ".png"]
    return plots


def build_report(
    paths: Sequence[str | Path],
    *,
    names: Sequence[str] | None = None,
    compare_paper: bool = False,
    aliases: dict[str, str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    test: str = "welch",
) -> Report:
    patching = find_patching(list(paths))
    with_patching = {str(s.folder) for s in patching}
    # a switch-heads folder with patching but no lmms-eval run (no Table 3 yet) adds its causal check only
    keep = [i for i, p in enumerate(paths) if str(Path(p)) not in with_patching or has_results(p)]
    runs = load_runs([paths[i] for i in keep], names=[names[i] for i in keep] if names else None) if keep else []
    tables = build_tables(runs, compare_paper=compare_paper, aliases=aliases, n_boot=n_boot, seed=seed)
    paired, test_notes = paired_model_tests(runs, n_boot=n_boot, seed=seed)
    # the A.6 protocol: categories within a model (Table 10); models only where both have repeated runs (Table 11)
    # (a paired t-test has nothing to pair there: categories hold different items, repeated runs are no items; the
    # rows and the section's title say Welch)
    tests = paired + category_tests(runs, test=test) + model_tests(runs, test="welch", samples="runs")
    # beside our tests, the paper's (Tables 10 and 11), as every reference row: with --compare-paper
    return Report(runs, tables, tests, paper_tests=paper_test_tables() if compare_paper and tests else [],
                  patching=patching, warnings=run_warnings(runs), test_notes=test_notes,
                  settings={"compare_paper": compare_paper, "aliases": aliases, "n_boot": n_boot, "seed": seed})  # fmt: skip


def write_report(
    report: Report,
    out_dir: str | Path,
    *,
    formats: Sequence[str] = ("md",),
    plots: bool = True,
    title: str = "",
    items: bool = True,
    progress: bool = False,
) -> Report:
    """Write ``report.<ext>`` for each format (and ``plots/`` when asked) into ``out_dir``; the HTML page also copies
    the logged items' images under ``items/`` (``items=False``: no item browser)."""
    bad = [f for f in formats if f not in render.FORMATS]
    if bad:
        raise ValueError(f"Expected --format values among {render.FORMATS} but got {bad}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    names = [r.name for r in report.runs] or [s.summary.get("model") or s.folder.name for s in report.patching]
    title = title or "ambi-plugin report: " + ", ".join(dict.fromkeys(names))
    if plots and ({"md", "html"} & set(formats)):
        report.plots = make_plots(report.tables, out)
    patch_plots = _copy_patching_plots(report.patching, out) if plots else {}
    for fmt in formats:
        papers = report.paper_tests
        said = {"warnings": report.warnings}
        notes = {"test_notes": report.test_notes}
        if fmt == "md":
            text = render.to_markdown(report.tables, report.tests, title=title, plots=report.plots, paper_tests=papers,
                                      **said, **notes)  # fmt: skip
            text += render.patching_markdown(report.patching, patch_plots)
        elif fmt == "html":
            from ambi_plugin.reports.web import write_html

            extra = render.patching_markdown(report.patching, patch_plots)  # shown as the Markdown report shows it
            report.written[fmt] = write_html(report, out, title=title, plots=report.plots, extra_markdown=extra,
                                             items=items, progress=progress)  # fmt: skip
            continue
        elif fmt == "latex":
            text = render.to_latex(report.tables, report.tests, paper_tests=papers, **said, **notes)
        elif fmt == "csv":
            text = render.to_csv([*report.tables, *papers], report.tests, **said)
        else:
            sections = [sec.section for sec in report.patching if sec.section]
            text = render.to_json([*report.tables, *papers], report.tests, **said, **notes, switch_heads=sections)
        ext = {"md": "md", "html": "html", "latex": "tex", "csv": "csv", "json": "json"}[fmt]
        path = out / f"report.{ext}"
        path.write_text(text, encoding="utf-8")
        report.written[fmt] = path
    return report


def _copy_patching_plots(sections: Sequence[PatchingSection], out: Path) -> dict[int, str]:
    """The patching plots copied under ``out/plots`` (index in ``sections`` -> path relative to ``out``)."""
    import shutil

    copied = {}
    for i, sec in enumerate(sections):
        if sec.plot is not None:
            dest = out / "plots" / f"patching_{i}_{sec.category}.png"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sec.plot, dest)
            copied[i] = str(dest.relative_to(out))
    return copied
