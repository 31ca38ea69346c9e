"""Property-based fuzzing of every metric (core/metrics.py) and every aggregation (core/scoring.py):
at least 10,000 distinct generated inputs each (counted after the call, asserted), no exception, results
within range (NaN only where the metric is undefined: no items, no ground truth, FP + FN = 0)."""

from __future__ import annotations

import math

from fuzzing import FUZZ, rng_for, run_until, seen
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
# generator seeded with both builds the example's inputs (45-60) from the pool (and from fresh random boxes).
# (st.randoms() would route every call through hypothesis' buffer: 40x slower; hypothesis repeats a seed
# across examples far more often than a whole example, hence pool and seed together.)
box_pool = st.lists(any_box, min_size=1, max_size=12)
seeds = st.integers(0, 2**32 - 1)


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
    @given(box_pool, seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(60):
            a, b = rand_box(rng, pool), rand_box(rng, pool)
            v = M.iou(a, b)
            assert 0.0 <= v <= 1.0 and v == M.iou(b, a)
            if (a[2] - a[0]) * (a[3] - a[1]) > 0:  # (an area that underflows to 0 has no IoU)
                assert M.iou(a, a) == 1.0
            seen("iou", a, b)
            pred = None if rng.random() < 0.1 else [rng.randint(0, 20) for _ in range(rng.randint(0, 6))]
            gold = [rng.randint(0, 20) for _ in range(rng.randint(0, 6))]
            assert M.exact_set_match(pred, gold) == (pred is not None and set(pred) == set(gold))
            seen("exact_set_match", pred, gold)
            preds, gts = rand_boxes(rng, pool), rand_boxes(rng, pool)
            hit = M.image_hit(preds, gts)
            assert isinstance(hit, bool)
            if len(preds) < len(gts):
                assert not hit  # one-to-one matching needs a prediction per ground-truth box
            if gts and all((g[2] - g[0]) * (g[3] - g[1]) > 0 for g in gts):
                assert M.image_hit(list(reversed(gts)), gts)  # the ground truth itself, in any order
            seen("image_hit", preds, gts)
            idx = None if rng.random() < 0.1 else rng.randint(-1, 30)
            pixel, human = (rng.randint(0, 30) if rng.random() < 0.3 else rng.sample(range(31), rng.randint(1, 4))
                            for _ in range(2))  # fmt: skip
            illusion = rng.random() < 0.5
            out = M.perception_outcome(idx, pixel, human, illusion)
            assert out in outcomes and (out == "unparsed") == (idx is None)
            if idx is not None:
                in_pixel = idx in ({pixel} if isinstance(pixel, int) else set(pixel))
                in_human = idx in ({human} if isinstance(human, int) else set(human))
                want = ("human_like" if in_human else "no_illusion" if in_pixel else "na") if illusion else (
                    "accurate" if in_pixel else "inaccurate")  # fmt: skip
                assert out == want, (idx, pixel, human, illusion, out)
            seen("perception_outcome", idx, pixel, human, illusion)

    names = ("iou", "exact_set_match", "image_hit", "perception_outcome")
    counts = run_until(names, prop)
    assert min(counts.values()) >= 10_000, counts


def test_fuzz_aggregate_metrics():
    """accuracy, rate, confusion, fp_ratio, mean_and_std."""

    @FUZZ
    @given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8), seeds)
    def prop(floats_pool, seed):
        rng = rng_for(floats_pool, seed)
        for _ in range(60):
            values = [rng.choice([None, True, False, rng.random()]) for _ in range(rng.randint(0, 30))]
            for name, fn in (("accuracy", M.accuracy), ("rate", M.rate)):
                v = fn(values)
                assert in_unit(v) and (math.isnan(v) == (not values))
                seen(name, values)
            golds = [rng.random() < 0.5 for _ in range(rng.randint(0, 30))]
            preds = [rng.choice([None, True, False]) for _ in golds]
            c = M.confusion(preds, golds)
            assert sum(c.values()) == len(golds) and min(c.values()) >= 0
            seen("confusion", preds, golds)
            r = M.fp_ratio(preds, golds)
            assert in_unit(r) and math.isnan(r) == (c["fp"] + c["fn"] == 0)
            seen("fp_ratio", preds, golds)
            floats = [rng.choice(floats_pool) for _ in range(rng.randint(0, 10))]
            mean, std = M.mean_and_std(floats)
            if floats:
                assert min(floats) - 1e-6 <= mean <= max(floats) + 1e-6
                assert std >= 0 if len(floats) > 1 else math.isnan(std)
            else:
                assert math.isnan(mean) and math.isnan(std)
            seen("mean_and_std", floats)

    counts = run_until(("accuracy", "rate", "confusion", "fp_ratio", "mean_and_std"), prop)
    assert min(counts.values()) >= 10_000, counts


def test_fuzz_average_precision():
    @FUZZ
    @given(box_pool, seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(45):
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
            seen("average_precision", preds, gts, scores)

    assert run_until(("average_precision",), prop)["average_precision"] >= 10_000


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
         "desc_score_llm_std": (0.0, 2.0), "judge_errors": (0.0, math.inf), "unparsed": (0.0, math.inf)}  # fmt: skip
COUNTS = ("judge_errors", "unparsed")  # counts: 0 over no items, never NaN
NAMES = [*AGGREGATIONS, "acc_near", "acc_easy", "fp_ratio_hard", "ap50_real_scene", "desc_score_easy"]


def test_fuzz_scoring_aggregations():
    """Every aggregation of core/scoring.py (and the per-view / per-value forms) over random item lists.

    One example draws a pool of items and a seed; the seed's generator builds 60 item lists (any length up to
    10, items drawn from the pool with repetition): each list is one input of every aggregation (items are
    costly to generate, lists of them are not)."""

    @FUZZ
    @given(st.lists(ITEM, min_size=1, max_size=12), seeds)
    def prop(pool, seed):
        rng = rng_for(pool, seed)
        for _ in range(60):
            items = [rng.choice(pool) for _ in range(rng.randint(0, 10))]
            for name in NAMES:
                v = aggregate(name, items)
                lo, hi = RANGE.get(name.removesuffix("_easy"), (0.0, 1.0))
                assert math.isnan(v) or lo <= v <= hi, (name, v)
                assert not (name in COUNTS and math.isnan(v))
                if not items and name not in COUNTS:
                    assert math.isnan(v), (name, v)
            seen([f"aggregate:{n}" for n in NAMES], items)  # every aggregation returned and passed its checks

    counts = run_until([f"aggregate:{n}" for n in NAMES], prop)
    assert min(counts.values()) >= 10_000, counts
