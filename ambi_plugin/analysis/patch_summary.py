"""The patching table's data (JSON-ready) from the patched images: conditions, the permutation test, per-head rows,
rank agreement, non-finite counts, maps and per-image rows. See :mod:`ambi_plugin.analysis.patching` for what is
measured and :mod:`ambi_plugin.analysis.patch_stats` for the statistics."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ambi_plugin.analysis.patch_stats import bootstrap_indices, mean_ci, nanmean, permutation_p, spearman_ci

__all__ = ["DEFINITION", "summarize"]

DEFINITION = (
    "effect = (logp_patched(b) - logp_A(b)) / (logp_B(b) - logp_A(b)), b = run B's first answer token; flip = the "
    "patched run's greedy token is b; AtP = grad . (x_B - x_A) / the same denominator; AtP* = GradDrop's "
    "1/(L-1) sum_l |AtP with layer l's gradient dropped| / |the denominator| (a magnitude)"
)


def _num(v: Any) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def _map(a: np.ndarray) -> list:
    return [[_num(v) for v in row] for row in a]


def _effects(states: Sequence[Any], key: str, width: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``[n]`` (or ``[n, width]``) effects and flips (1.0 / 0.0, NaN when unknown) of the images."""
    if width is None:
        rows = [[s.results[key]] for s in states]
        width = 1
    else:
        rows = [s.results[key] for s in states]
    eff = np.array([[r[0] for r in row] for row in rows]).reshape(len(states), width)
    flip = np.array([[np.nan if r[1] is None else float(r[1]) for r in row] for row in rows])
    return eff, flip.reshape(len(states), width)


def _flips(flip: np.ndarray) -> dict[str, int]:
    return {"flips": int(np.nansum(flip)), "n_flip_known": int(np.isfinite(flip).sum())}


