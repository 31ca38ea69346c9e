"""AmbiBench A.8: where the model looks while it answers.

At layer ``L // 2`` (half the language model's depth), the attention weights from the generated tokens (the prompt's
last position, which predicts the first answer token, and every decoding step) to the image tokens are averaged over
heads and over those tokens, then laid out on the image's patch grid (Qwen2.5-VL: ``image_grid_thw`` / merge size;
InternVL tiles: the last tile, which is the thumbnail of the whole image; otherwise a square grid) and drawn over the
image.

Attention weights exist only with eager attention: the model is switched to ``eager`` for the run (and back after),
or load it with ``attn_implementation=eager``. The image tokens are found in the ``input_ids`` of the model's own
forward call, so a backend must call it: lmms-eval's ``internvl3`` backend (OpenGVLab's remote code) goes through
``chat()`` -> ``language_model.generate(inputs_embeds=...)`` and never does; it is refused with a message pointing at
``internvl_hf``. Every hook added here is marked (:func:`ambi_plugin.analysis.hooks.mark_owned`) and removed in
``finally``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ambi_plugin.analysis.driver import model_driver
from ambi_plugin.analysis.heads import find_head_modules, unwrap_model
from ambi_plugin.analysis.hooks import mark_owned

__all__ = ["VisualizationError", "attention_to_image", "visualize"]


class VisualizationError(RuntimeError):
    """The A.8 attention map cannot be computed for this model or backend."""


def _refuse_remote_internvl(model: Any) -> None:
    if hasattr(model, "img_context_token_id") and callable(getattr(model, "chat", None)):
        raise VisualizationError(
            f"{type(model).__name__} (InternVL remote code, lmms-eval's 'internvl3' backend) generates through "
            "chat() -> language_model.generate(inputs_embeds=...), so the prompt's token ids never reach a forward "
            "call and the image tokens cannot be located. Run `visualize` with --model internvl_hf and the HF-format "
            "checkpoint instead (e.g. pretrained=OpenGVLab/InternVL3-2B-hf); capture and interventions hook o_proj "
            "and do not need this."
        )


def _image_token_id(model: Any) -> int | None:
    cfg = model.config
    for key in ("image_token_id", "image_token_index"):
        if getattr(cfg, key, None) is not None:
            return int(getattr(cfg, key))
    return None


def _tile_tokens(config: Any) -> int | None:
    """Image tokens per tile of an InternVL-style model: ``((image_size / patch_size) * downsample_ratio) ** 2``."""
    vision, ratio = getattr(config, "vision_config", None), getattr(config, "downsample_ratio", None)
    if vision is None or not ratio:
        return None
    size, patch = getattr(vision, "image_size", None), getattr(vision, "patch_size", None)
    size = size[0] if isinstance(size, (list, tuple)) else size
    patch = patch[0] if isinstance(patch, (list, tuple)) else patch
    if not size or not patch:
        return None
    side = int(round(size / patch * ratio))
    return side * side


def _grid(n_tokens: int, grid_thw: Any, merge: int, tile: int | None = None) -> tuple[int, int, int]:
    """(rows, cols, first token used): the patch grid of the image tokens, or of their last tile (the thumbnail)."""
    if grid_thw is not None:
        t, h, w = (int(v) for v in grid_thw[0])
        if (h // merge) * (w // merge) * t == n_tokens:
            return h // merge, (w // merge) * t, 0
    if tile and n_tokens > tile and n_tokens % tile == 0 and math.isqrt(tile) ** 2 == tile:
        side = math.isqrt(tile)
        return side, side, n_tokens - tile
    side = int(math.isqrt(n_tokens))
    if side * side == n_tokens:
        return side, side, 0
    return 1, n_tokens, 0


def attention_to_image(lm: Any, prompt: str, images: Sequence[str], *, layer: int | None = None,
                       gen_kwargs: dict | None = None) -> tuple[str, np.ndarray, int]:  # fmt: skip
    """(answer, patch-grid attention map, layer) for one generation through the backend ``lm``."""
    model = unwrap_model(lm)
    _refuse_remote_internvl(model)
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
        if weights is None:  # not raised here: some backends swallow exceptions raised while they generate
            seen["no_weights"] = True
            return
        seen["rows"].append(weights[0, :, -1, :].float().mean(0).detach().cpu())  # heads averaged, newest position

    previous = getattr(model.config, "_attn_implementation", None)
    switch = previous != "eager" and hasattr(model, "set_attn_implementation")
    handles = []
    try:
        if switch:
            model.set_attn_implementation("eager")
        handles.append(model.register_forward_pre_hook(mark_owned(top_pre), with_kwargs=True))
        visual = getattr(model, "visual", None) or getattr(getattr(model, "model", None), "visual", None)
        if visual is not None:
            handles.append(visual.register_forward_pre_hook(mark_owned(visual_pre), with_kwargs=True))
        handles.append(attn_module.register_forward_hook(mark_owned(attn_out)))
        answer = model_driver(lm, gen_kwargs=gen_kwargs).generate(prompt, images)
    finally:
        for h in handles:
            h.remove()
        if switch and previous:
            model.set_attn_implementation(previous)
    ids = seen.get("input_ids")
    tok = _image_token_id(model)
    if ids is None:
        raise VisualizationError(
            f"the backend never called {type(model).__name__}'s forward with input_ids, so the image tokens cannot be "
            "located; use a backend that generates through the model's own generate() (qwen2_5_vl, llava_hf, "
            "internvl_hf)"
        )
    if tok is None:
        raise VisualizationError(f"{type(model).__name__}'s config has no image_token_id / image_token_index")
    if seen.get("no_weights"):
        raise VisualizationError(
            f"layer {layer}'s attention module returned no weights: load the model with attn_implementation=eager"
        )
    if not seen["rows"]:
        raise VisualizationError(f"layer {layer}'s attention module never ran during generation")
    positions = (ids[0] == tok).nonzero().flatten()
    if len(positions) == 0:
        raise VisualizationError("the prompt holds no image token (was the image passed to the backend?)")
    merge = int(getattr(getattr(model.config, "vision_config", None), "spatial_merge_size", 1) or 1)
    h, w, first = _grid(len(positions), seen.get("grid"), merge, _tile_tokens(model.config))
    positions = positions[first : first + h * w]
    rows = [r[positions] for r in seen["rows"] if r.shape[0] >= int(positions.max()) + 1]
    mean = np.stack([r.numpy() for r in rows]).mean(0)
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
