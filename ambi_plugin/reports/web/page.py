"""``report.html``: the page a researcher opens. The overview first (every task by model, with a chart), a table of
contents, each benchmark's tables in its paper's layout with their charts, the significance tests, the sections the
Markdown report adds (the switch-head causal check, taken from the Markdown as it is), and every logged item one
click away.

The page needs no network: style and script are inline, charts are inlined PNGs and an inline SVG, images are
files under ``items/`` beside it. A Content-Security-Policy allows only the page's own script (by its hash), no
connection anywhere; every run text is escaped here or put in with ``textContent`` by the script.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.reports import render
from ambi_plugin.reports.plots import PALETTE
from ambi_plugin.reports.stats import interval_label
from ambi_plugin.reports.tables import AVG, RANK, Table
from ambi_plugin.reports.web import markdown as md
from ambi_plugin.reports.web.items import TaskItems, run_labels
from ambi_plugin.reports.web.overview import (
    OverviewRow,
    benchmark_titles,
    overview_rows,
    overview_svg,
    task_benchmark,
)
from ambi_plugin.reports.web.script import JS
from ambi_plugin.reports.web.style import CSS

e = html.escape


def _ok(v) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v))


def script_json(payload) -> str:
    """JSON that cannot end its ``<script>`` block or open a comment there: ``<``, ``>`` and ``&`` escaped."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _num(v: float, unit: str) -> str:
    return f"{v:.1f}" if unit == "%" else f"{v:.3f}"


def overview_table(models: Sequence[str], rows: Sequence[OverviewRow], *, items: set[str]) -> str:
    """Tasks (rows, grouped by benchmark) by model: the main metric coloured by value, its interval (or std over
    runs) and n, the paper's number for the model beside it when known; the task links to its items."""
    head = "".join(f"<th scope='col'>{e(m)}</th>" for m in models)
    out = [f"<table class='overview' id='overview-table'><thead><tr><th scope='col'>task</th><th scope='col'>"
           f"metric</th>{head}</tr></thead><tbody>"]  # fmt: skip
    bench, titles = None, benchmark_titles()
    for r in rows:
        if r.benchmark != bench:
            bench = r.benchmark
            out.append(f"<tr><td class='bm' colspan='{2 + len(models)}'><a href='#sec-{e(bench or 'other')}'>"
                       f"{e(titles.get(bench, bench))}</a></td></tr>")  # fmt: skip
        name = f"<a href='#items={e(r.task)}'>{e(r.task)}</a>" if r.task in items else e(r.task)
        cells = []
        for c in r.cells:
            if c is None or not _ok(c.value):
                cells.append("<td>-</td>")
                continue
            frac = max(0.0, min(1.0, c.value / r.top))
            text = f"<b>{_num(c.value, r.unit)}</b>"
            if c.ci and all(_ok(x) for x in c.ci):
                how = e(interval_label(c.ci_method)) if c.ci_method else ""
                text += f" <span class='ci' title='{how}'>[{_num(c.ci[0], r.unit)}, {_num(c.ci[1], r.unit)}]</span>"
            elif _ok(c.std):
                text += f" <span class='ci'>± {_num(c.std, r.unit)} ({c.runs} runs)</span>"
            if c.n is not None:
                text += f" <span class='n'>n={c.n}</span>"
            if _ok(c.paper):
                text += f"<span class='pp' title='{e(c.paper_source)}'>paper {_num(c.paper, r.unit)}</span>"
            cells.append(f"<td class='v' style='--v:{frac:.3f}'>{text}</td>")
        out.append(f"<tr data-task='{e(r.task)}'><td>{name}</td><td>{e(r.metric)} ({e(r.unit)})</td>"
                   + "".join(cells) + "</tr>")  # fmt: skip
    out.append("</tbody></table>")
    return "".join(out)


