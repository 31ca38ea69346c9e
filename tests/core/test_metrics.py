"""Metrics: hand-computed tables, and AP@0.5 against pycocotools (the reference; a dev dependency)."""

from __future__ import annotations

import contextlib
import io
import math
import random

import numpy as np
import pytest

from ambi_plugin.core.metrics import (
    accuracy,
    average_precision,
    confusion,
    exact_set_match,
    fp_ratio,
    image_hit,
    iou,
    mean_and_std,
    mean_std,
    perception_outcome,
    rate,
)

# ----------------------------------------------------------------------------- simple aggregations


def test_accuracy_and_rate():
    assert accuracy([True, False, True, True]) == 0.75
    assert accuracy([1.0, 0.0, None]) == pytest.approx(1 / 3)  # None (unscored) counts as wrong
    assert math.isnan(accuracy([]))
    assert rate([True, False]) == 0.5
    assert math.isnan(rate([]))


@pytest.mark.parametrize(
    ("pred", "gold", "expected"),
    [
        (frozenset({0, 1}), [0, 1], True),
        (frozenset({0, 2}), [0, 1], False),  # A.10: "A, C" for "A, B" (partially correct) is wrong
        (frozenset({0}), [0, 1], False),  # A.10: "A" alone is wrong
        (frozenset({0, 4}), [4], False),  # "None" with another letter is wrong
        (frozenset({4}), [4], True),
        (frozenset(), [], True),
        (None, [0], False),
    ],
)
def test_exact_set_match(pred, gold, expected):
    assert exact_set_match(pred, gold) is expected


# Hand-made T/F table (True = positive):
#   pred  gold  -> cell
#   T     T        tp
#   T     F        fp
#   T     F        fp
#   F     T        fn
#   F     F        tn
#   None  T        unparsed (neither FP nor FN)
#   None  F        unparsed
# FP = 2, FN = 1 -> FP ratio = 2 / 3.
FP_TABLE_PREDS = [True, True, True, False, False, None, None]
FP_TABLE_GOLDS = [True, False, False, True, False, True, False]


def test_confusion_and_fp_ratio_hand_table():
    assert confusion(FP_TABLE_PREDS, FP_TABLE_GOLDS) == {"tp": 1, "fp": 2, "tn": 1, "fn": 1, "unparsed": 2}
    assert fp_ratio(FP_TABLE_PREDS, FP_TABLE_GOLDS) == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("preds", "golds", "expected"),
    [
        ([False, False], [True, True], 0.0),  # only FN
        ([True, True], [False, False], 1.0),  # only FP
        ([True, False], [True, False], math.nan),  # FP + FN = 0 -> NaN (PROTOCOL), not 0 or 0.5
        ([None, None], [True, False], math.nan),
        ([], [], math.nan),
    ],
)
def test_fp_ratio_edges(preds, golds, expected):
    got = fp_ratio(preds, golds)
    assert (math.isnan(got) and math.isnan(expected)) or got == expected


def test_confusion_counts_every_item():
    """Several of each outcome: each is counted, not just noticed."""
    preds = [True, True, False, False, False, True, None, None, None]
    golds = [True, True, True, True, False, False, True, False, True]
    assert confusion(preds, golds) == {"tp": 2, "fp": 1, "tn": 1, "fn": 2, "unparsed": 3}
    assert confusion([False, False, False], [False, False, False])["tn"] == 3


def test_confusion_length_mismatch_names_arguments():
    with pytest.raises(ValueError, match="equal length"):
        confusion([True], [True, False])


def test_mean_and_std():
    # scores 0, 1, 2, 1: mean 1; sample variance ((1 + 0 + 1 + 0) / 3) = 2/3
    m, s = mean_and_std([0, 1, 2, 1])
    assert m == 1.0
    assert s == pytest.approx(math.sqrt(2 / 3))
    assert s == pytest.approx(float(np.std([0, 1, 2, 1], ddof=1)))
    m, s = mean_and_std([2.0])  # the std of one value is undefined (issue 26: one mean +- std, NaN at n=1)
    assert m == 2.0 and math.isnan(s)
    assert all(math.isnan(v) for v in mean_and_std([]))


