"""AmbiBench A.8: where the model looks while it answers.

At layer ``L // 2`` (half the language model's depth), the attention weights from the generated tokens (the prompt's
last position, which predicts the first answer token, and every decoding step) to the image tokens are averaged over
heads and over those tokens, then laid out on the image's patch grid (Qwen2.5-VL: ``image_grid_thw`` / merge size;
otherwise a square grid) and drawn over the image.

Attention weights exist only with eager attention: the model is switched to ``eager`` for the run (and back after),
or load it with ``attn_implementation=eager``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ambi_plugin.analysis.backend import BackendModel
from ambi_plugin.analysis.heads import find_head_modules, unwrap_model

__all__ = ["attention_to_image", "visualize"]


def _image_token_id(model: Any) -> int | None:
    cfg = model.config
    for key in ("image_token_id", "image_token_index"):
        if getattr(cfg, key, None) is not None:
            return int(getattr(cfg, key))
    return None


def _grid(n_tokens: int, grid_thw: Any, merge: int) -> tuple[int, int]:
    if grid_thw is not None:
        t, h, w = (int(v) for v in grid_thw[0])
        if (h // merge) * (w // merge) * t == n_tokens:
            return h // merge, (w // merge) * t
    side = int(math.isqrt(n_tokens))
    if side * side == n_tokens:
        return side, side
    return 1, n_tokens


def attention_to_image(lm: Any, prompt: str, images: Sequence[str], *, layer: int | None = None,
                       gen_kwargs: dict | None = None) -> tuple[str, np.ndarray, int]:  # fmt: skip
    """(answer, patch-grid attention map, layer) for one generation through the backend ``lm``."""
    model = unwrap_model(lm)
    n_layers = len(find_head_modules(model))
    layer = n_layers // 2 if layer is None else layer
    attn_module = None
    for name, mod in model.named_modules():
        if name.endswith(f"layers.{layer}.self_attn") and "visual" not in name and "vision" not in name:
            attn_module = mod
    if attn_module is None:
        raise ValueError(f"no self_attn module for language-model layer {layer}")
    seen: dict[str, Any] = {"rows": []}

    def top_pre(module, args, kwargs):
        if "input_ids" not in seen and kwargs.get("input_ids") is not None:
            seen["input_ids"] = kwargs["input_ids"].detach().cpu()
        if seen.get("grid") is None and kwargs.get("image_grid_thw") is not None:
            seen["grid"] = kwargs["image_grid_thw"]

    def visual_pre(module, args, kwargs):  # Qwen-VL vision tower: its patch grid (t, h, w) before merging
        if seen.get("grid") is None and kwargs.get("grid_thw") is not None:
            seen["grid"] = kwargs["grid_thw"].detach().cpu()

    def attn_out(module, args, output):
        weights = output[1] if isinstance(output, tuple) and len(output) > 1 else None
        if weights is None:
            raise RuntimeError(
                "the attention module returned no weights: load the model with attn_implementation=eager"
            )
        seen["rows"].append(weights[0, :, -1, :].float().mean(0).detach().cpu())  # heads averaged, newest position

    previous = getattr(model.config, "_attn_implementation", None)
    switch = previous != "eager" and hasattr(model, "set_attn_implementation")
    handles = []
    try:
        if switch:
            model.set_attn_implementation("eager")
        handles.append(model.register_forward_pre_hook(top_pre, with_kwargs=True))
        visual = getattr(model, "visual", None) or getattr(getattr(model, "model", None), "visual", None)
        if visual is not None:
            handles.append(visual.register_forward_pre_hook(visual_pre, with_kwargs=True))
        handles.append(attn_module.register_forward_hook(attn_out))
        answer = BackendModel(lm, gen_kwargs=gen_kwargs).generate(prompt, images)
    finally:
        for h in handles:
            h.remove()
        if switch and previous:
            model.set_attn_implementation(previous)
    ids = seen.get("input_ids")
    tok = _image_token_id(model)
    if ids is None or tok is None:
        raise RuntimeError("could not locate the image tokens (no input_ids at the first forward or no image_token_id)")
    positions = (ids[0] == tok).nonzero().flatten()
    if len(positions) == 0:
        raise RuntimeError("the prompt holds no image token")
    rows = [r[positions] for r in seen["rows"] if r.shape[0] >= int(positions.max()) + 1]
    mean = np.stack([r.numpy() for r in rows]).mean(0)
    merge = int(getattr(getattr(model.config, "vision_config", None), "spatial_merge_size", 1) or 1)
    h, w = _grid(len(positions), seen.get("grid"), merge)
    return answer, mean.reshape(h, w), layer


def visualize(lm: Any, prompt: str, image: str, out: str | Path, *, layer: int | None = None,
              gen_kwargs: dict | None = None) -> dict[str, Any]:  # fmt: skip
    """Write the A.8 overlay PNG for one image; returns answer, layer and paths."""
    from PIL import Image

    from ambi_plugin.analysis.plots import save_overlay

    answer, grid, layer = attention_to_image(lm, prompt, [image], layer=layer, gen_kwargs=gen_kwargs)
    out = Path(out)
    save_overlay(Image.open(image), grid, out, title=f"layer {layer}: {answer[:60]}")
    np.save(out.with_suffix(".npy"), grid)
    return {
        "answer": answer,
        "layer": layer,
        "png": str(out),
        "grid": str(out.with_suffix(".npy")),
        "shape": list(grid.shape),
    }