def table_html(t: Table, ident: str, *, plots: Sequence[str] = (), prefix: str = "") -> str:
    header, rows = render.grid(t)
    kinds = [r.kind for r in t.rows] if not t.transpose else ["run"] * len(rows)
    out = [f"<h3 id='{e(ident)}'>{e(prefix + t.title)}</h3><table><thead><tr>"
           + "".join(f"<th scope='col'>{e(h)}</th>" for h in header) + "</tr></thead><tbody>"]  # fmt: skip
    out += [f"<tr class='{kind}'>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for kind, r in zip(kinds, rows)]
    out.append("</tbody></table>")
    notes = render._notes(t)
    if notes:
        out.append("<ul class='notes'>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    # a chart of one bar per model says no more than the overview's: only charts of several categories
    if len([c for c in t.columns if c not in (AVG, RANK)]) > 1:
        for img in plots:
            path = Path(img)
            if path.suffix == ".png" and path.is_file():
                data = base64.b64encode(path.read_bytes()).decode()
                out.append(f"<p><img class='chart' loading='lazy' alt='chart: {e(t.title)}' "
                           f"src='data:image/png;base64,{data}'></p>")  # fmt: skip
    return "".join(out)


def _table_benchmark(t: Table) -> str:
    return t.benchmark or (task_benchmark(t.key[5:]) if t.key.startswith("task:") else "")


def _run_meta(runs) -> str:
    bits = []
    limits = sorted({str(r.config.get("limit")) for r in runs if r.config.get("limit") not in (None, "", 0)})
    if limits:
        bits.append(f"<span class='warn'>--limit {e(', '.join(limits))}: each task ran on a subset; the numbers are not "
                    "the benchmarks' and cannot be compared with the papers</span>")  # fmt: skip
    labels = run_labels(runs)
    bits.append(
        "runs: " + ", ".join(f"<abbr title='{e(str(r.path))}'>{e(label)}</abbr>" for label, r in zip(labels, runs))
    )
    return "<p class='meta'>" + " · ".join(bits) + "</p>"


BROWSER = """<section id='items'><h2>Items</h2>
<p class='meta'>Every logged item: the image (click for full size), the prompt, each model's raw response, what was
read from it and by which rule or judge, the gold answer. Keys: <kbd>/</kbd> search; in the viewer, <kbd>&larr;</kbd>
<kbd>&rarr;</kbd> step, <kbd>Esc</kbd> closes.</p>
<div id='browser' class='browser'><div class='controls' role='search'>
<label>task <select id='f-task'></select></label>
<label>model <select id='f-model'></select></label>
<label>status <select id='f-status'><option value='all'>all</option><option value='nc'>not correct</option>
<option value='w'>wrong</option><option value='u'>unread</option><option value='e'>item error</option>
<option value='c'>correct</option></select></label>
<label>category <select id='f-tag'><option value=''>all</option></select></label>
<label>search <input id='f-q' type='search' placeholder='id, prompt, response, gold'></label>
<label><input id='f-dis' type='checkbox'> models disagree</label>
<span id='count' class='count' role='status' aria-live='polite'></span></div>
<p id='task-note' class='tnote'></p>
<ol id='item-list' class='items'></ol><button id='more' class='more' type='button' hidden>Show more</button></div>
</section>
<dialog id='lightbox' aria-label='image, full size'><div class='lbbar'><span id='lb-cap'></span><span>
<button id='lb-prev' type='button'>&larr; previous</button> <button id='lb-next' type='button'>next &rarr;</button>
<button id='lb-close' type='button'>close (Esc)</button></span></div><img id='lb-img' alt=''></dialog>"""


def page(
    report,
    *,
    title: str,
    plots: dict[str, list[str]],
    extra_markdown: str = "",
    items: Sequence[TaskItems] = (),
    pools: dict | None = None,
) -> str:
    """The whole page. ``plots``: table key -> PNG paths (readable now); ``extra_markdown``: the Markdown report's
    sections the page shows as they are (the switch-head causal check), headings from ``##``."""
    models, rows = overview_rows(report.runs, **report.settings)
    task_items = {t.task for t in items}
    groups: dict[str, list[Table]] = {}
    for t in report.tables:
        groups.setdefault(_table_benchmark(t), []).append(t)
    for row in rows:  # a task with an overview row but no table still gets its section (its items)
        groups.setdefault(row.benchmark, [])
    titles = benchmark_titles()
    order = [b for b in titles if b in groups] + [b for b in groups if b not in titles]
    toc = ["<a href='#overview'>Overview</a>"]
    toc += [f"<a href='#sec-{e(b or 'other')}'>{e(titles.get(b, b))}</a>" for b in order]
    if report.tests or report.paper_tests or report.test_notes:
        toc.append("<a href='#significance'>Significance tests</a>")
    if extra_markdown.strip():
        toc.append("<a href='#switch-heads'>Switch heads</a>")
    toc.append("<a href='#items'>Items</a>")
    body = [f"<header class='top'><h1>{e(title)}</h1>{_run_meta(report.runs)}</header>",
            "<nav class='toc' aria-label='contents'>" + "".join(toc) + "</nav><main>"]  # fmt: skip
    if report.warnings:  # a --limit run, tasks a run skipped: first, as in every format
        body.append(
            "<ul class='warnings' role='alert'>" + "".join(f"<li>{e(w)}</li>" for w in report.warnings) + "</ul>"
        )
    body.append("<section id='overview'><h2>Overview</h2><div class='ov-wrap'>")
    if rows:
        body.append(overview_table(models, rows, items=task_items))
        methods = sorted({c.ci_method for r in rows for c in r.cells if c is not None and c.ci and c.ci_method})
        if methods:  # say which interval the brackets are (docs/reports.md)
            said = " and ".join(interval_label(m) for m in methods)
            body.append(
                f"<p class='notes'>[lo, hi]: {e(said)} intervals (Wilson for proportions of items, the "
                "bootstrap for other metrics); ± : std over repeated runs.</p>"
            )
        body.append(f"<figure>{overview_svg(models, rows, PALETTE)}</figure>")
    else:
        body.append("<p>No task results.</p>")
    body.append("</div></section>")
    for b in order:
        body.append(f"<section id='sec-{e(b or 'other')}'><h2>{e(titles.get(b, b))}</h2>")
        for t in groups[b]:
            body.append(table_html(t, f"t-{t.key}", plots=plots.get(t.key, [])))
        mine = [t for t in items if task_benchmark(t.task) == b]
        if mine:
            links = ", ".join(f"<a href='#items={e(t.task)}'>{e(t.task)}</a> ({len(t.items)})" for t in mine)
            body.append(f"<p class='items-links'>Items: {links}</p>")
        body.append("</section>")
    sections = render.test_sections(report.tests, report.test_notes)  # as the Markdown report lays them out
    if sections or report.paper_tests:
        body.append("<section id='significance'>")
        for head, notes, header, rows in sections:
            body.append(f"<h2>{e(head)}</h2>" + "".join(f"<p class='notes'>{e(n)}</p>" for n in notes))
            if rows:
                body.append("<table><thead><tr>"
                            + "".join(f"<th scope='col'>{e(h)}</th>" for h in header) + "</tr></thead><tbody>"
                            + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
                            + "</tbody></table>")  # fmt: skip
        for t in report.paper_tests:
            body.append(table_html(t, f"paper-{t.key}", prefix="Paper: "))
        body.append("</section>")
    if extra_markdown.strip():
        body.append("<section id='switch-heads'>" + md.to_html(extra_markdown, id_prefix="switch-heads") + "</section>")
    body.append(BROWSER.replace("\n", " ") + "</main>")
    payload = {"models": run_labels(report.runs), "prompts": [], "hows": [], **(pools or {}),
               "tasks": [{"task": t.task, "note": t.note, "items": t.items} for t in items]}  # fmt: skip
    digest = base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
    csp = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src 'self' data: file:; "
           "media-src 'self' file:")  # fmt: skip
    return ("<!doctype html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{csp}\">"
            "<meta name='viewport' content='width=device-width,initial-scale=1'>"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>" + "\n".join(body)
            + f"\n<script type='application/json' id='ambi-items'>{script_json(payload)}</script>"
            f"\n<script>{JS}</script></body></html>\n")  # fmt: skip