def test_mean_std_of_two_values_and_without_the_missing_ones():
    assert mean_std([1.0, 3.0]) == (2.0, pytest.approx(math.sqrt(2)))  # two values: a sample std
    # None (not scored) and NaN are left out, not counted as 0 and not poisoning the mean
    assert mean_std([1.0, None, math.nan, 3.0]) == (2.0, pytest.approx(math.sqrt(2)))
    m, s = mean_std([None, math.nan, 5.0])
    assert m == 5.0 and math.isnan(s)
    assert all(math.isnan(v) for v in mean_std([None, math.nan]))


def test_mean_std_of_equal_values_is_exactly_zero_and_of_offset_values_keeps_its_digits():
    # a float mean of equal values is rounded (0.7 * 3 / 3): the spread must not come from that rounding
    for value in (0.7, 0.1, 1 / 3, 1e-9, 123456.789):
        assert mean_std([value] * 3)[1] == 0.0, value
    # a large common offset: the deviations are still exact (1e9 + 1, + 2, + 3: std 1)
    assert mean_std([1e9 + 1, 1e9 + 2, 1e9 + 3]) == (1e9 + 2, 1.0)
    assert mean_std([0.5, 0.7, 0.9])[1] == pytest.approx(0.2, rel=1e-12)


@pytest.mark.parametrize(
    ("pred", "pixel", "human", "illusion", "expected"),
    [
        (1, 0, 1, True, "human_like"),
        (0, 0, 1, True, "no_illusion"),
        (2, 0, 1, True, "na"),
        (-1, 0, 1, True, "na"),  # out-of-range label
        (None, 0, 1, True, "unparsed"),
        (0, 0, 0, False, "accurate"),
        (2, 0, 0, False, "inaccurate"),
        (None, 0, 0, False, "unparsed"),
    ],
)
def test_perception_outcome(pred, pixel, human, illusion, expected):
    assert perception_outcome(pred, pixel, human, illusion) == expected


@pytest.mark.parametrize(
    ("pred", "pixel", "human", "illusion", "expected"),
    [
        (2, [0, 2], [1, 3], True, "no_illusion"),  # a release that does not single one answer out
        (3, (0, 2), (1, 3), True, "human_like"),
        (4, {0, 2}, {1, 3}, True, "na"),
        (2, [0, 2], [0, 2], False, "accurate"),
        (1, [0, 2], [0, 2], False, "inaccurate"),
    ],
)
def test_perception_outcome_with_sets_of_answers(pred, pixel, human, illusion, expected):
    assert perception_outcome(pred, pixel, human, illusion) == expected


# ----------------------------------------------------------------------------- boxes


def test_iou_hand_values():
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert iou((0, 0, 10, 10), (0, 0, 10, 5)) == 0.5  # 50 / 100
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(50 / 150)
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0.0
    assert iou((0, 0, 10, 10), (10, 0, 20, 10)) == 0.0  # touching edges
    assert iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0  # degenerate: no union


def test_iou_of_boxes_apart_on_one_axis_and_of_sub_pixel_sizes():
    # overlapping rows but apart in x (and the reverse): no intersection, never a negative one
    assert iou((0, 0, 10, 10), (20, 0, 30, 10)) == 0.0
    assert iou((0, 0, 10, 10), (0, 20, 10, 30)) == 0.0
    # an overlap narrower than a pixel still counts (normalized or sub-pixel coordinates)
    assert iou((0, 0, 10, 10), (9.5, 0, 19.5, 10)) == pytest.approx(5 / 195)
    assert iou((0, 0, 10, 10), (0, 9.5, 10, 19.5)) == pytest.approx(5 / 195)
    assert iou((0, 0, 0.5, 0.5), (0, 0, 0.5, 0.5)) == 1.0  # a union under one square pixel
    assert iou((0.1, 0.1, 0.3, 0.3), (0.2, 0.1, 0.4, 0.3)) == pytest.approx(1 / 3)


G1, G2 = (0, 0, 10, 10), (20, 20, 30, 30)
FAR = (100, 100, 110, 110)


def test_ap_hand_case_one_image():
    # predictions in output order: hit G1, miss, hit G2
    # tp = 1, 1, 2; fp = 0, 1, 1; recall = .5, .5, 1; precision = 1, .5, 2/3 -> envelope 1, 2/3, 2/3
    # recall thresholds 0.00..0.50 (51 of them) -> 1; 0.51..1.00 (50) -> 2/3
    # AP = (51 * 1 + 50 * 2/3) / 101 = 0.834983...
    ap = average_precision([[G1, FAR, G2]], [[G1, G2]])
    assert ap == pytest.approx((51 + 50 * 2 / 3) / 101)


