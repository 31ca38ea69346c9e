"""Tiny Qwen2.5-VL models (4 layers x 8 query heads, 4 K/V heads) with planted causal heads and everything else
intact (every other head, every MLP, the embeddings), loaded through lmms-eval's ``qwen2_5_vl`` backend, and the
switching scores of a set of patch items (the capture's recorder on the same prompts).

A planted head's ``o_proj`` columns are multiplied by ``scale`` (64): its output then outweighs the rest of the
residual stream at the last position, so what it carries decides the next token, yet the other heads and MLPs still
compute (and still change between the prompts). ``hidden`` adds a large constant to one dimension of the head's
output (its K/V group's ``v_proj`` bias) that ``o_proj`` does not read (that column is zeroed for the two query heads
of the group): the head stays causal while its output barely changes direction between prompts, so its switching
score ``s`` is low."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from ambi_plugin.cli.demo import TINY_MODEL_ARGS

from .tiny_models import preload_qwen_backend

preload_qwen_backend()

N_LAYERS, N_HEADS, HEAD_DIM = 4, 8, 8


def save_planted(
    folder: Path, *, seed: int, heads: Sequence[tuple[int, int]] = (), scale: float = 64.0, hidden: float = 0.0
) -> Path:
    """A tiny Qwen2.5-VL folder (random weights of ``seed``) with ``heads`` planted (see the module docstring)."""
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration

    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    src = folder.parent / f"{folder.name}_src"
    make_tiny_qwen2_5_vl(src, seed=seed, num_heads=N_HEADS, text_layers=N_LAYERS)
    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(src).eval()
    d, per_group = HEAD_DIM, N_HEADS // model.config.text_config.num_key_value_heads
    with torch.no_grad():
        for layer, head in heads:
            attn = model.model.language_model.layers[layer].self_attn
            attn.o_proj.weight[:, head * d : (head + 1) * d] *= scale
            if hidden:
                group = head // per_group
                attn.v_proj.bias[group * d] = hidden
                for h in range(group * per_group, (group + 1) * per_group):
                    attn.o_proj.weight[:, h * d] = 0.0
    model.save_pretrained(folder)
    AutoProcessor.from_pretrained(src).save_pretrained(folder)
    return folder


def load_float32(folder: Path):
    """lmms-eval's ``qwen2_5_vl`` backend on the folder, its model cast to float32 (the backend loads bfloat16: on a
    CPU float32 is faster, and the effects are not blurred by 8-bit mantissas)."""
    from ambi_plugin.analysis.heads import unwrap_model
    from ambi_plugin.lmms.analysis_driver import load_backend

    lm = load_backend("qwen2_5_vl", f"pretrained={folder},{TINY_MODEL_ARGS}")
    unwrap_model(lm).float()
    return lm


def switch_scores(lm, items) -> np.ndarray:
    """``s`` (layers x heads) over ``items`` (PatchItems) at the last prompt token, recorded the way the capture
    records (HeadRecorder through the backend's generate)."""
    from ambi_plugin.analysis.capture import HeadRecorder
    from ambi_plugin.analysis.driver import model_driver
    from ambi_plugin.analysis.hooks import HookSet
    from ambi_plugin.analysis.scores import switching_scores

    hooks = HookSet(lm)
    rec = HeadRecorder(hooks)
    driver = model_driver(lm, gen_kwargs={"max_new_tokens": 1})
    pre, post = [], []
    with hooks:
        for it in items:
            for prompt, out in ((it.prompt_a, pre), (it.prompt_b, post)):
                rec.start()
                driver.generate(prompt, it.images)
                out.append(rec.result())
    return switching_scores(np.stack(pre), np.stack(post)).s


def rank_of(values: np.ndarray, head: tuple[int, int]) -> int:
    """1-based rank of ``head`` in ``values`` (highest first; NaN last)."""
    v = np.nan_to_num(np.asarray(values, dtype=float), nan=-np.inf).ravel()
    return int((v > v[head[0] * values.shape[1] + head[1]]).sum()) + 1
