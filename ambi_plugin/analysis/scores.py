"""Switching scores per (layer, head), the switch heads they select, sparsity, layer distribution, Pearson.

Definitions (AmbiBench 4.3; PROTOCOL "Switch heads"):

* ``cos[l, h]`` = mean over switched images of ``cos(x_pre, x_post)`` of head ``(l, h)``'s activation before (first
  answer) and after (second answer) the switch;
* switching score ``s[l, h] = 1 - cos[l, h]``: high for heads whose output changes with the interpretation, the
  perceptual-switch heads. Both arrays are stored;
* a zero or near-zero vector has no direction: a pair in which either vector's norm is at most ``ZERO_REL`` (1e-6)
  times the largest finite head norm of the same layer and item (or exactly 0) is left out of that head's mean and
  counted (``n_pairs`` per head, ``n_excluded_pairs`` in all); a head left with no pair has no score (NaN, ``null``
  in the JSON) and is never ranked or selected;
* a vector with a NaN or infinite value (float16 overflow, a broken kernel) has no usable angle either: its pair is
  left out, counted per head (``n_nonfinite``, part of the excluded pairs) and reported, never dropped silently. It
  does not take part in the near-zero reference of its layer, so one bad value neither switches the near-zero test off
  for the other heads of its layer (a NaN maximum) nor excludes them all (an infinite maximum);
* switch heads: ``s > 0.8``; when no head passes, the top 1% of heads (rounded up, at least one). The selection is
  capped at the top ``MAX_FRACTION`` (10%, rounded down, at least one) of all heads, so that as many heads remain
  outside it for Table 3's random-head control;
* Pearson correlation between two categories' maps (bistable vs multi-scene, Table 15): over the flattened ``s`` maps
  (heads scored in both).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MAX_FRACTION",
    "SWITCH_THRESHOLD",
    "TOP_FRACTION",
    "ZERO_REL",
    "SwitchScores",
    "cosine_per_head",
    "load_scores",
    "nonfinite_per_head",
    "pearson",
    "switch_heads",
    "switching_scores",
]

SWITCH_THRESHOLD = 0.8
TOP_FRACTION = 0.01
MAX_FRACTION = 0.1
ZERO_REL = 1e-6


def _nonfinite(x: np.ndarray) -> np.ndarray:
    """``[items, layers, heads]``: the head's vector holds a NaN or an infinite value."""
    return ~np.isfinite(x).all(axis=-1)


def _scaled(x: np.ndarray) -> np.ndarray:
    """``x`` with each non-finite head vector set to 0, divided per item and layer by its largest absolute entry: the
    cosines and the near-zero test (relative to the layer and item) are unchanged, and no norm overflows or
    underflows, whatever the scale of a layer's outputs."""
    x = np.where(_nonfinite(x)[..., None], 0.0, x)
    top = np.abs(x).max(axis=(-2, -1), keepdims=True)
    return x / np.where(top > 0, top, 1.0)  # an all-zero layer stays zero


def _near_zero(x: np.ndarray, rel: float) -> np.ndarray:
    """``[items, layers, heads]``: the head's vector is finite and has no direction: its norm is at most ``rel`` times
    the largest finite head norm of the same layer and item (a zero vector always; a non-finite vector is left out of
    that maximum)."""
    norm = np.linalg.norm(_scaled(x), axis=-1)
    return ~_nonfinite(x) & (norm <= rel * norm.max(axis=-1, keepdims=True))


def nonfinite_per_head(pre: np.ndarray, post: np.ndarray) -> np.ndarray:
    """``[items, layers, heads]``: ``pre`` or ``post`` holds a NaN or an infinite value for that head and item."""
    return _nonfinite(np.asarray(pre, dtype=np.float64)) | _nonfinite(np.asarray(post, dtype=np.float64))


def cosine_per_head(pre: np.ndarray, post: np.ndarray, *, zero_rel: float = ZERO_REL) -> np.ndarray:
    """``[items, layers, heads]`` cosine of ``pre`` and ``post`` ``[items, layers, heads, dim]``; NaN where either
    vector is zero, near zero or not finite (see the module docstring): such a pair has no angle."""
    pre = np.asarray(pre, dtype=np.float64)
    post = np.asarray(post, dtype=np.float64)
    if pre.shape != post.shape or pre.ndim != 4:
        raise ValueError(f"pre and post must both be [items, layers, heads, dim]; got {pre.shape} and {post.shape}")
    # a non-finite vector needs no test of its own: _scaled sets it to 0, and a zero vector's cosine is 0 / 0, NaN
    skip = _near_zero(pre, zero_rel) | _near_zero(post, zero_rel)
    pre, post = _scaled(pre), _scaled(post)
    with np.errstate(invalid="ignore"):  # a zero vector gives 0 / 0: its pair is left out (skip)
        cos = (pre * post).sum(-1) / (np.linalg.norm(pre, axis=-1) * np.linalg.norm(post, axis=-1))
    return np.where(skip, np.nan, cos)


