"""Head discovery, layout and per-head split on Qwen2.5-VL and LLaVA layouts (grouped-query attention included)."""

from __future__ import annotations

import math

import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder, parse_position
from ambi_plugin.analysis.heads import HeadLayoutError, find_head_modules, head_layout
from ambi_plugin.analysis.hooks import HookSet

from .tiny_models import qwen_inputs, tiny_llava, tiny_qwen


def test_qwen_layout_matches_config_and_skips_vision(tmp_path):
    model, _, _ = tiny_qwen(tmp_path)
    cfg = model.config.text_config
    layout = head_layout(model)
    assert layout.shape == (cfg.num_hidden_layers, cfg.num_attention_heads)
    assert layout.head_dim == cfg.hidden_size // cfg.num_attention_heads
    assert layout.n_kv_heads == cfg.num_key_value_heads < cfg.num_attention_heads  # GQA
    assert all("visual" not in n and n.endswith("self_attn.o_proj") for n in layout.names)


@pytest.mark.parametrize("heads,kv", [(8, 2), (4, 4), (8, 1)])
def test_llava_layout_gqa(heads, kv):
    model = tiny_llava(heads=heads, kv_heads=kv)
    layout = head_layout(model)
    assert layout.shape == (3, heads)
    assert layout.head_dim == 64 // heads
    assert layout.n_kv_heads == kv
    assert not any("vision" in n for n in layout.names)


def test_bad_pattern_says_what_to_do():
    with pytest.raises(HeadLayoutError, match="InternLM2"):
        find_head_modules(tiny_llava(), r"layers\.(\d+)\.attention\.wo$")


def _rotate_half(x):
    a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-b, a), dim=-1)


def test_llava_gqa_heads_equal_a_hand_written_attention_forward():
    """Our head h at the last token = softmax(q_h k_g^T / sqrt(d)) v_g by hand, g = the K/V group of query head h."""
    model = tiny_llava(heads=8, kv_heads=2)
    layer = 1
    attn = model.model.language_model.layers[layer].self_attn
    seen = {}

    def grab(module, args, kwargs):
        seen["h"] = kwargs.get("hidden_states", args[0] if args else None)
        seen["pe"] = kwargs["position_embeddings"]

    ids = torch.tensor([[5, 17, 33, 2, 41, 9]])
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position="last_prompt")
    handle = attn.register_forward_pre_hook(grab, with_kwargs=True)
    try:
        with hooks, torch.no_grad():
            rec.start()
            model(input_ids=ids)
    finally:
        handle.remove()
    got = rec.result()[layer]  # [heads, dim]

    h, (cos, sin) = seen["h"], seen["pe"]
    n_h, n_kv, d = 8, 2, 8
    with torch.no_grad():
        q = attn.q_proj(h).view(1, -1, n_h, d).transpose(1, 2)
        k = attn.k_proj(h).view(1, -1, n_kv, d).transpose(1, 2)
        v = attn.v_proj(h).view(1, -1, n_kv, d).transpose(1, 2)
        q = q * cos.unsqueeze(1) + _rotate_half(q) * sin.unsqueeze(1)
        k = k * cos.unsqueeze(1) + _rotate_half(k) * sin.unsqueeze(1)
        k, v = k.repeat_interleave(n_h // n_kv, dim=1), v.repeat_interleave(n_h // n_kv, dim=1)
        s = q @ k.transpose(-1, -2) / math.sqrt(d)
        s = s + torch.triu(torch.full(s.shape[-2:], float("-inf")), diagonal=1)
        ref = (torch.softmax(s.float(), -1) @ v)[0, :, -1, :]  # [heads, dim]
    assert got.shape == (n_h, d)
    torch.testing.assert_close(torch.from_numpy(got), ref, rtol=1e-4, atol=1e-5)


def test_qwen_heads_rebuild_the_attention_output(tmp_path):
    """o_proj(concat of our per-head vectors) equals the attention block's own output at the recorded token."""
    model, processor, _ = tiny_qwen(tmp_path)
    inputs = qwen_inputs(processor)
    layer = 2
    attn = model.model.language_model.layers[layer].self_attn
    seen = {}

    def grab(module, args, out):
        seen.setdefault("out", out[0][0, -1].detach())

    handle = attn.register_forward_hook(grab)
    hooks = HookSet(model)
    rec = HeadRecorder(hooks)
    try:
        with hooks, torch.no_grad():
            rec.start()
            model(**inputs)
    finally:
        handle.remove()
    acts = rec.result()
    assert acts.shape == (4, 4, 16)
    rebuilt = attn.o_proj(torch.from_numpy(acts[layer]).reshape(-1))
    torch.testing.assert_close(rebuilt, seen["out"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("position", ["mean_prompt", 0, -1])
def test_positions(position):
    model = tiny_llava()
    ids = torch.tensor([[5, 17, 33, 2]])
    captured = {}

    def grab(module, args):
        captured.setdefault("x", args[0][0].view(4, 8, 8).detach().clone())

    handle = model.model.language_model.layers[0].self_attn.o_proj.register_forward_pre_hook(grab)
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position=position)
    try:
        with hooks, torch.no_grad():
            rec.start()
            model(input_ids=ids)
    finally:
        handle.remove()
    want = captured["x"].mean(0) if position == "mean_prompt" else captured["x"][position]
    torch.testing.assert_close(torch.from_numpy(rec.result()[0]), want)


def test_parse_position_rejects_unknown():
    assert parse_position("-2") == -2
    with pytest.raises(ValueError, match="last_prompt"):
        parse_position("middle")


def test_mean_generated_is_the_mean_over_decoding_steps():
    """``mean_generated``: the mean of each decoding step's new position; the prompt (prefill) call is left out."""
    model = tiny_llava()
    ids = torch.tensor([[5, 17, 33, 2]])
    calls: list[torch.Tensor] = []

    def grab(module, args):
        calls.append(args[0][0, -1].view(8, 8).detach().clone())

    handle = model.model.language_model.layers[2].self_attn.o_proj.register_forward_pre_hook(grab)
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position="mean_generated")
    try:
        with hooks, torch.no_grad():
            rec.start()
            out = model.generate(input_ids=ids, max_new_tokens=5, min_new_tokens=5, do_sample=False, pad_token_id=0)
    finally:
        handle.remove()
    assert out.shape[1] == 4 + 5
    assert len(calls) == 5, "one prefill call and 4 decoding steps (the 5th token needs no forward)"
    want = torch.stack(calls[1:]).mean(0)
    got = torch.from_numpy(rec.result()[2])
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    assert not torch.allclose(got, calls[0], atol=1e-3), "the prompt's last position is not part of the mean"
    with torch.no_grad():  # a forward with no decoding step has nothing to average: said plainly
        rec.start()
        with hooks:
            model(input_ids=ids)
    with pytest.raises(RuntimeError, match="mean_generated"):
        rec.result()
