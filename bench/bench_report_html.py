"""Benchmark: the HTML report of 10,000 items, opened in headless Chromium.

    python bench/bench_report_html.py [--items 10000] [--tasks 10] [--models 2] [--images 500] [--repeats 3]

Writes the files lmms-eval writes for ``--models`` runs (a results JSON and one ``--log_samples`` file per task)
over ``--items`` items spread over ``--tasks`` tasks, with a records file per task whose items name ``--images``
distinct PNGs (256 x 256); every item has its own prompt (question and four options), each answer a sentence or
two, one in seven holding markup. Then ``ambi report --format html`` (timed: the build, images copied and
thumbnailed once), and the page opened ``--repeats`` times in Debian's headless Chromium (``/usr/bin/chromium``,
through Playwright, every non-file request blocked), each in a fresh page:

* load + first render: from the navigation until the item browser is ready and its first items are in the page
  (wall clock in Python) and the page's own DOMContentLoaded (the inline script runs before it);
* a filter: the item list of the largest task narrowed to the wrong answers (in-page ``performance.now()``).

Prints the medians and a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip
WORDS = "the upper line looks longer than the lower one because of the converging rails around it".split()


def make_images(folder: Path, n: int, rng: random.Random) -> list[str]:
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(n):
        img = Image.new("RGB", (256, 256), tuple(rng.randrange(256) for _ in range(3)))
        draw = ImageDraw.Draw(img)
        for _ in range(6):
            x, y = rng.randrange(200), rng.randrange(200)
            draw.ellipse((x, y, x + rng.randrange(20, 60), y + rng.randrange(20, 60)),
                         fill=tuple(rng.randrange(256) for _ in range(3)))  # fmt: skip
        name = f"images/img_{i:05d}.png"
        img.save(folder.parent / name)
        names.append(name)
    return names


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write_runs(root: Path, *, items: int, tasks: int, models: int, images: int, seed: int = 0) -> list[Path]:
    """The records and the lmms-eval output folders (one per model); returns the folders."""
    rng = random.Random(seed)
    data = root / "records"
    names = make_images(data / "images", images, rng)
    per_task = [items // tasks + (1 if t < items % tasks else 0) for t in range(tasks)]
    outs = [root / f"model_{m}" for m in range(models)]
    for out in outs:
        out.mkdir(parents=True, exist_ok=True)
    results = [{"results": {}, "n-samples": {}, "config": {"model": "bench", "model_args": f"pretrained=org/model-{m}"},
                "ambi_plugin": {"data": {}}} for m in range(models)]  # fmt: skip
    for t, n in enumerate(per_task):
        task = f"bench_task_{t:02d}"
        recs, lines = [], [[] for _ in range(models)]
        for i in range(n):
            options = [sentence(rng, 4) for _ in range(4)]
            gold = rng.randrange(4)
            rec = {"id": f"{task}_{i:05d}", "task_type": "choice", "category": f"cat{i % 6}", "answer_index": gold,
                   "options": options, "question": sentence(rng, 14), "image": names[rng.randrange(len(names))],
                   "breakdown": {"difficulty": ("easy", "hard")[i % 2]}}  # fmt: skip
            recs.append(rec)
            prompt = rec["question"] + "\n" + "\n".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(options))
            for m in range(models):
                pred = gold if rng.random() < 0.6 + 0.1 * m else rng.randrange(4)
                unread = rng.random() < 0.05
                text = sentence(rng, 20) + ("" if unread else f" Answer: {chr(65 + pred)}")
                if i % 7 == 3:
                    text = "<b>" + text + "</b> <script>alert(1)</script>"
                item = {"id": rec["id"], "task_type": "choice", "parsed": not unread,
                        "parse_reason": "no option label" if unread else "", "breakdown": rec["breakdown"],
                        "pred": None if unread else pred, "correct": (not unread) and pred == gold, "response": text,
                        "task": task}  # fmt: skip
                row = {"doc_id": i, "target": chr(65 + gold), "filtered_resps": [text], "input": prompt, "acc": item}
                lines[m].append(json.dumps(row) + "\n")
        (data / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
        for m, out in enumerate(outs):
            (out / f"x_samples_{task}.jsonl").write_text("".join(lines[m]))
            acc = sum(json.loads(ln)["acc"]["correct"] for ln in lines[m]) / n
            results[m]["results"][task] = {"acc,none": acc}
            results[m]["n-samples"][task] = {"original": n, "effective": n}
            results[m]["ambi_plugin"]["data"][task] = {"source": str(data)}
    for m, out in enumerate(outs):
        (out / "x_results.json").write_text(json.dumps(results[m]))
    return outs


def open_times(page_path: Path, repeats: int) -> list[dict]:
    from playwright.sync_api import sync_playwright

    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for _ in range(repeats):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
            t0 = time.perf_counter()
            page.goto(page_path.as_uri(), wait_until="domcontentloaded")
            page.wait_for_selector("#browser[data-ready='1']")
            page.wait_for_selector("#item-list > li")
            wall = time.perf_counter() - t0
            dcl = page.evaluate("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd")
            filt = page.evaluate("""() => {
                const t = document.getElementById('f-task');
                let best = 0;
                for (let i = 0; i < t.options.length; i++) {
                  if (+t.options[i].text.match(/\\((\\d+)\\)$/)[1] > +t.options[best].text.match(/\\((\\d+)\\)$/)[1]) best = i;
                }
                t.value = String(best); t.dispatchEvent(new Event('change'));
                const s = document.getElementById('f-status'); s.value = 'w';
                const t0 = performance.now(); s.dispatchEvent(new Event('change'));
                return [performance.now() - t0, document.querySelectorAll('#item-list > li').length];
            }""")  # fmt: skip
            out.append({"wall_s": wall, "dcl_ms": dcl, "filter_ms": filt[0], "shown": filt[1]})
            page.close()
        browser.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--models", type=int, default=2)
    ap.add_argument("--images", type=int, default=500)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--keep", default=None, help="write here (and keep) instead of a temporary folder")
    args = ap.parse_args()
    if not Path(CHROMIUM).is_file():
        print(f"no browser at {CHROMIUM} (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    from ambi_plugin.reports import build_report, write_report

    root = Path(args.keep or tempfile.mkdtemp(prefix="bench-report-html-"))
    outs = write_runs(root, items=args.items, tasks=args.tasks, models=args.models, images=args.images)
    t0 = time.perf_counter()
    report = build_report(outs, n_boot=1000)
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    write_report(report, root / "rep", formats=["html"], plots=False)
    written = time.perf_counter() - t0
    page = root / "rep" / "report.html"
    runs = open_times(page, args.repeats)
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "dcl_ms", "filter_ms")}
    size = page.stat().st_size / 1e6
    print(f"{args.items} items x {args.models} models, {args.tasks} tasks, {args.images} images; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs")  # fmt: skip
    print(f"report.html {size:.1f} MB; build_report {built:.1f} s, write (items, images, thumbnails) {written:.1f} s")
    for r in runs:
        print(f"  open: {r['wall_s']:.2f} s (DOMContentLoaded {r['dcl_ms']:.0f} ms); filter to wrong "
              f"{r['filter_ms']:.0f} ms ({r['shown']} shown of the matches)")  # fmt: skip
    print("\n| items | page | load + first render (median of 3) | DOMContentLoaded | filter to wrong | build + write |")
    print("|---|---|---|---|---|---|")
    print(f"| {args.items:,} x {args.models} models | {size:.1f} MB | {med['wall_s']:.2f} s | {med['dcl_ms']:.0f} ms "
          f"| {med['filter_ms']:.0f} ms | {built:.1f} s + {written:.1f} s |")  # fmt: skip
    return 0 if med["wall_s"] < 3.0 else 1


if __name__ == "__main__":
    sys.exit(main())
