"""Color arithmetic of the RCID-style generators (:mod:`.color`): RCID's ``p(C, mu)``, luma, RGB distance and
drawing a color near or far from another."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def scale_color(color: Sequence[int], mu: float) -> tuple[int, int, int]:
    """RCID's ``p(C, mu)``: every channel times ``mu``, rounded and clipped to [0, 255]."""
    r, g, b = (int(np.clip(round(float(c) * mu), 0, 255)) for c in color)
    return r, g, b


def luminance(color: Sequence[float]) -> float:
    """Rec. 601 luma of an RGB triple."""
    r, g, b = (float(c) for c in color)
    return 0.299 * r + 0.587 * g + 0.114 * b


def rgb_distance(a: Sequence[int], b: Sequence[int]) -> float:
    return float(np.linalg.norm(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)))


def _random_color(rng: np.random.Generator, lo: int, hi: int) -> tuple[int, int, int]:
    r, g, b = (int(v) for v in rng.integers(lo, hi + 1, size=3))
    return r, g, b


def _near_color(rng: np.random.Generator, base: Sequence[int], spread: int, lo: int, hi: int) -> tuple[int, int, int]:
    r, g, b = (int(np.clip(c + rng.integers(-spread, spread + 1), lo, hi)) for c in base)
    return r, g, b


def _farthest_corner(base: Sequence[int], lo: int, hi: int) -> tuple[int, int, int]:
    """The corner of the channel cube [lo, hi]^3 farthest from ``base`` (each channel at its farther end)."""
    r, g, b = (lo if abs(int(c) - lo) >= abs(hi - int(c)) else hi for c in base)
    return r, g, b


def _far_color(
    rng: np.random.Generator, base: Sequence[int], lo: int, hi: int, min_dist: float
) -> tuple[int, int, int]:
    """A color of [lo, hi]^3 at least ``min_dist`` from ``base``, or as far as the cube allows. Never fails.

    Rejection sampling first (uniform over the far part of the cube); when the far part is empty (``base``
    near the middle of a small cube) or sampling misses, the first point on the segment from the last
    candidate to the farthest corner that is far enough (the corner itself at worst).
    """
    corner = _farthest_corner(base, lo, hi)
    reach = rgb_distance(corner, base)
    need = min(min_dist, reach)
    cand = corner
    if reach >= min_dist:  # feasible: the draws (and so the images) of every build that worked before
        for _ in range(1000):
            cand = _random_color(rng, lo, hi)
            if rgb_distance(cand, base) >= need:
                return cand
    for t in np.linspace(0.0, 1.0, 21):
        r, g, b = (int(round(c + t * (k - c))) for c, k in zip(cand, corner))
        if rgb_distance((r, g, b), base) >= need:
            return r, g, b
    return corner  # pragma: no cover - t = 1 is the corner, at distance ``reach >= need``
