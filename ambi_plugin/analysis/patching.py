"""Causal check of the switch heads: activation patching and attribution patching (AtP) on switched images.

For a switched image the model gave interpretation A under prompt 1 and B under prompt 2. Run A is prompt 1 with
the image, run B prompt 2 with the image; ``b`` is B's first answer token (its greedy next token after the prompt).
Patching a set of heads copies their outputs (the o_proj input, per head) at the recorded token position from run B
into run A and asks how much of B comes back:

* ``effect = (logp_patched(b) - logp_A(b)) / (logp_B(b) - logp_A(b))``: 1 = the patch alone brings B's log-prob of
  ``b`` back, 0 = nothing; ``flip``: the patched run's greedy next token is ``b``;
* conditions: the switch heads; as many random heads outside them (seeded, the drawn heads recorded); each of the
  top-k heads by switching score alone (or every head: ``per_head_k=0``);
* AtP (attribution patching, the first-order approximation): one forward and one backward pass of run A give, for
  every head at once, ``grad(logp_A(b)) . (x_B - x_A)`` at the position, divided by the same denominator as the
  effect, so it estimates the exact per-head effect;
* Spearman rank correlation between the switching score ``s``, AtP and the exact per-head effect, over the heads
  that have all the values compared.

The model inputs are the backend's own: one ``generate_until`` call per prompt (one new token) through the model
driver (:mod:`ambi_plugin.analysis.driver`; lmms-eval's is :class:`~ambi_plugin.lmms.analysis_driver.BackendModel`)
hands the model the inputs its chat template and image processor built; they are kept (less the KV cache) and every run of the item re-uses them. A re-run must give the first-step
logits the backend's call gave, or the item is refused. Only prompt positions that name one token can be patched:
``last_prompt`` (the default) or an integer; ``mean_prompt`` / ``mean_generated`` cannot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ambi_plugin.analysis.capture import parse_position
from ambi_plugin.analysis.driver import model_driver
from ambi_plugin.analysis.heads import DEFAULT_PATTERN, HeadLayout, head_layout, unwrap_model
from ambi_plugin.analysis.hooks import HookSet

__all__ = ["PatchItem", "PatchingError", "format_patching", "patch_items", "patch_position", "spearman"]

_DROP = ("cache", "past_key_values", "cache_position", "use_cache", "logits_to_keep", "return_dict")
_MIN_GAP = 1e-3  # |logp_B(b) - logp_A(b)| below this: no switch in the first token to restore


class PatchingError(ValueError):
    """An item or setting that activation patching cannot use."""


def patch_position(position: str | int) -> int:
    """The token index patched for a capture ``position`` (``last_prompt`` -> -1, an integer as is)."""
    pos = parse_position(position)
    if pos == "last_prompt":
        return -1
    if isinstance(pos, int):
        return pos
    raise PatchingError(
        f"activation patching needs one token position, but the capture used {pos!r}: pass --position last_prompt "
        "(or an integer prompt position)"
    )


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their average rank."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), dtype=float)
    sx = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sx[j + 1] == sx[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: Any, b: Any) -> float:
    """Spearman's rank correlation of two maps of the same shape, over the entries finite in both (ties: average
    ranks); NaN when fewer than two such entries or when one side is constant."""
    a, b = np.asarray(a, dtype=float).ravel(), np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"maps differ in shape: {a.shape} vs {b.shape}")
    both = np.isfinite(a) & np.isfinite(b)
    if both.sum() < 2:
        return float("nan")
    ra, rb = _ranks(a[both]), _ranks(b[both])
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = math.sqrt(float((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / den) if den > 0 else float("nan")


@dataclass
class PatchItem:
    """One switched image: its id, images and the two prompts (as the capture asked them)."""

    id: str
    images: list[str]
    prompt_a: str
    prompt_b: str


@dataclass
class _Run:
    inputs: dict[str, Any]
    logits: Any  # [vocab] float32, the next-token logits after the prompt
    acts: Any  # [layers, heads, head_dim] float32 at the position, on the model's devices (per layer list)


@dataclass
class _Patcher:
    """One HookSet over every layer: records the heads at the position, or writes planned values into them."""

    lm: Any
    layout: HeadLayout
    pos: int
    pattern: str = DEFAULT_PATTERN
    plan: dict[int, tuple[list[int], Any]] = field(default_factory=dict)  # layer -> (heads, [k, head_dim] values)
    record: dict[int, Any] | None = None
    keep: dict[int, Any] | None = None  # AtP: the per-head tensors in the graph

    def __post_init__(self) -> None:
        self.hooks = HookSet(self.lm, layout=self.layout, pattern=self.pattern)
        for layer in range(self.layout.n_layers):
            self.hooks.add(layer, self._fn(layer))

    def _fn(self, layer: int):
        def fn(x4, state):
            if self.record is not None:
                self.record[layer] = x4[0, self.pos].detach().float().clone()
            planned = self.plan.get(layer)
            if planned is not None:
                heads, values = planned
                x4 = x4.clone()
                x4[0, self.pos, heads] = values.to(device=x4.device, dtype=x4.dtype)
                return x4
            if self.keep is not None:
                self.keep[layer] = x4
                return x4  # an identity edit: o_proj then reads this very tensor, so its gradient is defined
            return None

        return fn


def _first_step(lm: Any, prompt: str, images: Sequence[str]) -> tuple[dict[str, Any], Any]:
    """The model inputs of the backend's first forward call for this prompt, and that call's next-token logits."""
    model = unwrap_model(lm)
    seen: dict[str, Any] = {}

    def pre(module, args, kwargs):
        if "kwargs" not in seen:
            if args:
                raise PatchingError(f"{type(model).__name__} was called with positional inputs; cannot re-run them")
            seen["kwargs"] = {k: v for k, v in kwargs.items() if k not in _DROP}

    def post(module, args, kwargs, out):
        if "logits" not in seen:
            seen["logits"] = out.logits[0, -1].detach().float().clone()

    handles = [
        model.register_forward_pre_hook(pre, with_kwargs=True),
        model.register_forward_hook(post, with_kwargs=True),
    ]
    try:
        model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(prompt, images)
    finally:
        for h in handles:
            h.remove()
    if "kwargs" not in seen:
        raise PatchingError(f"the backend never called {type(model).__name__}'s forward")
    return seen["kwargs"], seen["logits"]


def _forward(model: Any, inputs: dict[str, Any]) -> Any:
    return model(**inputs, use_cache=False).logits[0, -1].float()


def _run(lm: Any, patcher: _Patcher, prompt: str, images: Sequence[str]) -> _Run:
    import torch

    inputs, backend_logits = _first_step(lm, prompt, images)
    patcher.record, patcher.plan = {}, {}
    try:
        with patcher.hooks, torch.no_grad():
            logits = _forward(unwrap_model(lm), inputs)
    finally:
        acts, patcher.record = patcher.record, None
    gap = float((logits - backend_logits.to(logits.device)).abs().max())
    if gap > 1e-3 * max(1.0, float(backend_logits.abs().max())):
        raise PatchingError(
            f"re-running the backend's inputs does not reproduce its logits (max difference {gap:.3g}); this backend "
            "cannot be patched this way"
        )
    return _Run(inputs, logits, acts)


def _logp(logits: Any, token: int) -> float:
    import torch

    return float(torch.log_softmax(logits, -1)[token])


def _patched(lm: Any, patcher: _Patcher, run_a: _Run, run_b: _Run, heads: Sequence[tuple[int, int]]) -> Any:
    import torch

    plan: dict[int, tuple[list[int], Any]] = {}
    for layer in sorted({h[0] for h in heads}):
        idx = sorted(h for (l_, h) in heads if l_ == layer)
        plan[layer] = (idx, run_b.acts[layer][idx])
    patcher.plan = plan
    try:
        with patcher.hooks, torch.no_grad():
            return _forward(unwrap_model(lm), run_a.inputs)
    finally:
        patcher.plan = {}


def _attribution(lm: Any, patcher: _Patcher, run_a: _Run, run_b: _Run, token: int, layout: HeadLayout) -> np.ndarray:
    """``[layers, heads]``: grad of logp_A(token) w.r.t. each head's output at the position, dotted with x_B - x_A."""
    import torch

    model = unwrap_model(lm)
    emb = model.get_input_embeddings()

    def grad_on(module, args, out):
        return out if out.requires_grad else out.detach().requires_grad_(True)

    handle = emb.register_forward_hook(grad_on)
    patcher.keep = {}
    try:
        with patcher.hooks, torch.enable_grad():
            lp = torch.log_softmax(_forward(model, run_a.inputs), -1)[token]
            kept = [patcher.keep[layer] for layer in range(layout.n_layers)]
            grads = torch.autograd.grad(lp, kept, allow_unused=True)
    finally:
        handle.remove()
        patcher.keep = None
    out = np.zeros(layout.shape)
    for layer, g in enumerate(grads):
        if g is None:
            continue
        diff = (run_b.acts[layer] - run_a.acts[layer]).to(g.device)
        out[layer] = (g[0, patcher.pos].float() * diff).sum(-1).detach().cpu().numpy()
    return out


