"""The HTML report in a real browser: Debian's headless Chromium driven by Playwright, every request that is not a
``file://`` one blocked (the page must need no network).

The report is built the way a user builds it: two real lmms-eval runs (``ambi_replay``) on ``ambi_synth_all`` with
``--limit 4 --log_samples``, over a copy of the synthetic suite in which one image is truncated (``check_visuals``
loads it: that item is an item error), then ``ambi report RUN_A RUN_B --format html``. Model A answers gold except
at positions 0 and 3, model B except at even positions; some answers are unreadable, and one of B's answers holds
markup. Everything the page shows is checked against the logged samples.

Skipped only where no browser can run: no ``/usr/bin/chromium`` or no ``playwright`` package (the reason says
which). ``AMBI_UPDATE_DOCS=1`` also writes the overview screenshot to ``docs/img/report-overview.png``.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ambi_plugin.core.answers import reference_response
from ambi_plugin.data.replayfiles import task_records
from ambi_plugin.lmms.cli_run import run_lmms_eval
from ambi_plugin.runtime.taskindex import expand_tasks

pytestmark = pytest.mark.e2e

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip
MARKUP = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"><i class="pwn">hi</i> II'
BROKEN = ("ambi_synth_hybrid_open", 1)  # (task, position) whose image is truncated: an item error
DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img" / "report-overview.png"


def _playwright():
    if not CHROMIUM.is_file():
        pytest.skip(f"no browser: {CHROMIUM} is absent (Debian: apt-get install chromium; CI: .ci/system-deps)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("no browser driver: the playwright package is missing (pip install playwright; no download)")
    return sync_playwright


def answer(model: str, task: str, rec: dict, i: int) -> str:
    if model == "b" and task == "ambi_synth_geometric_mc" and i == 1:
        return MARKUP
    if i == 2 and task in ("ambi_synth_geometric_tf", "ambi_synth_multichoice"):
        return "I cannot tell from this picture."  # no parser reads it: unread, for both models
    wrong = i in (0, 3) if model == "a" else i % 2 == 0
    return reference_response(rec, "wrong" if wrong else "gold")


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    from ambi_plugin.cli import main
    from ambi_plugin.synth.suite import build_suite

    root = tmp_path_factory.mktemp("html_report")
    suite = build_suite(root / "suite")
    env = {**os.environ, "AMBI_SYNTH_DIR": str(suite)}
    before = os.environ.get("AMBI_SYNTH_DIR")
    os.environ["AMBI_SYNTH_DIR"] = str(suite)
    try:
        infos = expand_tasks("ambi_synth_all")
        records = {info.name: task_records(info) for info in infos}
        image = suite / records[BROKEN[0]][BROKEN[1]]["image"]
        image.write_bytes(image.read_bytes()[:200])  # a truncated PNG
        outs = []
        for model in ("a", "b"):
            rows = [{"task": t, "id": str(r["id"]), "response": answer(model, t, r, i)}
                    for t, recs in records.items() for i, r in enumerate(recs)]  # fmt: skip
            preds = root / f"{model}.jsonl"
            preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            args = ["--model", "ambi_replay", "--model_args", f"predictions={preds},check_visuals=true", "--tasks",
                    "ambi_synth_all", "--batch_size", "1", "--log_samples", "--limit", "4"]  # fmt: skip
            run = run_lmms_eval(args, output=root / model, env=env)
            assert run.results is not None, run.tail()
            outs.append(root / model)
        rep = root / "rep"
        assert main(["report", *map(str, outs), "--name", "model-a", "--name", "model-b", "--format", "html,md",
                     "--bootstrap", "200", "--out", str(rep), "--quiet"]) == 0  # fmt: skip
    finally:
        if before is None:
            os.environ.pop("AMBI_SYNTH_DIR", None)
        else:
            os.environ["AMBI_SYNTH_DIR"] = before
    return rep, outs, records


def logged(out: Path) -> dict[str, list[dict]]:
    """task -> our item scores in logged order, from a run's samples files."""
    from ambi_plugin.reports.runs import read_sample_items

    return {p.name.split("_samples_")[1][:-6]: read_sample_items(p) for p in sorted(out.rglob("*_samples_*.jsonl"))}


def status(item: dict) -> str:
    if item.get("item_error"):
        return "e"
    if not item["parsed"]:
        return "u"
    return "c" if item["correct"] else "w"


