"""The statistics of the patching table: bootstrap intervals over images, a permutation test against layer-matched
random head sets, and Spearman rank agreement with its interval. Pure numpy, seeded, nothing about models.

* **Bootstrap over images**: the images are resampled with replacement ``n_boot`` times (one seeded generator); a
  mean's interval is the percentile interval of the resampled means (``confidence``, default 95%). With one image
  there is no interval (``None``); with few images a percentile interval is too narrow, which the table says.
* **Permutation test**: the switch set's mean effect over images against sets of as many heads **in the same layers**
  (per layer, as many heads as the switch set has there, drawn among that layer's other heads). When there are at
  most ``draws`` such sets, every one of them is patched (exact); otherwise ``draws`` of them are drawn at random
  (seeded). One-sided p-value ``(k + 1) / (n + 1)``, ``k`` = sets whose mean effect is at least the switch set's,
  ``n`` = sets patched.
* **Spearman** rank correlation (ties: average ranks) over the heads that have both values; its interval comes from
  the same image resamples (each resample's mean AtP and exact effect per head, ranked again).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "bootstrap_indices",
    "layer_matched_sets",
    "mean_ci",
    "nanmean",
    "permutation_p",
    "ranks",
    "spearman",
    "spearman_ci",
]


def ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of a 1-D array, ties sharing their average rank."""
    _, inverse, counts = np.unique(np.asarray(x), return_inverse=True, return_counts=True)
    last = np.cumsum(counts)  # the rank of the last of each run of equal values, in sorted order
    return ((last - counts + 1 + last) / 2)[inverse]