@dataclass
class SwitchScores:
    """``cos`` and ``s`` maps (``[layers, heads]``) over ``n_images`` switched images of one category; ``n_pairs``:
    the pairs each head's mean is over (zero-vector and non-finite pairs left out; 0 = the head has no score, NaN);
    ``n_nonfinite``: per head, the pairs left out because a vector held a NaN or an infinite value."""

    cos: np.ndarray
    s: np.ndarray
    n_images: int
    category: str = ""
    meta: dict[str, Any] | None = None
    n_pairs: np.ndarray | None = None
    n_nonfinite: np.ndarray | None = None

    @property
    def n_excluded_pairs(self) -> int:
        return 0 if self.n_pairs is None else int(self.n_images * self.s.size - self.n_pairs.sum())

    @property
    def n_nonfinite_pairs(self) -> int:
        return 0 if self.n_nonfinite is None else int(self.n_nonfinite.sum())

    def nonfinite_heads(self) -> list[dict[str, int]]:
        """The heads with pairs left out for NaN/inf values, most first: ``{"layer", "head", "pairs"}``."""
        if self.n_nonfinite is None:
            return []
        rows = []
        for flat in np.argsort(-self.n_nonfinite, axis=None, kind="stable"):
            if self.n_nonfinite.flat[flat] > 0:
                layer, head = np.unravel_index(flat, self.n_nonfinite.shape)
                rows.append({"layer": int(layer), "head": int(head), "pairs": int(self.n_nonfinite.flat[flat])})
        return rows

    def top_k(self, k: int = 10) -> list[dict[str, Any]]:
        order = [f for f in _ranked(self.s) if np.isfinite(self.s.flat[f])][:k]
        rows = []
        for flat in order:
            layer, head = np.unravel_index(flat, self.s.shape)
            rows.append(
                {
                    "layer": int(layer),
                    "head": int(head),
                    "s": float(self.s[layer, head]),
                    "cos": float(self.cos[layer, head]),
                }
            )
        return rows

    def sparsity(
        self,
        *,
        threshold: float = SWITCH_THRESHOLD,
        top_fraction: float = TOP_FRACTION,
        max_fraction: float = MAX_FRACTION,
    ) -> dict[str, Any]:
        heads, rule = switch_heads(self.s, threshold=threshold, top_fraction=top_fraction, max_fraction=max_fraction)
        per_layer = np.zeros(self.s.shape[0], dtype=int)
        for layer, _ in heads:
            per_layer[layer] += 1
        return {
            "rule": rule,
            "threshold": threshold,
            "max_fraction": max_fraction,
            "n_above_threshold": int((self.s > threshold).sum()),  # NaN is above nothing
            "n_heads_total": int(self.s.size),
            "n_heads_unscored": int((~np.isfinite(self.s)).sum()),
            "n_excluded_pairs": self.n_excluded_pairs,
            "n_nonfinite_pairs": self.n_nonfinite_pairs,
            "n_selected": len(heads),
            "fraction_selected": len(heads) / self.s.size,
            "heads": [list(h) for h in heads],
            "layer_distribution": per_layer.tolist(),
        }

    def to_json(
        self,
        *,
        k: int = 10,
        threshold: float = SWITCH_THRESHOLD,
        top_fraction: float = TOP_FRACTION,
        max_fraction: float = MAX_FRACTION,
    ) -> dict[str, Any]:
        return {
            "category": self.category,
            "n_images": self.n_images,
            "shape": list(self.s.shape),
            "definition": "s = 1 - mean over switched images of cos(x_pre, x_post), per (layer, head); pairs with a "
            "zero, near-zero or non-finite (NaN/inf) vector left out (n_pairs; n_nonfinite_pairs counts the "
            "non-finite ones per head); null = no pair left",
            "cos": _json_map(self.cos),
            "s": _json_map(self.s),
            "n_pairs": None if self.n_pairs is None else self.n_pairs.tolist(),
            "n_excluded_pairs": self.n_excluded_pairs,
            "n_nonfinite_pairs": None if self.n_nonfinite is None else self.n_nonfinite.tolist(),
            "n_nonfinite_pairs_total": self.n_nonfinite_pairs,
            "nonfinite_heads": self.nonfinite_heads(),
            "top_k": self.top_k(k),
            "sparsity": self.sparsity(threshold=threshold, top_fraction=top_fraction, max_fraction=max_fraction),
            **(self.meta or {}),
        }

    def save(
        self,
        out_dir: str | Path,
        *,
        k: int = 10,
        threshold: float = SWITCH_THRESHOLD,
        top_fraction: float = TOP_FRACTION,
        max_fraction: float = MAX_FRACTION,
    ) -> dict[str, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"scores_{self.category}" if self.category else "scores"
        npz = out / f"{stem}.npz"
        extra = {} if self.n_pairs is None else {"n_pairs": self.n_pairs}
        if self.n_nonfinite is not None:
            extra["n_nonfinite"] = self.n_nonfinite
        np.savez(npz, cos=self.cos, s=self.s, n_images=np.array(self.n_images), **extra)
        js = out / f"{stem}.json"
        data = self.to_json(k=k, threshold=threshold, top_fraction=top_fraction, max_fraction=max_fraction)
        js.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        return {"npz": npz, "json": js}


def _json_map(a: np.ndarray) -> list:
    """A map as nested lists, NaN (no score) as None, so the file is plain JSON."""
    return [[None if not np.isfinite(v) else float(v) for v in row] for row in np.asarray(a)]


def _ranked(s: np.ndarray) -> np.ndarray:
    """Flat indices of ``s`` from the highest score down (stable); heads without a score (NaN) last."""
    return np.argsort(-np.asarray(s, dtype=float), axis=None, kind="stable")  # numpy sorts NaN last


def switching_scores(
    pre: np.ndarray, post: np.ndarray, *, category: str = "", meta: dict | None = None
) -> SwitchScores:
    """Scores from the switched images' activations ``[items, layers, heads, dim]`` before and after the switch."""
    if len(pre) == 0:
        raise ValueError(
            f"no switched images{' in ' + category if category else ''}: the switching score is undefined. Capture more "
            "images, or check the judge's verdicts in the capture's items file"
        )
    per_pair = cosine_per_head(pre, post)
    n_pairs = np.isfinite(per_pair).sum(0)
    total = np.nansum(per_pair, axis=0)
    cos = np.divide(total, n_pairs, out=np.full(total.shape, np.nan), where=n_pairs > 0)
    return SwitchScores(cos=cos, s=1.0 - cos, n_images=len(pre), category=category, meta=meta, n_pairs=n_pairs,
                        n_nonfinite=nonfinite_per_head(pre, post).sum(0))  # fmt: skip


def switch_heads(
    s: np.ndarray,
    *,
    threshold: float = SWITCH_THRESHOLD,
    top_fraction: float = TOP_FRACTION,
    max_fraction: float = MAX_FRACTION,
) -> tuple[list[tuple[int, int]], str]:
    """Heads with ``s > threshold``; when none, the top ``top_fraction`` of heads (rounded up, at least one); at most
    the top ``max_fraction`` of all heads (rounded down, at least one). Heads without a score (NaN) are never chosen.
    Returns (heads, rule)."""
    s = np.asarray(s, dtype=float)
    ranked = [int(f) for f in _ranked(s) if np.isfinite(s.flat[f])]
    cap = max(1, math.floor(max_fraction * s.size))
    above = [f for f in ranked if s.flat[f] > threshold]
    if above:
        chosen, rule = above, f"s > {threshold}"
    else:
        chosen, rule = ranked[: max(1, math.ceil(top_fraction * s.size))], f"top {top_fraction:.0%}"
    if len(chosen) > cap:
        rule += f", capped at the top {max_fraction:.0%} of heads ({cap} of {len(chosen)})"
        chosen = chosen[:cap]
    return [tuple(int(v) for v in np.unravel_index(f, s.shape)) for f in chosen], rule


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two maps of the same shape, over the heads scored in both (NaN when one is constant)."""
    a, b = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"maps differ in shape: {a.shape} vs {b.shape}")
    both = np.isfinite(a) & np.isfinite(b)
    a, b = a[both], b[both]
    if a.size < 2:
        return math.nan
    a, b = a - a.mean(), b - b.mean()
    den = math.sqrt(float((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 0 else math.nan


def load_scores(path: str | Path) -> SwitchScores:
    """Read a ``scores*.json`` written by :meth:`SwitchScores.save`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    n_pairs, bad = data.get("n_pairs"), data.get("n_nonfinite_pairs")
    return SwitchScores(
        np.array(data["cos"], dtype=float),
        np.array(data["s"], dtype=float),
        int(data["n_images"]),
        data.get("category", ""),
        n_pairs=None if n_pairs is None else np.array(n_pairs),
        n_nonfinite=None if bad is None else np.array(bad),
    )
