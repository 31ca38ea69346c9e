"""Property-based fuzzing of every metric (core/metrics.py) and every aggregation (core/scoring.py):
at least 10,000 generated inputs each, no exception, results within range (NaN only where the
metric is undefined: no items, no ground truth, FP + FN = 0)."""

from __future__ import annotations

import math
import random

from fuzzing import COUNTS, FUZZ, batch, run_counted
from hypothesis import given
from hypothesis import strategies as st

from ambi_plugin.core import metrics as M
from ambi_plugin.core.scoring import AGGREGATIONS, aggregate

coord = st.integers(-(10**6), 10**6).map(lambda v: v / 100) | st.floats(-1e4, 1e4, allow_nan=False)
box = st.tuples(coord, coord, coord, coord).map(
    lambda b: (min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3]))
)
small_box = st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(1, 30), st.integers(1, 30)).map(
    lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[3])
)  # small coordinates: boxes overlap often, so matching and ties are exercised
any_box = st.one_of(box, small_box)


def in_unit(x: float, *, nan_ok: bool = True) -> bool:
    return (nan_ok and math.isnan(x)) or 0.0 <= x <= 1.0


# Boxes are costly to draw one by one: an example draws a pool of boxes and a seed, and a random
# generator with that seed builds the example's 40 inputs from the pool (and from fresh random boxes).
# (st.randoms() would route every call through hypothesis' buffer: 40x slower.)
box_pool = st.lists(any_box, min_size=1, max_size=12)
rngs = st.integers(0, 2**32 - 1).map(random.Random)


def rand_box(rng, pool: list) -> tuple:
    if rng.random() < 0.6:
        return rng.choice(pool)
    x, y = rng.uniform(-50, 100), rng.uniform(-50, 100)
    return (x, y, x + rng.choice([0.0, rng.uniform(0, 60)]), y + rng.uniform(0, 60))


def rand_boxes(rng, pool: list, most: int = 4) -> list:
    return [rand_box(rng, pool) for _ in range(rng.randint(0, most))]


def test_fuzz_item_metrics():
    """iou, exact_set_match, image_hit, perception_outcome."""
    outcomes = {"human_like", "no_illusion", "na", "accurate", "inaccurate", "unparsed"}

    @FUZZ
    @given(box_pool, rngs)
    def prop(pool, rng):
        for _ in range(40):
            a, b = rand_box(rng, pool), rand_box(rng, pool)
            v = M.iou(a, b)
            assert 0.0 <= v <= 1.0 and v == M.iou(b, a)
            if (a[2] - a[0]) * (a[3] - a[1]) > 0:  # (an area that underflows to 0 has no IoU)
                assert M.iou(a, a) == 1.0
            pred = None if rng.random() < 0.2 else [rng.randint(0, 6) for _ in range(rng.randint(0, 4))]
            gold = [rng.randint(0, 6) for _ in range(rng.randint(0, 4))]
            assert M.exact_set_match(pred, gold) == (pred is not None and set(pred) == set(gold))
            preds, gts = rand_boxes(rng, pool), rand_boxes(rng, pool)
            hit = M.image_hit(preds, gts)
            assert isinstance(hit, bool)
            if len(preds) < len(gts):
                assert not hit  # one-to-one matching needs a prediction per ground-truth box
            if gts and all((g[2] - g[0]) * (g[3] - g[1]) > 0 for g in gts):
                assert M.image_hit(list(reversed(gts)), gts)  # the ground truth itself, in any order
            idx = None if rng.random() < 0.2 else rng.randint(-1, 5)
            out = M.perception_outcome(idx, rng.randint(0, 5), rng.randint(0, 5), rng.random() < 0.5)
            assert out in outcomes and (out == "unparsed") == (idx is None)
            COUNTS.update(("iou", "exact_set_match", "image_hit", "perception_outcome"))

    run_counted("iou", prop)
    assert min(COUNTS[n] for n in ("iou", "exact_set_match", "image_hit", "perception_outcome")) >= 10_000