@pytest.fixture(scope="module")
def browser():
    sync_playwright = _playwright()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def open_page(browser, path: Path, *, scheme: str = "light"):
    page = browser.new_page(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page.problems, page.remote = [], []
    page.on("console", lambda m: m.type in ("error", "warning") and page.problems.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))

    def gate(route):
        if route.request.url.startswith("file://"):
            return route.continue_()
        page.remote.append(route.request.url)
        return route.abort()

    page.route("**/*", gate)
    page.goto(path.as_uri())
    page.wait_for_selector("#browser[data-ready='1']")
    return page


def shown(page) -> list[str]:
    return page.eval_on_selector_all("#item-list > li", "els => els.map(e => e.dataset.id)")


def choose(page, **filters) -> None:
    for name, value in filters.items():
        page.select_option(f"#f-{name}", value)


def test_overview_fits_one_screen_and_lists_every_task(browser, report_dir):
    rep, outs, records = report_dir
    page = open_page(browser, rep / "report.html")
    tasks = page.eval_on_selector_all("#overview-table tr[data-task]", "els => els.map(e => e.dataset.task)")
    assert sorted(tasks) == sorted(records)
    box = page.locator("#overview-table").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800 and box["x"] + box["width"] <= 1280, box
    # each cell: our value (the run's own metric), its interval and n
    results = json.loads(next(outs[0].rglob("*_results.json")).read_text())["results"]
    cell = page.locator("#overview-table tr[data-task='ambi_synth_hybrid_open'] td.v").first.inner_text()
    assert cell.startswith(f"{100 * results['ambi_synth_hybrid_open']['acc,none']:.1f} [") and "n=4" in cell
    toc = page.eval_on_selector_all("nav.toc a", "els => els.map(e => e.getAttribute('href'))")
    assert "#sec-synth" in toc and "#items" in toc and all(page.locator(h).count() == 1 for h in toc)
    shot = rep / "overview.png"
    page.screenshot(path=str(shot))
    if os.environ.get("AMBI_UPDATE_DOCS") == "1":
        from PIL import Image

        DOCS_IMG.parent.mkdir(parents=True, exist_ok=True)
        Image.open(shot).convert("RGB").quantize(colors=64).save(DOCS_IMG, optimize=True)
    assert not page.problems and not page.remote, (page.problems, page.remote)


def test_every_item_image_is_two_clicks_from_the_overview(browser, report_dir):
    rep, outs, records = report_dir
    page = open_page(browser, rep / "report.html")
    opened = 0
    for task, recs in records.items():
        page.evaluate("location.hash = '#overview'")
        page.click(f"#overview-table a[href='#items={task}']")  # click 1
        last = recs[3]  # the last item the runs logged (--limit 4)
        # the list renders after the click: wait for the item itself (on a busy machine it can take a moment)
        page.locator(f"#item-list > li[data-id='{last['id']}']").first.wait_for(timeout=30000)
        thumb = page.locator(f"#item-list > li[data-id='{last['id']}'] button.thumb")
        if not thumb.count():
            continue
        thumb.first.click()  # click 2
        page.wait_for_function("() => document.getElementById('lb-img').complete")
        assert page.evaluate("document.getElementById('lightbox').open")
        assert page.evaluate("document.getElementById('lb-img').naturalWidth") > 0, task
        src = page.get_attribute("#lb-img", "src")
        assert (rep / src).read_bytes() == (rep.parent / "suite" / last["image"]).read_bytes(), task
        page.keyboard.press("Escape")
        assert not page.evaluate("document.getElementById('lightbox').open")
        opened += 1
    assert opened == len(records)  # every task of the suite has images
    assert not page.problems and not page.remote, (page.problems, page.remote)


