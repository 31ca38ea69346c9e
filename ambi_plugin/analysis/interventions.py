"""Negative (mask) and positive (ITI) interventions on chosen heads, and the ITI fit.

* **mask** (AmbiBench 4.4, eq. 2): head ``(l, h)``'s output is multiplied by ``epsilon`` (default 0.001) at every
  position, prompt and generated tokens alike; every other head is untouched.
* **iti** (Li et al. 2023, AmbiBench 4.4): ``x_l^h <- x_l^h + alpha * sigma_l^h * dir_l^h`` at every position, with
  ``dir`` = mean activation over correctly answered items minus mean over incorrect ones, unit-normalised, and
  ``sigma`` = standard deviation of the items' activations projected on ``dir``. Fit on items held out from the
  evaluation (PROTOCOL), with :func:`fit_iti`.

A *heads file* (JSON) names the heads and, for ITI, carries their directions and sigmas; :func:`load_heads_file` checks
it against the model's layout before any generation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ambi_plugin.analysis.heads import HeadLayout
from ambi_plugin.analysis.hooks import HookSet

__all__ = [
    "DEFAULT_EPSILON",
    "ITI_ALPHAS",
    "HeadsSpec",
    "InterventionError",
    "add_intervention",
    "fit_iti",
    "load_heads_file",
    "random_heads",
    "write_heads_file",
]

DEFAULT_EPSILON = 1e-3
ITI_ALPHAS = (0.1, 0.3, 0.5)
Mode = Literal["mask", "iti", "none"]


class InterventionError(ValueError):
    """A heads file or intervention setting that cannot be applied."""


@dataclass
class HeadsSpec:
    """Heads ``[(layer, head), ...]``; for ITI, ``directions[i]`` (unit, ``head_dim``) and ``sigmas[i]`` per head."""

    heads: list[tuple[int, int]]
    directions: list[list[float]] | None = None
    sigmas: list[float] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def check(self, layout: HeadLayout, *, mode: Mode = "mask") -> None:
        for layer, head in self.heads:
            if not (0 <= layer < layout.n_layers and 0 <= head < layout.n_heads):
                raise InterventionError(
                    f"head ({layer}, {head}) is outside the model's {layout.n_layers} layers x {layout.n_heads} heads"
                )
        if mode == "iti":
            if self.directions is None or self.sigmas is None:
                raise InterventionError(
                    "mode=iti needs a heads file with 'directions' and 'sigmas' (write one with "
                    "`ambi switch-heads fit-iti`)"
                )
            if len(self.directions) != len(self.heads) or len(self.sigmas) != len(self.heads):
                raise InterventionError("heads file: 'directions' and 'sigmas' need one entry per head")
            bad = [len(d) for d in self.directions if len(d) != layout.head_dim]
            if bad:
                raise InterventionError(
                    f"heads file: directions have length {bad[0]}, the model's head_dim is {layout.head_dim}"
                )


def write_heads_file(path: str | Path, spec: HeadsSpec) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {"heads": [list(map(int, h)) for h in spec.heads], **spec.meta}
    if spec.directions is not None:
        data["directions"] = [[float(v) for v in d] for d in spec.directions]
        data["sigmas"] = [float(s) for s in spec.sigmas or []]
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    return path


def load_heads_file(path: str | Path) -> HeadsSpec:
    path = Path(path).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InterventionError(
            f"heads file {str(path)!r} does not exist (write one with `ambi switch-heads scores`)"
        ) from None
    except json.JSONDecodeError as exc:
        raise InterventionError(f"heads file {path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    heads = data.get("heads")
    if not isinstance(heads, list) or not all(isinstance(h, list) and len(h) == 2 for h in heads):
        raise InterventionError(f"heads file {path}: field 'heads' must be a list of [layer, head] pairs")
    meta = {k: v for k, v in data.items() if k not in ("heads", "directions", "sigmas")}
    return HeadsSpec([(int(a), int(b)) for a, b in heads], data.get("directions"), data.get("sigmas"), meta)


def random_heads(
    layout: HeadLayout | tuple[int, int], k: int, *, seed: int, exclude: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]]:
    """``k`` distinct heads drawn uniformly (seeded) among those not in ``exclude``: the random-head control.
    ``layout``: the model's :class:`HeadLayout` or its ``(layers, heads)`` shape (the same draw either way)."""
    n_layers, n_heads = layout.shape if isinstance(layout, HeadLayout) else (int(layout[0]), int(layout[1]))
    banned = {tuple(h) for h in exclude}
    pool = [(i, h) for i in range(n_layers) for h in range(n_heads) if (i, h) not in banned]
    if k > len(pool):
        raise InterventionError(f"cannot draw {k} random heads: only {len(pool)} heads are not excluded")
    idx = np.random.default_rng(seed).choice(len(pool), size=k, replace=False)
    return sorted(pool[i] for i in idx)


def fit_iti(acts: np.ndarray, correct: Sequence[bool], heads: Sequence[tuple[int, int]]) -> HeadsSpec:
    """Directions and sigmas for ``heads`` from ``acts`` ``[items, layers, heads, head_dim]`` and per-item correctness."""
    acts = np.asarray(acts, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    if acts.ndim != 4 or acts.shape[0] != ok.shape[0]:
        raise InterventionError(
            f"fit_iti: acts must be [items, layers, heads, dim] with one flag per item, got {acts.shape} and {ok.shape}"
        )
    if ok.all() or not ok.any():
        raise InterventionError(
            f"fit_iti needs both correctly and incorrectly answered items; got {int(ok.sum())} correct of {ok.size}"
        )
    directions, sigmas = [], []
    for layer, head in heads:
        x = acts[:, layer, head, :]
        d = x[ok].mean(0) - x[~ok].mean(0)
        norm = float(np.linalg.norm(d))
        d = d / norm if norm > 0 else d
        directions.append(d.tolist())
        sigmas.append(float(np.std(x @ d)))
    return HeadsSpec(
        [tuple(h) for h in heads], directions, sigmas, {"n_correct": int(ok.sum()), "n_items": int(ok.size)}
    )


def add_intervention(
    hooks: HookSet, spec: HeadsSpec, *, mode: Mode, epsilon: float = DEFAULT_EPSILON, alpha: float = 0.0
) -> None:
    """Add the edit of ``mode`` for ``spec``'s heads to ``hooks`` (before entering it)."""
    import torch

    spec.check(hooks.layout, mode=mode)
    if mode == "none":
        return
    by_layer: dict[int, list[int]] = {}
    for i, (layer, _head) in enumerate(spec.heads):
        by_layer.setdefault(layer, []).append(i)
    for layer, idxs in by_layer.items():
        head_idx = [spec.heads[i][1] for i in idxs]
        if mode == "mask":
            scale = torch.ones(hooks.layout.n_heads, 1)
            scale[head_idx] = float(epsilon)

            def fn(x4, state, scale=scale):
                return x4 * scale.to(device=x4.device, dtype=x4.dtype)

        elif mode == "iti":
            shift = torch.zeros(hooks.layout.n_heads, hooks.layout.head_dim, dtype=torch.float64)
            for i in idxs:
                shift[spec.heads[i][1]] += (
                    alpha * spec.sigmas[i] * torch.tensor(spec.directions[i], dtype=torch.float64)
                )

            def fn(x4, state, shift=shift):
                return x4 + shift.to(device=x4.device, dtype=x4.dtype)

        else:
            raise InterventionError(f"Expected argument `mode` to be one of ('mask', 'iti', 'none') but got {mode!r}")
        hooks.add(layer, fn)
