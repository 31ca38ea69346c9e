"""Metrics as pure functions: per-item scores in, one number out.

Per-item scoring (``exact_set_match``, ``iou``, ``image_hit``, ``perception_outcome``) is separate from
aggregation (``accuracy``, ``rate``, ``fp_ratio``, ``average_precision``, ``mean_std``). Nothing
here knows about harnesses. Checked against pycocotools (AP) and hand-computed tables (tests/core).

Conventions: an empty input aggregates to NaN (not 0); ``None`` among accuracy values (an answer
that could not be scored) counts as wrong, like an empty answer (PROTOCOL, "All benchmarks").
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

import numpy as np

from ambi_plugin.core.bipartite import every_left_matched

Box = Sequence[float]  # (x1, y1, x2, y2) in pixels, x1 <= x2, y1 <= y2
Outcome = Literal["human_like", "no_illusion", "na", "accurate", "inaccurate", "unparsed"]

# COCO's recall thresholds, built exactly as pycocotools builds them (0, 0.01, ..., 1.0).
RECALL_THRESHOLDS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)


def accuracy(values: Sequence[float | bool | None]) -> float:
    """Mean of per-item scores (bools count 1/0, None counts 0); NaN for no items."""
    vals = [0.0 if v is None else float(v) for v in values]
    return math.fsum(vals) / len(vals) if vals else math.nan


def rate(values: Sequence[float | bool | None]) -> float:
    """Share of items for which a condition holds (human-like, no-illusion, N/A rates); NaN if none."""
    return accuracy(values)


def exact_set_match(pred: Iterable[int] | None, gold: Iterable[int]) -> bool:
    """Multi-label choice: the predicted set of options equals the gold set (None = unparsed = wrong)."""
    if pred is None:
        return False
    return frozenset(pred) == frozenset(gold)


def confusion(preds: Sequence[bool | None], golds: Sequence[bool]) -> dict[str, int]:
    """Counts tp, fp, tn, fn with True as the positive class; ``None`` predictions count as unparsed."""
    if len(preds) != len(golds):
        raise ValueError(f"Expected `preds` and `golds` of equal length but got {len(preds)} and {len(golds)}")
    out = {"tp": 0, "fp": 0, "tn": 0, "fn": 0, "unparsed": 0}
    for p, g in zip(preds, golds):  # equal lengths: checked above, with a message
        if p is None:
            out["unparsed"] += 1
        elif p:
            out["tp" if g else "fp"] += 1
        else:
            out["fn" if g else "tn"] += 1
    return out


def fp_ratio(preds: Sequence[bool | None], golds: Sequence[bool]) -> float:
    """IllusionBench's FP ratio FP / (FP + FN): the share of wrong verdicts that said True.

    Unparsed (``None``) predictions are neither FP nor FN. NaN when FP + FN = 0 (PROTOCOL).
    """
    c = confusion(preds, golds)
    wrong = c["fp"] + c["fn"]
    return c["fp"] / wrong if wrong else math.nan


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """(mean, SAMPLE standard deviation with ddof=1) of the values that are numbers (None and NaN left out);
    the std of fewer than two values is undefined: NaN (and both NaN for none). The one mean +- std of the
    project: 0/1/2 description scores (std over items, IllusionBench Table IV) and repeated runs (reports)."""
    vals = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    if not vals:
        return math.nan, math.nan
    mean = math.fsum(vals) / len(vals)
    if len(vals) < 2:
        return mean, math.nan
    # the deviations are taken from the first value (shifted data): values that are all equal give exactly 0, where
    # the rounded float mean left a spread of 1e-16 (std of [0.7] * 3 was 1.4e-16)
    shifted = [v - vals[0] for v in vals]
    centre = math.fsum(shifted) / len(vals)
    return mean, math.sqrt(math.fsum((d - centre) ** 2 for d in shifted) / (len(vals) - 1))


mean_and_std = mean_std  # the name core used before the two copies became one (issue 26)


# ----------------------------------------------------------------------------- boxes


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes, areas as (x2 - x1) * (y2 - y1) (COCO)."""
    ax1, ay1, ax2, ay2 = (float(v) for v in a)
    bx1, by1, bx2, by2 = (float(v) for v in b)
    iw = min(ax2, bx2) - max(ax1, bx1)
    ih = min(ay2, by2) - max(ay1, by1)
    inter = iw * ih if iw > 0 and ih > 0 else 0.0
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return inter / union if union > 0 else 0.0


def _image_hits(preds: Sequence[Box], gts: Sequence[Box], order: Sequence[int], thr: float) -> dict[int, bool]:
    """Greedy matching in score order: each prediction takes the unmatched GT of highest IoU (> thr)."""
    taken = [False] * len(gts)
    hits = {}
    for k in order:
        best, best_iou = -1, thr
        for j, g in enumerate(gts):
            if not taken[j]:
                v = iou(preds[k], g)
                if v > best_iou:
                    best, best_iou = j, v
        if best >= 0:
            taken[best] = True
        hits[k] = best >= 0
    return hits