def spearman(a: Any, b: Any) -> float:
    """Spearman's rank correlation of two maps of the same shape, over the entries finite in both (ties: average
    ranks); NaN when fewer than two such entries or when one side is constant."""
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"maps differ in shape: {a.shape} vs {b.shape}")
    both = np.isfinite(a) & np.isfinite(b)
    if both.sum() < 2:
        return math.nan
    ra, rb = ranks(a[both]), ranks(b[both])
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = math.sqrt(float((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / den) if den > 0 else math.nan


def bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``[n_boot, n]`` resamples of ``range(n)`` with replacement (seeded); empty when ``n < 2``."""
    if n < 2 or n_boot < 1:
        return np.zeros((0, n), dtype=int)
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def _interval(values: np.ndarray, confidence: float) -> list[float] | None:
    """Percentile interval of resampled statistics (rows), NaN resamples left out; None when there are none or most
    are NaN."""
    ok = values[np.isfinite(values)]
    if ok.size == 0 or ok.size < 0.5 * values.size:
        return None
    tail = 100 * (1 - confidence) / 2
    lo, hi = np.percentile(ok, [tail, 100 - tail])
    return [float(lo), float(hi)]


def nanmean(x: np.ndarray, axis: int | None) -> np.ndarray:
    """Mean over ``axis`` (None: over every value) of the finite values (NaN where there is none, also along an empty
    axis), without numpy's warning."""
    ok = np.isfinite(x)
    n = ok.sum(axis)
    total = np.where(ok, x, 0.0).sum(axis)
    return np.divide(total, n, out=np.full(np.shape(total), np.nan), where=n > 0)


def _boot_means(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The mean of the finite values of ``x`` (``[n]`` or ``[n, m]``) in each resample of ``idx`` (``[B, n]``), as
    ``[B]`` or ``[B, m]``: through how often each image is drawn, so memory stays ``B x m`` (not ``B x n x m``); no
    rows when there are no resamples."""
    n = x.shape[0]
    counts = np.array([np.bincount(row, minlength=n) for row in idx]).reshape(len(idx), n)  # [B, n]
    ok = np.isfinite(x)
    total, used = counts @ np.where(ok, x, 0.0), counts @ ok
    return np.divide(total, used, out=np.full(total.shape, np.nan), where=used > 0)


def mean_ci(x: Any, idx: np.ndarray, confidence: float = 0.95) -> dict[str, Any]:
    """The mean over images (axis 0; non-finite values left out and counted) of ``x`` (``[n]`` or ``[n, m]``) with its
    bootstrap interval from the resamples ``idx``: ``{"mean", "ci", "n", "n_nonfinite"}`` (lists for ``[n, m]``)."""
    x = np.asarray(x, dtype=float)
    mean = nanmean(x, 0)
    n_ok = np.isfinite(x).sum(0)
    boot = _boot_means(x, idx)  # [B] or [B, m]
    ci = _interval(boot, confidence) if x.ndim == 1 else [_interval(boot[:, j], confidence) for j in range(x.shape[1])]
    if x.ndim == 1:
        return {"mean": _num(mean), "ci": ci, "n": int(n_ok), "n_nonfinite": int(len(x) - n_ok)}
    return {"mean": [_num(v) for v in mean], "ci": ci, "n": n_ok.tolist(), "n_nonfinite": (len(x) - n_ok).tolist()}


def spearman_ci(
    a: np.ndarray, b: np.ndarray, idx: np.ndarray, confidence: float = 0.95, *, absolute_b: bool = False
) -> dict[str, Any]:
    """Spearman of the image means of ``a`` and ``b`` (each ``[n, m]`` per image and head, or ``[m]`` fixed across
    images, e.g. the switching score), with its bootstrap interval over the resamples ``idx``; ``absolute_b``: rank
    ``|mean of b|`` (for a magnitude such as AtP* against a signed effect)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)

    def means(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The image mean and the resamples' means (``[B, m]``); a map fixed across images stays as it is."""
        if x.ndim == 1:
            return x, np.broadcast_to(x, (len(idx), x.size))
        return nanmean(x, 0), _boot_means(x, idx)

    (ma, ba), (mb, bb) = means(a), means(b)
    if absolute_b:
        mb, bb = np.abs(mb), np.abs(bb)
    rho = spearman(ma, mb)
    n_heads = int((np.isfinite(ma) & np.isfinite(mb)).sum())
    boot = np.array([spearman(ra, rb) for ra, rb in zip(ba, bb)])
    return {"rho": _num(rho), "ci": _interval(boot, confidence), "n_heads": n_heads}


def layer_matched_sets(
    switch: Sequence[tuple[int, int]], shape: tuple[int, int], draws: int, seed: int
) -> tuple[list[list[tuple[int, int]]], dict[str, Any]]:
    """Head sets with as many heads per layer as ``switch`` and none of them: every such set when there are at most
    ``draws`` (exact), else ``draws`` random ones (seeded, with replacement between draws). Returns (sets, info);
    info says ``exact``, ``n_possible`` and, when no set exists, ``reason``."""
    n_layers, n_heads = shape
    chosen = {tuple(map(int, h)) for h in switch}
    per_layer: dict[int, int] = {}
    for layer, _ in chosen:
        per_layer[layer] = per_layer.get(layer, 0) + 1
    pools = {layer: [h for h in range(n_heads) if (layer, h) not in chosen] for layer in per_layer}
    short = [f"layer {layer}: {c} switch heads, {len(pools[layer])} others" for layer, c in per_layer.items()
             if c > len(pools[layer])]  # fmt: skip
    if not chosen or short:
        reason = "no switch heads" if not chosen else "too few other heads in " + "; ".join(short)
        return [], {"exact": False, "n_possible": 0, "reason": reason}
    n_possible = math.prod(math.comb(len(pools[layer]), c) for layer, c in per_layer.items())
    layers = sorted(per_layer)
    if n_possible <= draws:
        combos = [list(itertools.combinations(pools[layer], per_layer[layer])) for layer in layers]
        sets = [sorted((layer, h) for layer, pick in zip(layers, choice) for h in pick)
                for choice in itertools.product(*combos)]  # fmt: skip
        return sets, {"exact": True, "n_possible": n_possible}
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(draws):
        drawn = [(layer, int(h)) for layer in layers for h in rng.choice(pools[layer], per_layer[layer], replace=False)]
        sets.append(sorted(drawn))
    return sets, {"exact": False, "n_possible": n_possible}


def permutation_p(observed: float, null: Sequence[float]) -> dict[str, Any]:
    """One-sided p-value of ``observed`` against the ``null`` statistics: ``(k + 1) / (n + 1)``, ``k`` = null values at
    least ``observed`` (a non-finite null value counts against the switch set)."""
    null = np.asarray(null, dtype=float)
    if not math.isfinite(observed) or not null.size:
        return {"p": None, "k": None, "n": int(null.size)}
    k = int(np.sum(~np.isfinite(null) | (null >= observed)))
    return {"p": (k + 1) / (null.size + 1), "k": k, "n": int(null.size)}


def _num(v: Any) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None