def test_ap_hand_case_output_order_across_images():
    # image 1: [miss, hit]; image 2: [hit (IoU 81/100)]. Without scores, every first box ranks above every
    # second box, ties to the earlier image: order = img1#0 (miss), img2#0 (hit), img1#1 (hit).
    # tp = 0, 1, 2; fp = 1, 1, 1; recall = 0, .5, 1; precision = 0, .5, 2/3 -> envelope 2/3 everywhere
    # AP = 2/3
    ap = average_precision([[FAR, G1], [(1, 1, 10, 10)]], [[G1], [G1]])
    assert ap == pytest.approx(2 / 3)


def test_ap_hand_case_threshold_duplicates_and_empty_images():
    assert average_precision([[(0, 0, 10, 5)]], [[G1]]) == 0.0  # IoU exactly 0.5 is not "more than 50%"
    assert average_precision([[(0, 0, 10, 6)]], [[G1]]) == 1.0  # IoU 0.6
    # duplicate: hit then FP after full recall; precision envelope 1 at every threshold -> AP 1
    assert average_precision([[G1, G1]], [[G1]]) == 1.0
    # an image without GT only adds false positives. Scores put its FP first:
    # tp = 0, 1; fp = 1, 1; recall = 0, 1; precision = 0, .5 -> envelope .5 -> AP .5
    assert average_precision([[G1], [FAR]], [[G1], []], scores=[[0.4], [0.9]]) == pytest.approx(0.5)
    assert average_precision([[G1], [FAR]], [[G1], []]) == 1.0  # output order: the hit ranks first (image order)
    assert average_precision([[], []], [[G1], [G2]]) == 0.0  # no predictions at all
    assert math.isnan(average_precision([[G1]], [[]]))  # no ground truth at all


def test_ap_argument_errors():
    with pytest.raises(ValueError, match="one prediction list per image"):
        average_precision([[G1]], [[G1], [G2]])
    with pytest.raises(ValueError, match=r"^Expected `scores` to hold one score per predicted box, image by image$"):
        average_precision([[G1]], [[G1]], scores=[[0.1, 0.2]])


def test_ap_ties_go_to_the_earlier_image_then_the_earlier_box():
    # equal scores across images: image 0's box ranks first. Image 0: [G1 hit 0.9, FAR miss 0.5]; image 1:
    # [G1 hit 0.5]. Order: img0#0 hit, img0#1 miss, img1#0 hit -> precision 1, .5, 2/3; recall .5, .5, 1
    # -> envelope 1, 2/3, 2/3 -> AP (51 + 50 * 2/3) / 101. Image 1 first would give AP 1.
    ap = average_precision([[G1, FAR], [G1]], [[G1], [G1]], scores=[[0.9, 0.5], [0.5]])
    assert ap == pytest.approx((51 + 50 * 2 / 3) / 101)
    # equal scores within one image: the earlier box first, whether it hits or not
    assert average_precision([[G1, FAR]], [[G1]], scores=[[0.5, 0.5]]) == 1.0  # hit, then miss
    assert average_precision([[FAR, G1]], [[G1]], scores=[[0.5, 0.5]]) == pytest.approx(0.5)  # miss, then hit


def test_image_hit():
    assert image_hit([G1, G2], [G1, G2])
    assert image_hit([FAR, G2, G1], [G1, G2])  # extra predictions allowed
    assert not image_hit([G1], [G1, G2])  # one GT missed
    assert not image_hit([G1, G1], [G1, G2])  # one-to-one: a box matches one GT only
    assert not image_hit([(0, 0, 10, 5)], [G1])  # IoU exactly 0.5
    assert image_hit([], [])  # nothing there, nothing predicted ("None")
    assert not image_hit([G1], [])
    # maximum matching, not greedy: P0 overlaps both GTs, P1 only the first
    a, b = (0, 0, 10, 10), (4, 0, 14, 10)
    p0, p1 = (2, 0, 12, 10), (0, 0, 10, 10)
    assert iou(p0, a) > 0.5 and iou(p0, b) > 0.5 and iou(p1, a) > 0.5 and iou(p1, b) < 0.5
    assert image_hit([p0, p1], [a, b])


