"""Benchmark: AP@0.5 (``core.metrics.average_precision``) against pycocotools on 10,000 boxes.

    python bench/bench_ap.py [--boxes 10000] [--seed 0]

Builds ``--boxes`` ground-truth boxes over images of four boxes each, and predictions as jittered
copies (IoU spread around 0.5) plus random false positives, with distinct scores. Computes AP@0.5
with ours and with pycocotools (``COCOeval``, IoU threshold 0.5 only, maxDets large enough for every
box), twice each (scored ranking, and output-order ranking without scores), times each, and exits
non-zero if any pair differs by more than 1e-6. Prints a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import platform
import random
import sys
import time

import numpy as np

Box = tuple[float, float, float, float]


def make_case(n_boxes: int, seed: int) -> tuple[list[list[Box]], list[list[Box]], list[list[float]]]:
    """(predictions, ground truths, scores) per image; ``n_boxes`` ground-truth boxes in all."""
    rng = random.Random(seed)
    gts: list[list[Box]] = []
    preds: list[list[Box]] = []
    left = n_boxes
    while left > 0:
        g = []
        for _ in range(min(4, left)):
            x, y = rng.uniform(0, 300), rng.uniform(0, 300)
            g.append((x, y, x + rng.uniform(5, 80), y + rng.uniform(5, 80)))
        left -= len(g)
        p = []
        for box in g:
            for _ in range(rng.randint(0, 2)):
                w, h = box[2] - box[0], box[3] - box[1]
                dx, dy = rng.gauss(0, 0.1 * w), rng.gauss(0, 0.1 * h)
                x1, y1, x2, y2 = box[0] + dx, box[1] + dy, box[2] + dx * rng.uniform(0.5, 1.5), box[3] + dy
                p.append((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)))
        for _ in range(rng.randint(0, 2)):
            x, y = rng.uniform(0, 300), rng.uniform(0, 300)
            p.append((x, y, x + rng.uniform(5, 80), y + rng.uniform(5, 80)))
        rng.shuffle(p)
        gts.append(g)
        preds.append(p)
    n_pred = sum(len(p) for p in preds)
    flat = rng.sample(range(1, 10 * n_pred + 2), n_pred)  # distinct scores: no tie-breaking differences
    scores, k = [], 0
    for p in preds:
        scores.append([flat[k + i] / (10 * n_pred + 2) for i in range(len(p))])
        k += len(p)
    return preds, gts, scores


def coco_ap(preds: list[list[Box]], gts: list[list[Box]], scores: list[list[float]]) -> float:
    """AP at IoU 0.5 from pycocotools, area 'all', every detection kept."""
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    images = [{"id": i + 1, "width": 400, "height": 400} for i in range(len(gts))]
    anns = []
    for i, g in enumerate(gts):
        for b in g:
            w, h = b[2] - b[0], b[3] - b[1]
            anns.append({"id": len(anns) + 1, "image_id": i + 1, "category_id": 1, "bbox": [b[0], b[1], w, h],
                         "area": w * h, "iscrowd": 0})  # fmt: skip
    dets = [
        {"image_id": i + 1, "category_id": 1, "bbox": [b[0], b[1], b[2] - b[0], b[3] - b[1]], "score": s}
        for i, (p, sc) in enumerate(zip(preds, scores))
        for b, s in zip(p, sc)
    ]
    with contextlib.redirect_stdout(io.StringIO()):
        gt = COCO()
        gt.dataset = {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "object"}]}
        gt.createIndex()
        ev = COCOeval(gt, gt.loadRes(dets), "bbox")
        ev.params.iouThrs = np.array([0.5])
        ev.params.maxDets = [max(len(p) for p in preds) + 1]
        ev.evaluate()
        ev.accumulate()
    prec = np.asarray(ev.eval["precision"])[0, :, 0, 0, -1]
    return float(np.mean(prec[prec > -1])) if (prec > -1).any() else math.nan


def compare(n_boxes: int, seed: int) -> list[tuple[str, float, float, float, float]]:
    """Rows (ranking, ours, pycocotools, our seconds, pycocotools seconds)."""
    from ambi_plugin.core.metrics import average_precision

    preds, gts, scores = make_case(n_boxes, seed)
    order_scores = [[1.0 / (1 + k) for k in range(len(p))] for p in preds]  # output order as COCO sees it
    rows = []
    for name, ours_kw, ref_scores in (("scores", {"scores": scores}, scores), ("output order", {}, order_scores)):
        t0 = time.perf_counter()
        ours = average_precision(preds, gts, **ours_kw)
        t1 = time.perf_counter()
        ref = coco_ap(preds, gts, ref_scores)
        t2 = time.perf_counter()
        rows.append((name, ours, ref, t1 - t0, t2 - t1))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boxes", type=int, default=10_000, help="ground-truth boxes in all (4 per image)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random boxes")
    args = ap.parse_args()
    rows = compare(args.boxes, args.seed)
    n_pred = sum(len(p) for p in make_case(args.boxes, args.seed)[0])
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{args.boxes:,} ground-truth boxes, {n_pred:,} predicted boxes, {math.ceil(args.boxes / 4):,} images")
    print("| ranking | ours | pycocotools | difference | ours: time | pycocotools: time |")
    print("|---|---|---|---|---|---|")
    bad = False
    for name, ours, ref, t_ours, t_ref in rows:
        diff = abs(ours - ref)
        bad |= not diff <= 1e-6
        print(f"| {name} | {ours:.8f} | {ref:.8f} | {diff:.1e} | {t_ours:.3f} s | {t_ref:.3f} s |")
    if bad:
        sys.exit("AP@0.5 differs from pycocotools by more than 1e-6")


if __name__ == "__main__":
    main()
