"""The model side of activation patching (:mod:`ambi_plugin.analysis.patching`): the backend's own inputs, re-runs
that record every head at one position, patched re-runs, and the gradients of AtP and AtP* (GradDrop).

* :func:`run_prompt`: one ``generate_until`` call through the model driver (one new token) hands over the inputs the
  backend's chat template and image processor built; they are kept (less the KV cache) and re-run with hooks that
  record every head's output (the ``o_proj`` input) at the position. The re-run must give the backend's first-step
  logits, or a :class:`PatchingError` says so (the caller refuses the item).
* :func:`patched_logits`: run A's inputs with some heads' outputs at the position replaced (run B's, or any values).
* :func:`attribution` (AtP): ``grad(logp_A(b)) . (x_B - x_A)`` per head, from one forward and one backward pass of
  run A; with ``drop_layer`` the gradient through that decoder layer's own contribution to the residual stream is
  dropped (only its skip connection passes gradient), the building block of GradDrop.
* :func:`grad_drop` (AtP*'s GradDrop, Kramar et al. 2024, eq. 11): ``1/(L-1) * sum_l |AtP with layer l dropped|``, a
  magnitude (no sign) from ``L`` forward and backward passes. AtP*'s other fix (recomputing the attention softmax for
  query/key patches) does not apply here: a head's output is patched, not its queries or keys.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ambi_plugin.analysis.driver import model_driver
from ambi_plugin.analysis.heads import DEFAULT_PATTERN, HeadLayout, unwrap_model
from ambi_plugin.analysis.hooks import HookSet, mark_owned
from ambi_plugin.analysis.positions import check_in_range

__all__ = [
    "NonFiniteError",
    "Patcher",
    "PatchingError",
    "Run",
    "attribution",
    "grad_drop",
    "logp",
    "patched_logits",
    "run_prompt",
]

_DROP = ("cache", "past_key_values", "cache_position", "use_cache", "logits_to_keep", "return_dict")


class PatchingError(ValueError):
    """An item or setting that activation patching cannot use."""


class NonFiniteError(PatchingError):
    """A run whose logits are NaN or infinite; ``nonfinite`` (``[layers, heads]`` bool) says which heads' outputs at
    the position were not finite, so they are counted even though the item is refused."""

    def __init__(self, reason: str, nonfinite: np.ndarray) -> None:
        super().__init__(reason)
        self.nonfinite = nonfinite


@dataclass
class Run:
    """One prompt's re-run: the backend's inputs, the next-token logits, every head at the position
    (``acts[layer]``: ``[heads, head_dim]`` float32 on the layer's device), the prompt's token ids (None when the
    backend passes embeddings), the seconds the re-run forward took, and which heads' outputs hold a NaN/inf."""

    inputs: dict[str, Any]
    logits: Any
    acts: dict[int, Any]
    ids: Any
    seconds: float
    nonfinite: np.ndarray


@dataclass
class Patcher:
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
            check_in_range(self.pos, x4.shape[1])  # [batch, tokens, heads, head_dim]
            if self.record is not None:
                self.record[layer] = x4[0, self.pos].detach().float().clone()
            planned = self.plan.get(layer)
            if planned is not None:
                heads, values = planned
                x4 = x4.clone()
                x4[0, self.pos, heads] = values.to(x4)  # x4's device and dtype
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


def run_prompt(lm: Any, patcher: Patcher, prompt: str, images: Sequence[str], what: str = "the prompt") -> Run:
    """The backend's inputs for ``prompt``, re-run with every head recorded at the position (see the module doc);
    ``what`` names the prompt in an error."""
    import torch

    inputs, backend_logits = _first_step(lm, prompt, images)
    ids = inputs.get("input_ids")
    if ids is not None:  # the prompt's token ids (one prompt)
        ids = ids.detach().reshape(-1).cpu()
        check_in_range(patcher.pos, len(ids), what)
    patcher.record, patcher.plan = {}, {}
    start = time.perf_counter()
    try:
        with patcher.hooks, torch.no_grad():
            logits = _forward(unwrap_model(lm), inputs)
    finally:
        acts, patcher.record = patcher.record, None
    seconds = time.perf_counter() - start
    bad = np.stack([~acts[i].isfinite().all(-1).cpu().numpy() for i in range(patcher.layout.n_layers)])
    if not (bool(logits.isfinite().all()) and bool(backend_logits.isfinite().all())):
        found = [f"({layer}, {head})" for layer, head in zip(*np.nonzero(bad))]
        heads = f"; heads with NaN/inf outputs at the position: {', '.join(found[:6])}" if found else ""
        more = f" and {len(found) - 6} more" if len(found) > 6 else ""
        raise NonFiniteError(f"{what} gives NaN or infinite logits{heads}{more}", bad)
    gap = float((logits - backend_logits).abs().max())  # both from the same model: on one device
    if not gap <= 1e-3 * max(1.0, float(backend_logits.abs().max())):
        raise PatchingError(
            f"re-running the backend's inputs does not reproduce its logits (max difference {gap:.3g}); this item "
            "cannot be patched this way"
        )
    return Run(inputs, logits, acts, ids, seconds, bad)


def logp(logits: Any, token: int) -> float:
    import torch

    return float(torch.log_softmax(logits, -1)[token])


def patched_logits(lm: Any, patcher: Patcher, run_a: Run, values: dict[int, tuple[list[int], Any]]) -> Any:
    """Run A's next-token logits with ``values`` (``layer -> (heads, [k, head_dim])``) written into those heads at
    the position."""
    import torch

    patcher.plan = values
    try:
        with patcher.hooks, torch.no_grad():
            return _forward(unwrap_model(lm), run_a.inputs)
    finally:
        patcher.plan = {}


def values_from(run: Run, heads: Sequence[tuple[int, int]]) -> dict[int, tuple[list[int], Any]]:
    """The plan that writes ``run``'s outputs of ``heads`` (``[(layer, head), ...]``)."""
    plan: dict[int, tuple[list[int], Any]] = {}
    for layer in sorted({h[0] for h in heads}):
        idx = sorted(h for (l_, h) in heads if l_ == layer)
        plan[layer] = (idx, run.acts[layer][idx])
    return plan


def _decoder_layers(model: Any, layout: HeadLayout) -> list[Any]:
    """The decoder layer holding each o_proj (the module named up to ``layers.<i>``)."""
    modules = dict(model.named_modules())
    out = []
    for name in layout.names:
        m = re.match(r"^(.*?layers\.\d+)\.", name)
        if m is None or m.group(1) not in modules:
            raise PatchingError(f"AtP* needs the decoder layer around {name!r} and found none ('...layers.<i>')")
        out.append(modules[m.group(1)])
    return out


def _drop_hook(module, args, kwargs, out):
    """GradDrop: the layer's output keeps its value, but gradient flows only through the skip connection."""
    h_in = args[0] if args else kwargs.get("hidden_states")
    h_out = out[0] if isinstance(out, tuple) else out
    if h_in is None or not hasattr(h_out, "shape") or h_in.shape != h_out.shape:
        raise PatchingError("AtP*: a decoder layer's input and output hidden states could not be paired")
    new = h_in + (h_out - h_in).detach()
    return (new, *out[1:]) if isinstance(out, tuple) else new


def attribution(
    lm: Any, patcher: Patcher, run_a: Run, run_b: Run, token: int, layout: HeadLayout, *, drop_layer: Any = None
) -> np.ndarray:
    """``[layers, heads]``: grad of logp_A(token) w.r.t. each head's output at the position, dotted with x_B - x_A
    (not yet divided by the gap). ``drop_layer``: a decoder layer module whose own gradient path is dropped."""
    import torch

    model = unwrap_model(lm)
    emb = model.get_input_embeddings()

    def grad_on(module, args, out):
        # the graph starts at the embeddings, also in a frozen model; a non-leaf copy, so that a model writing image
        # features into them in place still can
        return out.detach().requires_grad_(True).clone()

    handles = [emb.register_forward_hook(mark_owned(grad_on))]
    if drop_layer is not None:
        handles.append(drop_layer.register_forward_hook(mark_owned(_drop_hook), with_kwargs=True))
    patcher.keep = {}
    try:
        with patcher.hooks, torch.enable_grad():
            lp = torch.log_softmax(_forward(model, run_a.inputs), -1)[token]
            kept = [patcher.keep[layer] for layer in range(layout.n_layers)]
            grads = torch.autograd.grad(lp, kept, allow_unused=True)
    finally:
        for h in handles:
            h.remove()
        patcher.keep = None
    out = np.zeros(layout.shape)
    for layer, g in enumerate(grads):
        if g is None:
            continue
        diff = run_b.acts[layer] - run_a.acts[layer]  # recorded on the layer's device, where its gradient is
        out[layer] = torch.einsum("hd,hd->h", g[0, patcher.pos].float(), diff).detach().cpu().numpy()
    return out


def grad_drop(lm: Any, patcher: Patcher, run_a: Run, run_b: Run, token: int, layout: HeadLayout) -> np.ndarray:
    """AtP*'s GradDrop (eq. 11 of Kramar et al. 2024): ``1/(L-1) * sum over layers l of |AtP with l dropped|``,
    ``[layers, heads]``, not yet divided by the gap; ``L`` forward and backward passes."""
    if layout.n_layers < 2:
        raise PatchingError("AtP* (GradDrop) needs at least two decoder layers")
    blocks = _decoder_layers(unwrap_model(lm), layout)
    total = np.zeros(layout.shape)
    for block in blocks:
        total += np.abs(attribution(lm, patcher, run_a, run_b, token, layout, drop_layer=block))
    return total / (layout.n_layers - 1)
