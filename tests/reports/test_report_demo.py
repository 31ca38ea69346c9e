"""``ambi report`` on the output of ``ambi demo`` (the real lmms-eval run with the tiny random-weight model, two
items per task): the Markdown, LaTeX and HTML reports are written and their charts are looked at. The tiny model
scores mostly 0, so most charts have no visible bar: each must still show its axes and one tick slot per category."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ambi_plugin.cli import main
from ambi_plugin.reports import build_report
from ambi_plugin.reports.plots import PALETTE, pixel_size

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def demo_out(tmp_path_factory):
    from ambi_plugin.cli.demo import run_demo

    out = tmp_path_factory.mktemp("demo") / "run"
    assert run_demo(output=out, limit=2) == 0  # every task of ambi_synth_all has results
    return out


def runs(row: np.ndarray, gap: int = 0) -> list[tuple[int, int]]:
    """(start, end) of the runs of True along a pixel row, runs closer than ``gap`` pixels merged."""
    xs = np.flatnonzero(row)
    out: list[tuple[int, int]] = []
    for x in xs:
        if out and x - out[-1][1] <= gap + 1:
            out[-1] = (out[-1][0], int(x))
        else:
            out.append((int(x), int(x)))
    return out


def x_axis(img: np.ndarray) -> tuple[int, int, int]:
    """(row, left, right) of the x axis: the lower-half pixel row with the most dark pixels."""
    dark = (img < 100).all(axis=2)
    h = dark.shape[0]
    y = h // 2 + int(np.argmax(dark[h // 2 :].sum(axis=1)))
    (left, right) = max(runs(dark[y]), key=lambda r: r[1] - r[0])
    return y, left, right


def tick_slots(img: np.ndarray) -> list[int]:
    """x positions of the tick marks under the x axis (one per category slot)."""
    y, left, right = x_axis(img)
    below = (img[y + 2] < 100).all(axis=1)
    return [(a + b) // 2 for a, b in runs(below) if left + 3 < a and b < right - 3]


def test_ambi_report_on_the_demo_writes_every_format_with_charts(demo_out, tmp_path):
    from PIL import Image

    rep = tmp_path / "rep"
    assert main(["report", str(demo_out), "--format", "md,latex,html", "--out", str(rep), "--quiet"]) == 0
    md, tex, html = ((rep / f"report.{ext}").read_text() for ext in ("md", "tex", "html"))
    tables = {t.title: t for t in build_report([demo_out], n_boot=0).tables}  # the same tables, by title
    sections = re.findall(r"^## (.+?)\n(.*?)(?=^## |\Z)", md, flags=re.S | re.M)
    charted = [(title, re.findall(r"\]\((plots/[^)]+\.png)\)", body)) for title, body in sections]
    charted = [(title, pngs) for title, pngs in charted if pngs]
    assert len(charted) >= 15  # a table and a chart per synthetic task
    assert tex.count(r"\begin{tabular}") == len(sections) - ("Significance" in md)
    # the HTML page leaves out the charts of one bar per model (its overview chart shows every task at once)
    several = [
        pngs for title, pngs in charted if len([c for c in tables[title].columns if c not in ("AVG", "Rank")]) > 1
    ]
    assert html.count("data:image/png;base64,") == sum(len(p) for p in several) > 0
    blue = np.array([int(PALETTE[0][i : i + 2], 16) for i in (1, 3, 5)])
    bars_seen = 0
    for title, pngs in charted:
        table = tables[title]
        cats = [c for c in table.columns if c not in ("AVG", "Rank")]
        path = rep / pngs[0]
        assert path.with_suffix(".svg").is_file(), title
        img = np.asarray(Image.open(path).convert("RGB")).astype(int)
        assert (img.shape[1], img.shape[0]) == pixel_size(len(cats)), title
        assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20, f"{title}: blank image"
        y, left, right = x_axis(img)
        assert right - left > img.shape[1] / 2, f"{title}: no x axis"
        ticks = tick_slots(img)
        assert len(ticks) == len(cats), title  # one slot per category, zero bars included
        gaps = np.diff(ticks)
        assert len(gaps) == 0 or gaps.max() - gaps.min() <= 2, title  # evenly spaced slots
        # each positive cell draws one bar (error bars may cross it: nearby pieces merged) in its own slot
        values = [c.value for col, c in zip(table.columns, table.run_rows()[0].cells) if col in cats]
        mask = (np.abs(img[y - 3] - blue) < 10).all(axis=1)
        bars = runs(mask, gap=4)
        assert len(bars) == sum(1 for v in values if v and v > 0), title
        for a, b in bars:
            slot = int(np.argmin([abs((a + b) / 2 - t) for t in ticks]))
            assert values[slot] and values[slot] > 0, title
        bars_seen += len(bars)
    print(f"{len(charted)} charts, {bars_seen} visible bars")