def patch_items(
    lm: Any,
    items: Sequence[PatchItem],
    *,
    switch_heads: Sequence[tuple[int, int]],
    position: str | int = "last_prompt",
    seeds: Sequence[int] = (0, 1, 2),
    per_head: Sequence[tuple[int, int]] | None = None,
    scores: np.ndarray | None = None,
    pattern: str = DEFAULT_PATTERN,
    progress: bool = True,
) -> dict[str, Any]:
    """Patch every item (see the module docstring); returns the table's data (JSON-ready)."""
    from tqdm import tqdm

    from ambi_plugin.analysis.interventions import random_heads

    pos = patch_position(position)
    layout = head_layout(lm, pattern=pattern)
    switch = [tuple(map(int, h)) for h in switch_heads]
    if not switch:
        raise PatchingError("no switch heads to patch (the heads file names none)")
    controls = [
        {"seed": int(s), "heads": random_heads(layout, len(switch), seed=int(s), exclude=switch)} for s in seeds
    ]
    singles = [tuple(map(int, h)) for h in (per_head if per_head is not None else switch)]
    patcher = _Patcher(lm, layout, pos, pattern)
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    atp_sum, exact_sum, used = np.zeros(layout.shape), np.zeros(layout.shape), 0
    for item in tqdm(items, desc="patching", disable=not progress):
        run_a = _run(lm, patcher, item.prompt_a, item.images)
        run_b = _run(lm, patcher, item.prompt_b, item.images)
        b, a = int(run_b.logits.argmax()), int(run_a.logits.argmax())
        lp_a, lp_b = _logp(run_a.logits, b), _logp(run_b.logits, b)
        if a == b or abs(lp_b - lp_a) < _MIN_GAP:
            skipped.append({"id": item.id, "reason": "the two runs predict the same first answer token"})
            continue
        gap = lp_b - lp_a

        def measure(heads, run_a=run_a, run_b=run_b, b=b, lp_a=lp_a, gap=gap) -> dict[str, Any]:
            logits = _patched(lm, patcher, run_a, run_b, heads)
            return {"effect": (_logp(logits, b) - lp_a) / gap, "flip": int(logits.argmax()) == b}

        row: dict[str, Any] = {"id": item.id, "token_a": a, "token_b": b, "logp_a": lp_a, "logp_b": lp_b}
        row["switch heads"] = measure(switch)
        row["random"] = [measure(c["heads"]) for c in controls]
        row["per_head"] = {f"{h[0]},{h[1]}": measure([h]) for h in singles}
        atp = _attribution(lm, patcher, run_a, run_b, b, layout) / gap
        row["atp"] = atp.tolist()
        atp_sum += atp
        for key, res in row["per_head"].items():
            layer, head = map(int, key.split(","))
            exact_sum[layer, head] += res["effect"]
        rows.append(row)
        used += 1
    return _summary(rows, skipped, switch, controls, singles, atp_sum, exact_sum, used, layout, position, scores)


