"""Property tests of the synthetic suite: any seed, any size, any item, no failure, exact ground truth kept.

An item depends only on (seed, family, index) and on one block of its family's plan, and a build can make any
single item directly (``BuildContext(items=range(i, i + 1))``), identical to the same item of a full build
(tested below). So hypothesis draws single items at arbitrary seeds, sizes up to 10**6 and indices, for every
family: that covers what a build of 100,000 items draws. Throughput and memory at 1k/10k/100k items are
measured by ``bench/bench_synth_scale.py`` and ``bench/bench_suite_scale.py``.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from ambi_plugin.core.schema import read_records
from ambi_plugin.synth import build_suite
from ambi_plugin.synth import common as common_mod
from ambi_plugin.synth.color import NEAR_DISTANCE, SAME, _far_color, make_contrast, make_stripe, rgb_distance
from ambi_plugin.synth.common import BuildContext, balanced_bools, cycle_plan, item_rng, planned, record_id
from ambi_plugin.synth.scenes import _place, _shelf_place
from ambi_plugin.synth.suite import FAMILIES, SYNTH_TASKS, Family, _write_family

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(
    base=st.tuples(*[st.integers(0, 255)] * 3),
    lo=st.integers(0, 200),
    width=st.integers(0, 55),
    min_dist=st.floats(1.0, 300.0),
    seed=SEEDS,
)
def test_far_color_never_fails_and_is_as_far_as_the_cube_allows(base, lo, width, min_dist, seed):
    hi = lo + width
    color = _far_color(np.random.default_rng(seed), base, lo, hi, min_dist)
    assert all(lo <= c <= hi for c in color)
    corner = tuple(lo if abs(b - lo) >= abs(hi - b) else hi for b in base)
    assert rgb_distance(color, base) >= min(min_dist, rgb_distance(corner, base)) - 1e-9


@FAST
@given(base=st.tuples(*[st.integers(70, 170)] * 3), seed=SEEDS)
def test_contrast_far_colors_are_always_far(base, seed):
    """The contrast family's draw (base in [70, 170], far color in [40, 170], 120 wanted; the cube reaches at
    least 112 from any base): the breakdown label "far" (distance >= NEAR_DISTANCE) always holds."""
    color = _far_color(np.random.default_rng(seed), base, 40, 170, 120.0)
    assert rgb_distance(color, base) >= NEAR_DISTANCE


@FAST
@given(seed=SEEDS, index=st.integers(0, 10**6), illusion=st.booleans())
def test_contrast_item_pixels_are_exact(seed, index, illusion):
    item = make_contrast(item_rng(seed, "contrast", index), illusion)
    for core, rgb in ((item.core_a, item.rgb_a), (item.core_b, item.rgb_b)):
        x1, y1, x2, y2 = core
        assert (item.image[y1 : y2 + 1, x1 : x2 + 1] == np.asarray(rgb, dtype=np.uint8)).all()
    assert (item.pixel_answer == SAME) == illusion
    if not illusion:
        assert item.human_answer == item.pixel_answer


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, index=st.integers(0, 10**6), illusion=st.booleans())
def test_stripe_item_never_fails_and_answers_follow_the_colors(seed, index, illusion):
    item = make_stripe(item_rng(seed, "stripe", index), illusion)
    assert (item.pixel_answer == SAME) == illusion
    x1, y1, x2, y2 = item.box_left
    region = item.image[y1 : y2 + 1, x1 : x2 + 1].reshape(-1, 3)
    assert {tuple(int(v) for v in px) for px in region} <= {(0, 0, 0), tuple(item.rgb_left)}


@FAST
@given(
    seed=SEEDS,
    k=st.integers(1, 7),
    crowded=st.booleans(),
)
def test_shapes_are_always_placed_apart_inside_the_canvas(seed, k, crowded):
    rng = np.random.default_rng(seed)
    lo, hi, width, height, gap = (60, 110, 384, 288, 14) if crowded else (36, 104, 448, 336, 8)
    k = min(k, 5) if crowded else k
    sides = [int(v) for v in rng.choice(np.arange(lo, hi + 1, 5 if crowded else 6), size=k, replace=False)]
    sizes = [(s, s) for s in sides]
    for corners in (_place(rng, sizes, width, height, gap=gap), _shelf_place(sizes, width, height, gap=gap)):
        _assert_apart_inside(corners, sizes, width, height, gap)


def _assert_apart_inside(corners, sizes, width, height, gap):
    """One corner per size; every box inside the canvas with ``gap`` to its edges and to every other box."""
    assert len(corners) == len(sizes)
    boxes = [(x, y, w, h) for (x, y), (w, h) in zip(corners, sizes, strict=True)]
    for i, (x, y, w, h) in enumerate(boxes):
        assert gap <= x and x + w + gap <= width and gap <= y and y + h + gap <= height, (i, boxes)
        for px, py, pw, ph in boxes[i + 1 :]:
            assert x + w + gap <= px or px + pw + gap <= x or y + h + gap <= py or py + ph + gap <= y, boxes


@pytest.mark.parametrize(
    ("sides", "width", "height", "gap"),
    [
        ((110, 105, 100, 95, 90), 384, 288, 14),  # multi-label choice: the five largest sizes it draws
        ((104, 98, 92, 86, 80, 74, 68), 448, 336, 8),  # localization: the seven largest
    ],
    ids=["multichoice", "localization"],
)
def test_rows_fit_the_largest_shapes(sides, width, height, gap):
    sizes = [(s, s) for s in sides]
    _assert_apart_inside(_shelf_place(sizes, width, height, gap=gap), sizes, width, height, gap)
    # the same sizes in another order (the rows are laid out tallest first, corners returned in the given order)
    shuffled = sizes[::-1]
    _assert_apart_inside(_shelf_place(shuffled, width, height, gap=gap), shuffled, width, height, gap)
    # a canvas too short for even one row is refused, not overfilled
    with pytest.raises(RuntimeError, match="cannot fit shapes"):
        _shelf_place(sizes, width, max(sides) + 2 * gap - 1, gap=gap)


def test_a_shelf_keeps_the_gap_to_the_canvas_edge():
    """A box fits exactly when the gap fits on both sides; one pixel less either way is refused."""
    gap, side = 8, 50
    assert _shelf_place([(side, side)], side + 2 * gap, side + 2 * gap, gap=gap) == [(gap, gap)]
    for width, height in ((side + 2 * gap - 1, side + 2 * gap), (side + 2 * gap, side + 2 * gap - 1)):
        with pytest.raises(RuntimeError, match="cannot fit shapes"):
            _shelf_place([(side, side)], width, height, gap=gap)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, n=st.integers(1, 60), block=st.integers(1, 16))
def test_block_plans_keep_the_global_balance(seed, n, block):
    values = ("a", "b", "c")
    old_block = common_mod.PLAN_BLOCK
    common_mod.PLAN_BLOCK = block
    try:
        pairs = list(planned(seed, "f", n, lambda rng, start, size: cycle_plan(rng, values, size, start=start)))
        bools = [v for _, v in planned(seed, "g", n, lambda rng, start, size: balanced_bools(rng, size, start=start))]
        # any single item of the plan, made from its own block only, is the item of the whole plan
        i = seed % n
        alone = planned(
            seed, "f", n, lambda rng, start, size: cycle_plan(rng, values, size, start=start), range(i, i + 1)
        )
        assert list(alone) == [pairs[i]]
    finally:
        common_mod.PLAN_BLOCK = old_block
    assert [i for i, _ in pairs] == list(range(n))
    cycled = [v for _, v in pairs]
    assert Counter(cycled) == Counter(values[i % 3] for i in range(n))
    assert sum(bools) == (n + 1) // 2
    # one block (n <= PLAN_BLOCK): exactly the plan drawn before plans were made in blocks
    if n <= block:
        assert cycled == cycle_plan(common_mod.plan_rng(seed, "f"), values, n)


def test_generators_stream():
    for family in FAMILIES:
        assert inspect.isgeneratorfunction(family.generate), family.name
    assert len(set(SYNTH_TASKS)) == len(SYNTH_TASKS) == sum(len(f.tasks) for f in FAMILIES)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 2, 3]))
def test_any_seed_and_size_builds(tmp_path_factory: pytest.TempPathFactory, seed: int, n: int):
    out = build_suite(tmp_path_factory.mktemp("suite") / "s", seed=seed, n=n)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == seed and manifest["tasks"] == dict.fromkeys(SYNTH_TASKS, n)
    for task in SYNTH_TASKS:
        recs = read_records(out / f"{task}.jsonl")  # validates each record
        assert len({r["id"] for r in recs}) == n
        for rec in recs:
            images = [rec["image"]] if isinstance(rec["image"], str) else rec["image"]
            assert all((out / img).is_file() for img in images)


def test_a_family_streams_into_open_files(tmp_path: Path):
    """Records reach the task file while the family is still generating (nothing held until the end)."""
    from ambi_plugin.synth.suite import _write_family

    family = next(f for f in FAMILIES if f.name == "navon")
    (tmp_path / "images").mkdir()
    path = tmp_path / f"{family.tasks[0]}.jsonl"
    seen_on_disk: list[int] = []
    with path.open("w", encoding="utf-8") as fh:

        def tick() -> None:
            fh.flush()
            seen_on_disk.append(len(path.read_text().splitlines()))

        ctx = BuildContext(tmp_path, 0, 3, tick=tick)
        _write_family(ctx, family, {family.tasks[0]: fh}, dict.fromkeys(family.tasks, 0))
    assert seen_on_disk == [1, 2, 3]  # when item i ticks, its record is already in the file


# --------------------------------------------------------------------------------------------------
# Any item of any seed, built directly
# --------------------------------------------------------------------------------------------------


def _build(out: Path, family: Family, seed: int, n: int, items: range) -> dict[str, list[str]]:
    """Build ``items`` of ``family`` into ``out`` through the suite's own checked writer; the JSONL lines per task."""
    (out / "images").mkdir(parents=True, exist_ok=True)
    ctx = BuildContext(out, seed, n, items=items)
    with ExitStack() as stack:
        files = {t: stack.enter_context((out / f"{t}.jsonl").open("w", encoding="utf-8")) for t in family.tasks}
        _write_family(ctx, family, files, dict.fromkeys(family.tasks, 0))  # validates each record, checks images
    return {t: (out / f"{t}.jsonl").read_text(encoding="utf-8").splitlines() for t in family.tasks}