# ----------------------------------------------------------------------------- AP vs COCO reference


def _random_case(rng: random.Random):
    n_images = rng.randint(1, 6)
    gts, preds = [], []
    for _ in range(n_images):
        g = []
        for _ in range(rng.randint(0, 4)):
            x, y = rng.uniform(0, 200), rng.uniform(0, 200)
            g.append((x, y, x + rng.uniform(5, 80), y + rng.uniform(5, 80)))
        p = []
        for box in g:  # jittered copies: IoU spread around the 0.5 threshold
            for _ in range(rng.randint(0, 2)):
                w, h = box[2] - box[0], box[3] - box[1]
                dx, dy = rng.gauss(0, 0.25 * w), rng.gauss(0, 0.25 * h)
                p.append((box[0] + dx, box[1] + dy, box[2] + dx * rng.uniform(0.5, 1.5), box[3] + dy))
        for _ in range(rng.randint(0, 3)):
            x, y = rng.uniform(0, 200), rng.uniform(0, 200)
            p.append((x, y, x + rng.uniform(5, 80), y + rng.uniform(5, 80)))
        rng.shuffle(p)
        gts.append(g)
        preds.append([(min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])) for b in p])
    n_pred = sum(len(p) for p in preds)
    flat = rng.sample(range(1, 10 * n_pred + 2), n_pred)  # distinct scores
    scores, k = [], 0
    for p in preds:
        scores.append([flat[k + i] / (10 * n_pred + 2) for i in range(len(p))])
        k += len(p)
    return preds, gts, scores


def _coco_ap(coco_cls, eval_cls, preds, gts, scores, **eval_kw) -> float:
    images = [{"id": i + 1, "width": 400, "height": 400} for i in range(len(gts))]
    anns, k = [], 0
    for i, g in enumerate(gts):
        for b in g:
            k += 1
            w, h = b[2] - b[0], b[3] - b[1]
            anns.append(
                {"id": k, "image_id": i + 1, "category_id": 1, "bbox": [b[0], b[1], w, h], "area": w * h, "iscrowd": 0}
            )
    dets = [
        {"image_id": i + 1, "category_id": 1, "bbox": [b[0], b[1], b[2] - b[0], b[3] - b[1]], "score": s}
        for i, (p, sc) in enumerate(zip(preds, scores, strict=True))
        for b, s in zip(p, sc, strict=True)
    ]
    with contextlib.redirect_stdout(io.StringIO()):
        gt = coco_cls()
        gt.dataset = {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "object"}]}
        gt.createIndex()
        dt = gt.loadRes(dets)
        ev = eval_cls(gt, dt, "bbox", **eval_kw)
        ev.params.iouThrs = np.array([0.5])
        ev.params.maxDets = [1000]
        ev.params.useCats = 1
        ev.evaluate()
        ev.accumulate()
    prec = np.asarray(ev.eval["precision"])[0, :, 0, 0, -1]  # T=0.5, all recall thresholds, cat 1, area all
    return float(np.mean(prec[prec > -1])) if (prec > -1).any() else math.nan


CASES = [_random_case(random.Random(seed)) for seed in range(60)]
CASES = [c for c in CASES if sum(len(p) for p in c[0]) and sum(len(g) for g in c[1])][:50]


def test_enough_random_cases():
    assert len(CASES) >= 45


@pytest.mark.parametrize("case", range(len(CASES)))
def test_ap_matches_pycocotools(case):
    from pycocotools.coco import COCO  # the reference AP implementation (extra: dev), never skipped
    from pycocotools.cocoeval import COCOeval

    preds, gts, scores = CASES[case]
    ref = _coco_ap(COCO, COCOeval, preds, gts, scores)
    assert average_precision(preds, gts, scores=scores) == pytest.approx(ref, abs=1e-6)
    # no scores: output order, which COCO sees as score 1 / (1 + position) (ties: image order, stable sort)
    pos_scores = [[1.0 / (1 + k) for k in range(len(p))] for p in preds]
    ref_order = _coco_ap(COCO, COCOeval, preds, gts, pos_scores)
    assert average_precision(preds, gts) == pytest.approx(ref_order, abs=1e-6)