def _stats(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    eff = np.array([r["effect"] for r in results], dtype=float)
    if not eff.size:
        return {"effect": float("nan"), "effect_std": float("nan"), "flip_rate": float("nan"), "n": 0}
    return {"effect": float(eff.mean()), "effect_std": float(eff.std()),
            "flip_rate": float(np.mean([r["flip"] for r in results])), "n": int(eff.size)}  # fmt: skip


def _summary(rows, skipped, switch, controls, singles, atp_sum, exact_sum, used, layout, position, scores) -> dict:
    nan_map = np.full(layout.shape, np.nan)
    atp = atp_sum / used if used else nan_map.copy()
    exact = nan_map.copy()
    if used:
        for layer, head in singles:
            exact[layer, head] = exact_sum[layer, head] / used
    conditions = [{"condition": "switch heads", "heads": [list(h) for h in switch],
                   **_stats([r["switch heads"] for r in rows])}]  # fmt: skip
    per_seed = [_stats([r["random"][i] for r in rows]) for i in range(len(controls))]
    if controls:
        effects = [p["effect"] for p in per_seed]
        conditions.append({
            "condition": f"random heads ({len(controls)} seeds)",
            "effect": float(np.mean(effects)), "effect_std": float(np.std(effects)),
            "flip_rate": float(np.mean([p["flip_rate"] for p in per_seed])), "n": per_seed[0]["n"],
            "runs": [{"seed": c["seed"], "heads": [list(h) for h in c["heads"]], **p} for c, p in zip(controls, per_seed)],
        })  # fmt: skip
    per_head = []
    for h in singles:
        st = _stats([r["per_head"][f"{h[0]},{h[1]}"] for r in rows])
        per_head.append({"layer": h[0], "head": h[1], "atp": _num(atp[h]),
                         "s": None if scores is None else _num(scores[h]), **st})  # fmt: skip
    corr = {"atp_vs_exact": spearman(atp, exact), "n_heads_exact": len(singles)}
    if scores is not None:
        corr = {"s_vs_atp": spearman(scores, atp), "s_vs_exact": spearman(scores, exact), **corr}
    return {
        "definition": "effect = (logp_patched(b) - logp_A(b)) / (logp_B(b) - logp_A(b)), b = run B's first answer "
        "token; flip = the patched run's greedy token is b; AtP = grad . (x_B - x_A) / the same denominator",
        "position": position,
        "n_items": used,
        "skipped": skipped,
        "conditions": [{k: _num(v) if isinstance(v, float) else v for k, v in c.items()} for c in conditions],
        "per_head": per_head,
        "spearman": {k: _num(v) if isinstance(v, float) else v for k, v in corr.items()},
        "atp": [[_num(v) for v in row] for row in atp],
        "exact": [[_num(v) for v in row] for row in exact],
        "items": rows,
    }


def _num(v: Any) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def format_patching(data: dict[str, Any]) -> str:
    """Markdown: the conditions, the per-head rows and the rank correlations."""
    f = lambda v, d=3: "n/a" if v is None else f"{v:.{d}f}"  # noqa: E731
    lines = [f"Activation patching, {data['n_items']} switched images ({len(data['skipped'])} skipped); "
             f"position {data['position']}", "",
             "| condition | heads | effect (mean +- std) | greedy flip % |", "|---|---|---|---|"]  # fmt: skip
    for c in data["conditions"]:
        heads = len(c["heads"]) if "heads" in c else len(c["runs"][0]["heads"]) if c.get("runs") else 0
        flip = None if c["flip_rate"] is None else 100 * c["flip_rate"]
        lines.append(f"| {c['condition']} | {heads} | {f(c['effect'])} +- {f(c['effect_std'])} | {f(flip, 1)} |")
    for c in data["conditions"]:
        for run in c.get("runs", []):
            lines.append(f"\nRandom heads, seed {run['seed']}: " + ", ".join(f"({a}, {b})" for a, b in run["heads"]))
    lines += ["", "| head (layer, head) | s | AtP | exact effect | greedy flip % |", "|---|---|---|---|---|"]
    for r in data["per_head"]:
        flip = None if r["flip_rate"] is None else 100 * r["flip_rate"]
        lines.append(f"| ({r['layer']}, {r['head']}) | {f(r['s'])} | {f(r['atp'])} | {f(r['effect'])} | {f(flip, 1)} |")
    sp = data["spearman"]
    lines += ["", "Spearman rank correlation: " + ", ".join(f"{k.replace('_vs_', ' vs ')} {f(v)}" for k, v in sp.items()
                                                             if k != "n_heads_exact")
              + f" (exact effect on {sp['n_heads_exact']} heads)"]  # fmt: skip
    return "\n".join(lines) + "\n"