def test_the_item_lists_and_their_filters_match_the_logged_samples(browser, report_dir):
    rep, outs, records = report_dir
    items = [logged(out) for out in outs]
    page = open_page(browser, rep / "report.html")
    seen = set()
    for task in records:
        page.evaluate(f"location.hash = '#items={task}'")
        page.wait_for_function(f"() => document.getElementById('f-task').selectedOptions[0].text.startsWith('{task} ')")
        ids = [str(it["id"]) for it in items[0][task]]
        assert shown(page) == ids, task
        for k in (0, 1):
            choose(page, model=str(k))
            for st in ("w", "u", "e", "c"):
                choose(page, status=st)
                want = [str(it["id"]) for it in items[k][task] if status(it) == st]
                assert shown(page) == want, (task, k, st)
                if want:
                    seen.add(st)
            choose(page, status="all")
        page.check("#f-dis")
        b = {str(it["id"]): it for it in items[1][task]}
        want = [str(it["id"]) for it in items[0][task] if (status(it) == "c") != (status(b[str(it["id"])]) == "c")]
        assert shown(page) == want, task
        page.uncheck("#f-dis")
        choose(page, model="0")
    assert seen == {"w", "u", "e", "c"}  # every status occurs in this run, so each filter was really tested
    # an item error says why; the category filter and the search box narrow the list
    page.evaluate(f"location.hash = '#items={BROKEN[0]}'")
    broken = str(records[BROKEN[0]][BROKEN[1]]["id"])
    assert "item error" in page.locator(f"li[data-id='{broken}'] .ans").first.inner_text()
    tag = page.eval_on_selector_all("#f-tag option", "els => els.map(e => e.value)")[2]
    choose(page, tag=tag)
    assert shown(page) and all(tag in page.locator(f"li[data-id='{i}'] .ihead").inner_text() for i in shown(page))
    choose(page, tag="")
    page.fill("#f-q", broken)
    page.wait_for_function("() => document.querySelectorAll('#item-list > li').length === 1")
    assert shown(page) == [broken]
    assert not page.problems and not page.remote, (page.problems, page.remote)


def test_markup_in_a_response_is_shown_as_text(browser, report_dir):
    rep, outs, records = report_dir
    page = open_page(browser, rep / "report.html")
    page.evaluate("location.hash = '#items=ambi_synth_geometric_mc'")
    rid = str(records["ambi_synth_geometric_mc"][1]["id"])
    resp = page.locator(f"li[data-id='{rid}'] .ans[data-model='1'] pre.resp")
    assert resp.inner_text() == MARKUP
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#item-list script, #item-list i.pwn, #item-list img[src='x']").count() == 0
    assert MARKUP not in (rep / "report.html").read_text()  # never in the page as markup, only escaped data
    assert not page.problems and not page.remote, (page.problems, page.remote)


def test_keyboard_dark_mode_and_every_markdown_section(browser, report_dir):
    rep, outs, records = report_dir
    page = open_page(browser, rep / "report.html", scheme="dark")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(13, 17, 23)"  # the dark palette
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "f-q"
    page.evaluate("location.hash = '#items=ambi_synth_object_open'")
    page.focus("#item-list button.thumb")
    page.keyboard.press("Enter")
    assert page.evaluate("document.getElementById('lightbox').open")
    first = page.get_attribute("#lb-img", "src")
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#lb-img", "src") != first
    page.keyboard.press("Escape")
    page.screenshot(path=str(rep / "items-dark.png"))
    md = (rep / "report.md").read_text()
    headings = [ln[3:].strip() for ln in md.splitlines() if ln.startswith("## ")]
    texts = page.eval_on_selector_all("h2, h3", "els => els.map(e => e.textContent.trim())")
    assert headings and all(h in texts for h in headings), [h for h in headings if h not in texts]
    assert not page.problems and not page.remote, (page.problems, page.remote)


def test_images_are_copied_and_thumbnailed_once(report_dir, monkeypatch):
    from ambi_plugin.cli import main

    # the report written again the same way: where the tasks read their data as the first time (the suite folder)
    monkeypatch.setenv("AMBI_SYNTH_DIR", str(report_dir[0].parent / "suite"))

    rep, outs, records = report_dir
    thumbs = sorted((rep / "items" / "thumb").iterdir())
    images = {r["image"] for recs in records.values() for r in recs[:4]}  # tasks share images (pixel / human ...)
    assert len(thumbs) == len(images) - 1  # one per logged image, made once; the truncated one has none
    assert len(list((rep / "items" / "full").iterdir())) == len(images)
    stamps = {p: p.stat().st_mtime_ns for p in thumbs}
    again = rep.parent / "again"
    shutil.copytree(rep, again)
    stamps = {again / p.relative_to(rep): t for p, t in stamps.items()}
    assert main(["report", *map(str, outs), "--format", "html", "--out", str(again), "--quiet", "--no-plots"]) == 0
    assert {p: p.stat().st_mtime_ns for p in sorted((again / "items" / "thumb").iterdir())} == stamps