def average_precision(
    predictions: Sequence[Sequence[Box]],
    ground_truths: Sequence[Sequence[Box]],
    *,
    iou_threshold: float = 0.5,
    scores: Sequence[Sequence[float]] | None = None,
) -> float:
    """Single-class AP pooled over images, COCO style (AmbiBench's AP@0.5).

    * Ranking: by ``scores`` when given (higher first). Without scores (models give none) a box's
      score is its position: every image's first box ranks above every second box, and so on
      (PROTOCOL: "rank predictions in output order"). Ties, in both cases, go to the earlier image,
      then the earlier box in that image (pycocotools' stable sort does the same).
    * Matching: each prediction, in rank order within its image, takes the unmatched ground-truth box
      with the highest IoU; it is a hit when that IoU is strictly greater than ``iou_threshold``
      ("overlaps more than 50%"; pycocotools uses >=, which differs only at exactly 0.5).
    * Interpolation: precision made monotone, sampled at COCO's 101 recall thresholds 0, 0.01, ..., 1
      and averaged (``RECALL_THRESHOLDS``); thresholds above the reached recall count 0.
    * Images without ground truth contribute only their false positives. No predictions at all gives
      0.0; no ground truth at all gives NaN.
    """
    if len(predictions) != len(ground_truths):
        raise ValueError(
            f"Expected one prediction list per image but got {len(predictions)} for {len(ground_truths)} images"
        )
    if scores is not None and [len(s) for s in scores] != [len(p) for p in predictions]:
        raise ValueError("Expected `scores` to hold one score per predicted box, image by image")
    n_gt = sum(len(g) for g in ground_truths)
    if n_gt == 0:
        return math.nan
    ranked: list[tuple[float, int, int, bool]] = []  # (-score, image, position, hit)
    for i, (preds, gts) in enumerate(zip(predictions, ground_truths)):  # equal lengths: checked above
        img_scores = [float(s) for s in scores[i]] if scores is not None else [-float(k) for k in range(len(preds))]
        order = sorted(range(len(preds)), key=lambda k: (-img_scores[k], k))
        hits = _image_hits(preds, gts, order, iou_threshold)
        ranked += [(-img_scores[k], i, k, hits[k]) for k in range(len(preds))]
    if not ranked:
        return 0.0
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    hit = np.array([r[3] for r in ranked], dtype=float)
    tp = np.cumsum(hit)
    fp = np.cumsum(1.0 - hit)
    recall = tp / n_gt
    precision = tp / (tp + fp)
    precision = np.maximum.accumulate(precision[::-1])[::-1]  # monotone (non-increasing) envelope
    idx = np.searchsorted(recall, RECALL_THRESHOLDS, side="left")
    sampled = np.where(idx < len(precision), precision[np.minimum(idx, len(precision) - 1)], 0.0)
    return float(np.mean(sampled))


def image_hit(pred_boxes: Sequence[Box], gt_boxes: Sequence[Box], iou_threshold: float = 0.5) -> bool:
    """Per-image hit (PROTOCOL's per-image hit rate): every GT box is matched one-to-one by a predicted box
    with IoU > ``iou_threshold`` (maximum bipartite matching; extra predictions allowed). An image
    without ground truth is a hit only when nothing is predicted (the expected answer is "None").
    """
    if not gt_boxes:
        return not pred_boxes
    return every_left_matched([[k for k, p in enumerate(pred_boxes) if iou(p, g) > iou_threshold] for g in gt_boxes])


# ----------------------------------------------------------------------------- RCID outcomes


def perception_outcome(
    pred_index: int | None,
    pixel_index: int | Collection[int],
    human_index: int | Collection[int],
    is_illusion: bool,
) -> Outcome:
    """RCID section 4.1: on illusion images "human_like" (the human answer), "no_illusion" (the pixel
    answer) or "na" (neither); on control images "accurate" (the pixel answer, which humans share) or
    "inaccurate". ``None`` = the reply could not be read: "unparsed" (the N/A rate counts it: the three
    rates sum to 1). An out-of-range label (index -1) is "na" / "inaccurate". An answer may be a set of
    indices (a release that does not single one out).
    """
    if pred_index is None:
        return "unparsed"
    pixel = {pixel_index} if isinstance(pixel_index, int) else set(pixel_index)
    human = {human_index} if isinstance(human_index, int) else set(human_index)
    if is_illusion:
        if pred_index in human:
            return "human_like"
        if pred_index in pixel:
            return "no_illusion"
        return "na"
    return "accurate" if pred_index in pixel else "inaccurate"