def test_fuzz_aggregate_metrics():
    """accuracy, rate, confusion, fp_ratio, mean_and_std."""

    @FUZZ
    @given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8), rngs)
    def prop(floats_pool, rng):
        for _ in range(40):
            values = [rng.choice([None, True, False, rng.random()]) for _ in range(rng.randint(0, 12))]
            for fn in (M.accuracy, M.rate):
                v = fn(values)
                assert in_unit(v) and (math.isnan(v) == (not values))
            golds = [rng.random() < 0.5 for _ in range(rng.randint(0, 12))]
            preds = [rng.choice([None, True, False]) for _ in golds]
            c = M.confusion(preds, golds)
            assert sum(c.values()) == len(golds) and min(c.values()) >= 0
            r = M.fp_ratio(preds, golds)
            assert in_unit(r) and math.isnan(r) == (c["fp"] + c["fn"] == 0)
            floats = [rng.choice(floats_pool) for _ in range(rng.randint(0, 10))]
            mean, std = M.mean_and_std(floats)
            if floats:
                assert min(floats) - 1e-6 <= mean <= max(floats) + 1e-6 and std >= 0
            else:
                assert math.isnan(mean) and math.isnan(std)
            COUNTS.update(("accuracy", "rate", "confusion", "fp_ratio", "mean_and_std"))

    run_counted("accuracy", prop)
    assert min(COUNTS[n] for n in ("accuracy", "rate", "confusion", "fp_ratio", "mean_and_std")) >= 10_000


def test_fuzz_average_precision():
    @FUZZ
    @given(box_pool, rngs)
    def prop(pool, rng):
        for _ in range(40):
            COUNTS["average_precision"] += 1
            n_images = rng.randint(0, 6)
            gts = [rand_boxes(rng, pool) for _ in range(n_images)]
            perfect = rng.random() < 0.2
            preds = [list(g) for g in gts] if perfect else [rand_boxes(rng, pool) for _ in range(n_images)]
            scores = [[rng.random() for _ in p] for p in preds] if rng.random() < 0.5 else None
            ap = M.average_precision(preds, gts, scores=scores)
            n_gt = sum(map(len, gts))
            assert math.isnan(ap) == (n_gt == 0) and in_unit(ap)
            distinct = len({b for g in gts for b in g}) == n_gt
            if perfect and n_gt and distinct and all((b[2] - b[0]) * (b[3] - b[1]) > 0 for g in gts for b in g):
                assert ap == 1.0  # every image answered with exactly its (distinct, non-empty) ground truth

    assert run_counted("average_precision", prop) >= 10_000


ITEM = st.fixed_dictionaries(
    {
        "correct": st.booleans(),
        "parsed": st.booleans(),
        "pred_bool": st.none() | st.booleans(),
        "gold_bool": st.booleans(),
        "pred_boxes": st.lists(small_box, max_size=3),
        "gold_boxes": st.lists(small_box, max_size=3),
        "group": st.sampled_from(["single", "combined"]),
        "hit": st.booleans(),
        "score": st.sampled_from([0, 1, 2]),
        "score_llm": st.none() | st.sampled_from([0, 1, 2]),
        "is_illusion": st.booleans(),
        "outcome": st.sampled_from(["human_like", "no_illusion", "na", "accurate", "inaccurate", "unparsed"]),
        "judge": st.none() | st.fixed_dictionaries({"error": st.booleans()}),
        "correct_llm": st.booleans(),
        "pred_bool_llm": st.none() | st.booleans(),
        "judge_unscored": st.booleans(),
        "breakdown": st.fixed_dictionaries({"difficulty": st.sampled_from(["easy", "hard", "Real Scene"])}),
        "views": st.fixed_dictionaries({"near": st.booleans(), "far": st.booleans()}),
    }
)
RANGE = {"desc_score": (0.0, 2.0), "desc_score_llm": (0.0, 2.0), "desc_score_std": (0.0, 2.0),
         "desc_score_llm_std": (0.0, 2.0), "judge_errors": (0.0, math.inf)}  # fmt: skip
NAMES = [*AGGREGATIONS, "acc_near", "acc_easy", "fp_ratio_hard", "ap50_real_scene", "desc_score_easy"]


def test_fuzz_scoring_aggregations():
    """Every aggregation of core/scoring.py (and the per-view / per-value forms) over random item lists.

    One example draws a pool of items and 40 (start, length) slices of it: each slice is one input
    of every aggregation (items are costly to generate, slices are not)."""

    @FUZZ
    @given(st.lists(ITEM, min_size=1, max_size=12), batch(st.tuples(st.integers(0, 11), st.integers(0, 8))))
    def prop(pool, slices):
        for start, length in slices:
            items = pool[start : start + length]
            for name in NAMES:
                v = aggregate(name, items)
                lo, hi = RANGE.get(name.removesuffix("_easy"), (0.0, 1.0))
                assert math.isnan(v) or lo <= v <= hi, (name, v)
                assert not (name == "judge_errors" and math.isnan(v))
                if not items and name != "judge_errors":
                    assert math.isnan(v), (name, v)
                COUNTS[f"aggregate:{name}"] += 1

    for name in NAMES:
        COUNTS[f"aggregate:{name}"] = 0
    run_counted("aggregate:acc", prop)
    assert min(COUNTS[f"aggregate:{n}"] for n in NAMES) >= 10_000
