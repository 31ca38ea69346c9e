"""Independent reference: TransformerLens's ``hook_z`` (per-head attention output) equals what HeadRecorder records.

TransformerLens 4.x boots a ``TransformerBridge`` around an already loaded HF model (our tiny Qwen2.5-VL). The bridge
wraps the model's modules in place, so our activations are computed first, on the untouched model.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.hooks import HookSet

from .tiny_models import qwen_inputs, tiny_qwen

pytest.importorskip(
    "transformer_lens.model_bridge",
    reason="transformer_lens is not installed (it is in the `dev` extra: pip install -e '.[dev]')",
)

POSITIONS = ("last_prompt", "mean_prompt", 0, 3)


def _ours(model, inputs: dict, position) -> np.ndarray:
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position=position)
    with hooks, torch.no_grad():
        rec.start()
        model(**inputs)
    return rec.result()


def _reference(cache, position, n_layers: int) -> np.ndarray:
    rows = []
    for layer in range(n_layers):
        z = cache[f"blocks.{layer}.attn.hook_z"][0].float()  # [seq, heads, head_dim]
        if position == "last_prompt":
            rows.append(z[-1])
        elif position == "mean_prompt":
            rows.append(z.mean(0))
        else:
            rows.append(z[position])
    return torch.stack(rows).numpy()


def test_head_vectors_equal_transformer_lens_hook_z(tmp_path):
    from transformer_lens.model_bridge import TransformerBridge

    model, processor, folder = tiny_qwen(tmp_path)
    with_image = dict(qwen_inputs(processor))
    cases = {"text": {"input_ids": with_image["input_ids"][:, :5]}, "image": with_image}
    ours = {(name, pos): _ours(model, kw, pos) for name, kw in cases.items() for pos in POSITIONS}

    bridge = TransformerBridge.boot_transformers(
        str(folder), device="cpu", hf_model=model, tokenizer=processor.tokenizer
    )
    cfg = model.config.text_config
    for name, kw in cases.items():
        kw = dict(kw)
        ids = kw.pop("input_ids")
        with torch.no_grad():
            _, cache = bridge.run_with_cache(ids, **kw)
        z0 = cache["blocks.0.attn.hook_z"]
        assert tuple(z0.shape) == (1, ids.shape[1], cfg.num_attention_heads, cfg.hidden_size // cfg.num_attention_heads)
        for pos in POSITIONS:
            got, ref = ours[(name, pos)], _reference(cache, pos, cfg.num_hidden_layers)
            assert got.shape == ref.shape == (4, 4, 16)
            for layer in range(got.shape[0]):
                for head in range(got.shape[1]):
                    np.testing.assert_allclose(
                        got[layer, head], ref[layer, head], rtol=0, atol=1e-6,
                        err_msg=f"{name} input, position {pos!r}: layer {layer} head {head} differs from hook_z",
                    )  # fmt: skip
            assert np.abs(got).max() > 0, "activations must not be trivially zero"
