"""Switching scores per (layer, head), the switch heads they select, sparsity, layer distribution, Pearson.

Definitions (AmbiBench 4.3; PROTOCOL "Switch heads"):

* ``cos[l, h]`` = mean over switched images of ``cos(x_pre, x_post)`` of head ``(l, h)``'s activation before (first
  answer) and after (second answer) the switch;
* switching score ``s[l, h] = 1 - cos[l, h]``: high for heads whose output changes with the interpretation, the
  perceptual-switch heads. Both arrays are stored;
* switch heads: ``s > 0.8``; when no head passes, the top 1% of heads (at least one);
* Pearson correlation between two categories' maps (bistable vs multi-scene, Table 15): over the flattened ``s`` maps.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "SWITCH_THRESHOLD",
    "TOP_FRACTION",
    "SwitchScores",
    "cosine_per_head",
    "load_scores",
    "pearson",
    "switch_heads",
    "switching_scores",
]

SWITCH_THRESHOLD = 0.8
TOP_FRACTION = 0.01


def cosine_per_head(pre: np.ndarray, post: np.ndarray) -> np.ndarray:
    """``[items, layers, heads]`` cosine of ``pre`` and ``post`` ``[items, layers, heads, dim]`` (0 for a zero vector)."""
    pre = np.asarray(pre, dtype=np.float64)
    post = np.asarray(post, dtype=np.float64)
    if pre.shape != post.shape or pre.ndim != 4:
        raise ValueError(f"pre and post must both be [items, layers, heads, dim]; got {pre.shape} and {post.shape}")
    num = (pre * post).sum(-1)
    den = np.linalg.norm(pre, axis=-1) * np.linalg.norm(post, axis=-1)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


@dataclass
class SwitchScores:
    """``cos`` and ``s`` maps (``[layers, heads]``) over ``n_images`` switched images of one category."""

    cos: np.ndarray
    s: np.ndarray
    n_images: int
    category: str = ""
    meta: dict[str, Any] | None = None

    def top_k(self, k: int = 10) -> list[dict[str, Any]]:
        order = np.argsort(-self.s, axis=None, kind="stable")[:k]
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

    def sparsity(self, *, threshold: float = SWITCH_THRESHOLD, top_fraction: float = TOP_FRACTION) -> dict[str, Any]:
        heads, rule = switch_heads(self.s, threshold=threshold, top_fraction=top_fraction)
        per_layer = np.zeros(self.s.shape[0], dtype=int)
        for layer, _ in heads:
            per_layer[layer] += 1
        return {
            "rule": rule,
            "threshold": threshold,
            "n_above_threshold": int((self.s > threshold).sum()),
            "n_heads_total": int(self.s.size),
            "n_selected": len(heads),
            "fraction_selected": len(heads) / self.s.size,
            "heads": [list(h) for h in heads],
            "layer_distribution": per_layer.tolist(),
        }

    def to_json(
        self, *, k: int = 10, threshold: float = SWITCH_THRESHOLD, top_fraction: float = TOP_FRACTION
    ) -> dict[str, Any]:
        return {
            "category": self.category,
            "n_images": self.n_images,
            "shape": list(self.s.shape),
            "definition": "s = 1 - mean over switched images of cos(x_pre, x_post), per (layer, head)",
            "cos": self.cos.tolist(),
            "s": self.s.tolist(),
            "top_k": self.top_k(k),
            "sparsity": self.sparsity(threshold=threshold, top_fraction=top_fraction),
            **(self.meta or {}),
        }

    def save(
        self,
        out_dir: str | Path,
        *,
        k: int = 10,
        threshold: float = SWITCH_THRESHOLD,
        top_fraction: float = TOP_FRACTION,
    ) -> dict[str, Path]:
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"scores_{self.category}" if self.category else "scores"
        npz = out / f"{stem}.npz"
        np.savez(npz, cos=self.cos, s=self.s, n_images=np.array(self.n_images))
        js = out / f"{stem}.json"
        js.write_text(
            json.dumps(self.to_json(k=k, threshold=threshold, top_fraction=top_fraction), indent=1) + "\n",
            encoding="utf-8",
        )
        return {"npz": npz, "json": js}


def switching_scores(
    pre: np.ndarray, post: np.ndarray, *, category: str = "", meta: dict | None = None
) -> SwitchScores:
    """Scores from the switched images' activations ``[items, layers, heads, dim]`` before and after the switch."""
    if len(pre) == 0:
        raise ValueError(
            f"no switched images{' in ' + category if category else ''}: the switching score is undefined. Capture more "
            "images, or check the judge's verdicts in the capture's items file"
        )
    cos = cosine_per_head(pre, post).mean(0)
    return SwitchScores(cos=cos, s=1.0 - cos, n_images=len(pre), category=category, meta=meta)


def switch_heads(
    s: np.ndarray, *, threshold: float = SWITCH_THRESHOLD, top_fraction: float = TOP_FRACTION
) -> tuple[list[tuple[int, int]], str]:
    """Heads with ``s > threshold``; when none, the top ``top_fraction`` of heads (at least one). Returns (heads, rule)."""
    s = np.asarray(s)
    above = np.argwhere(s > threshold)
    if len(above):
        order = np.argsort(-s[above[:, 0], above[:, 1]], kind="stable")
        return [(int(a), int(b)) for a, b in above[order]], f"s > {threshold}"
    k = max(1, math.ceil(top_fraction * s.size))
    flat = np.argsort(-s, axis=None, kind="stable")[:k]
    return [tuple(int(v) for v in np.unravel_index(f, s.shape)) for f in flat], f"top {top_fraction:.0%}"


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two maps of the same shape (NaN when one is constant)."""
    a, b = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"maps differ in shape: {a.shape} vs {b.shape}")
    a, b = a - a.mean(), b - b.mean()
    den = math.sqrt(float((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / den) if den > 0 else float("nan")


def load_scores(path: str | Path) -> SwitchScores:
    """Read a ``scores*.json`` written by :meth:`SwitchScores.save`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return SwitchScores(np.array(data["cos"]), np.array(data["s"]), int(data["n_images"]), data.get("category", ""))