def summarize(
    states: Sequence[Any],
    *,
    skipped: list[dict[str, str]],
    refused: list[dict[str, str]],
    switch: Sequence[tuple[int, int]],
    heads: Sequence[tuple[tuple[int, int], str]],
    sets: Sequence[Sequence[tuple[int, int]]],
    set_info: dict[str, Any],
    shape: tuple[int, int],
    scores: np.ndarray | None,
    position: Any,
    cost: dict[str, Any],
    n_boot: int,
    seed: int,
    confidence: float,
    atp_star: bool,
    mode: str,
    top_k: int,
    refused_nonfinite: np.ndarray | None = None,
) -> dict[str, Any]:
    n, m, d = len(states), len(heads), len(sets)
    idx = bootstrap_indices(n, n_boot, seed)
    e_sw, f_sw = _effects(states, "switch")
    e_heads, f_heads = _effects(states, "heads", m)
    e_sets, f_sets = _effects(states, "sets", d)
    atp = np.array([s.atp for s in states]).reshape(n, *shape)  # [images, layers, heads]
    star = np.array([s.atp_star for s in states]).reshape(n, *shape) if atp_star else None
    bad = np.array([s.nonfinite for s in states], dtype=int).reshape(n, *shape).sum(0)  # NaN/inf head outputs
    if refused_nonfinite is not None:
        bad = bad + refused_nonfinite  # the images refused for NaN/inf logits count too

    switch_stats = mean_ci(e_sw[:, 0], idx, confidence)
    per_image_random = nanmean(e_sets, 1)  # each image's mean over the sets
    random_stats = mean_ci(per_image_random, idx, confidence)
    null = nanmean(e_sets, 0)  # each set's mean over the images
    perm = permutation_p(switch_stats["mean"] if switch_stats["mean"] is not None else math.nan, null)
    tail = 100 * (1 - confidence) / 2
    finite_null = null[np.isfinite(null)]
    perm.update({
        "statistic": "mean effect over images", "alternative": "the switch set's mean effect is larger",
        "observed": switch_stats["mean"], "layer_matched": True, **set_info,
        "null_mean": _num(nanmean(null, None)),
        "null_range": [float(v) for v in np.percentile(finite_null, [tail, 100 - tail])] if finite_null.size else None,
        "seed": seed, "sets": [[list(h) for h in s] for s in sets], "set_effects": [_num(v) for v in null],
    })  # fmt: skip

    conditions = [
        {"condition": "switch heads", "heads": [list(h) for h in switch], "effect": switch_stats["mean"],
         "ci": switch_stats["ci"], "n": switch_stats["n"], "n_nonfinite": switch_stats["n_nonfinite"], **_flips(f_sw)},
        {"condition": "layer-matched random sets", "n_sets": d, "exact": bool(set_info.get("exact")),
         "effect": random_stats["mean"], "ci": random_stats["ci"], "n": random_stats["n"],
         "flip_rate": _num(nanmean(f_sets, None))},
    ]  # fmt: skip

    rows, cols = (np.array([h[0] for h, _ in heads], dtype=int), np.array([h[1] for h, _ in heads], dtype=int))
    head_stats = mean_ci(e_heads, idx, confidence)
    atp_sel = atp[:, rows, cols]  # [images, heads patched one by one]
    atp_stats = mean_ci(atp_sel, idx, confidence)
    star_sel = None if star is None else star[:, rows, cols]
    star_stats = mean_ci(star_sel, idx, confidence) if star_sel is not None else None
    order = np.argsort(-np.array(head_stats["mean"], dtype=float), kind="stable")  # NaN (no effect) sorts last
    rank = {int(j): r + 1 for r, j in enumerate(order)}
    per_head = []
    for j, ((layer, head), source) in enumerate(heads):
        row = {"layer": layer, "head": head, "from": source,
               "s": None if scores is None else _num(scores[layer, head]),
               "atp": atp_stats["mean"][j], "atp_ci": atp_stats["ci"][j],
               "effect": head_stats["mean"][j], "ci": head_stats["ci"][j], "rank_exact": rank[j],
               "n": head_stats["n"][j], "n_nonfinite": head_stats["n_nonfinite"][j],
               "n_nonfinite_activations": int(bad[layer, head]), **_flips(f_heads[:, j])}  # fmt: skip
        if star_stats is not None:
            row.update({"atp_star": star_stats["mean"][j], "atp_star_ci": star_stats["ci"][j]})
        per_head.append(row)

    corr = {"atp_vs_exact": spearman_ci(atp_sel, e_heads, idx, confidence)}
    if star_sel is not None:
        corr["atp_star_vs_abs_exact"] = spearman_ci(star_sel, e_heads, idx, confidence, absolute_b=True)
    if scores is not None:
        s = np.asarray(scores)
        corr["s_vs_exact"] = spearman_ci(s[rows, cols], e_heads, idx, confidence)
        corr["s_vs_atp"] = spearman_ci(s.ravel(), atp.reshape(n, s.size), idx, confidence)
    for key, c in corr.items():
        c["over"] = "every head" if key == "s_vs_atp" else "the heads patched one by one"
        if key == "atp_star_vs_abs_exact":
            c["note"] = "AtP* is a magnitude: ranked against the size of the exact effect, |effect|"

    exact = np.full(shape, np.nan)
    exact[rows, cols] = np.array(head_stats["mean"], dtype=float)
    items = []
    for i, st in enumerate(states):
        items.append({
            "id": st.item.id, "token_a": st.a, "token_b": st.b, "logp_a": st.lp_a, "logp_b": st.lp_b,
            "switch heads": {"effect": _num(e_sw[i, 0]), "flip": st.results["switch"][1]},
            "per_head": {f"{h[0]},{h[1]}": {"effect": _num(e_heads[i, j]), "flip": st.results["heads"][j][1]}
                         for j, (h, _) in enumerate(heads)},
            "set_effects": [_num(v) for v in e_sets[i]],
            "atp": _map(st.atp), **({"atp_star": _map(st.atp_star)} if atp_star else {}),
        })  # fmt: skip
    return {
        "definition": DEFINITION,
        "scope": "one token position, one direction (run B's head outputs written into run A), first answer token only",
        "position": position,
        "n_items": n,
        "skipped": skipped,
        "refused": refused,
        "selection": {"mode": mode, "k": top_k, "atp_star": atp_star, "n_heads": m},
        "cost": cost,
        "confidence": confidence,
        "n_boot": n_boot,
        "seed": seed,
        "conditions": conditions,
        "permutation": perm,
        "per_head": per_head,
        "spearman": corr,
        "nonfinite_activations": {
            "per_head": bad.tolist(),
            "total": int(bad.sum()),
            "heads": int((bad > 0).sum()),
        },  # fmt: skip
        "atp": _map(nanmean(atp, 0)),
        "atp_star": None if star is None else _map(nanmean(star, 0)),
        "exact": _map(exact),
        "items": items,
    }