def _index_in(n: int) -> st.SearchStrategy[int]:
    """Any index of n, with extra weight on the ends and on the edges of the plan's blocks."""
    edges = [i for b in range(1, 4) for i in (b * common_mod.PLAN_BLOCK - 1, b * common_mod.PLAN_BLOCK)]
    return st.one_of(st.integers(0, n - 1), st.sampled_from([0, n - 1, *[i for i in edges if i < n]]))


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(seed=SEEDS, n=st.one_of(st.integers(1, 10**6), st.sampled_from([100_000, 4097])), data=st.data())
def test_any_item_of_any_seed_and_size_builds_directly(tmp_path_factory, family: Family, seed: int, n: int, data):
    i = data.draw(_index_in(n), label="index")
    out = tmp_path_factory.mktemp(family.name)
    lines = _build(out, family, seed, n, range(i, i + 1))
    for task, task_lines in lines.items():
        assert len(task_lines) == 1, task
        rec = json.loads(task_lines[0])
        assert rec["id"] == record_id(task, i) and rec["image"] == f"images/{family.name}_{i:04d}.png"
        with Image.open(out / rec["image"]) as im:
            im.load()  # a complete, decodable PNG
            assert im.mode == "RGB" and min(im.size) >= 64


def test_an_item_built_alone_is_the_item_of_the_full_build(tmp_path: Path, monkeypatch):
    """Every family, items built one by one (and a middle range) equal a full build's, bytes and pixels, across
    plan blocks (PLAN_BLOCK made 3 so that 7 items span three blocks, the last one partial)."""
    monkeypatch.setattr(common_mod, "PLAN_BLOCK", 3)
    n = 7
    for family in FAMILIES:
        full = _build(tmp_path / family.name / "full", family, 11, n, range(n))
        alone = {t: [] for t in family.tasks}
        for i in range(n):
            for task, task_lines in _build(tmp_path / family.name / f"i{i}", family, 11, n, range(i, i + 1)).items():
                alone[task] += task_lines
            name = f"images/{family.name}_{i:04d}.png"
            assert (tmp_path / family.name / f"i{i}" / name).read_bytes() == (
                tmp_path / family.name / "full" / name
            ).read_bytes()
        assert alone == full, family.name
        middle = _build(tmp_path / family.name / "mid", family, 11, n, range(2, 6))
        assert middle == {t: v[2:6] for t, v in full.items()}, family.name


def test_items_outside_the_suite_are_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="not all among the 5 items"):
        BuildContext(tmp_path, 0, 5, items=range(3, 6))
    with pytest.raises(ValueError, match="item 5 is not one of the 5 items"):
        list(planned(0, "f", 5, lambda rng, start, size: list(range(size)), range(5, 6)))
