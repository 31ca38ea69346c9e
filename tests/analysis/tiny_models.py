"""Tiny random models for the analysis tests: Qwen2.5-VL (via ambi make-tiny-model) and a LLaVA with a GQA Llama."""

from __future__ import annotations

from pathlib import Path

import torch


def preload_qwen_backend() -> None:
    """Import lmms-eval's ``qwen2_5_vl`` backend and transformers' Qwen2.5-VL classes now. Called when a test module
    is imported (collected): a mutation run (bench/mutation.py) forks each mutant's tests from the process that
    collected them, so these imports (tens of seconds on a busy machine) are paid once, not once per mutant."""
    from lmms_eval import models
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration  # noqa: F401

    models.get_model("qwen2_5_vl")


def hook_count(model) -> int:
    """Every forward and forward-pre hook on every module, whoever installed it."""
    return sum(len(m._forward_pre_hooks) + len(m._forward_hooks) for m in model.modules())


def tiny_qwen(tmp: Path):
    """(model, processor) of the project's tiny Qwen2.5-VL: 4 layers, 4 query heads, 2 K/V heads (GQA)."""
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration

    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    folder = make_tiny_qwen2_5_vl(tmp / "tiny_qwen")
    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(folder, attn_implementation="eager").eval()
    return model, AutoProcessor.from_pretrained(folder), folder


def tiny_llava(*, heads: int = 8, kv_heads: int = 2, layers: int = 3, hidden: int = 64, seed: int = 0):
    """A random LlavaForConditionalGeneration whose Llama text model has ``heads`` query and ``kv_heads`` K/V heads."""
    from transformers import LlavaConfig, LlavaForConditionalGeneration

    config = LlavaConfig(
        text_config={
            "model_type": "llama",
            "hidden_size": hidden,
            "num_hidden_layers": layers,
            "num_attention_heads": heads,
            "num_key_value_heads": kv_heads,
            "intermediate_size": 2 * hidden,
            "vocab_size": 120,
            "initializer_range": 0.5,
        },  # fmt: skip
        vision_config={
            "model_type": "clip_vision_model",
            "hidden_size": 32,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "intermediate_size": 32,
            "image_size": 28,
            "patch_size": 14,
        },  # fmt: skip
        image_token_index=100,
    )
    config.text_config._attn_implementation = "eager"
    torch.manual_seed(seed)
    return LlavaForConditionalGeneration(config).eval()


def qwen_inputs(processor, text: str = "what do you see", size: int = 56):
    from PIL import Image

    img = Image.new("RGB", (size, size), (200, 30, 30))
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
    prompt = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return processor(text=[prompt], images=[img], return_tensors="pt")


LLAVA_TEMPLATE = (
    "{% for m in messages %}{{ m['role'] | upper }}: {% if m['content'] is string %}{{ m['content'] }}{% else %}"
    "{% for p in m['content'] %}{% if p['type'] == 'image' %}<image>\n{% elif p['type'] == 'text' %}{{ p['text'] }}"
    "{% endif %}{% endfor %}{% endif %}\n{% endfor %}{% if add_generation_prompt %}ASSISTANT:{% endif %}"
)


def save_tiny_llava(folder: Path, *, heads: int = 8, kv_heads: int = 2) -> Path:
    """A tiny LLaVA folder (model + LlavaProcessor) that lmms-eval's ``llava_hf`` backend loads; GQA text model."""
    from transformers import AutoTokenizer, CLIPImageProcessor, LlavaProcessor

    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    qwen = make_tiny_qwen2_5_vl(folder.parent / (folder.name + "_tok"))
    tok = AutoTokenizer.from_pretrained(qwen)
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    image_id = tok.convert_tokens_to_ids("<image>")
    model = tiny_llava(heads=heads, kv_heads=kv_heads)
    model.resize_token_embeddings(len(tok))
    model.config.image_token_index = model.config.image_token_id = image_id
    model.config.pad_token_id = tok.pad_token_id
    model.config.text_config._attn_implementation = None
    proc = LlavaProcessor(
        image_processor=CLIPImageProcessor(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28}),
        tokenizer=tok,
        patch_size=14,
        vision_feature_select_strategy="default",
        chat_template=LLAVA_TEMPLATE,
        image_token="<image>",
        num_additional_image_tokens=1,
    )
    model.save_pretrained(folder)
    proc.save_pretrained(folder)
    return folder


INTERNVL_TOKENS = {
    "start_image_token": "<img>",
    "end_image_token": "</img>",
    "context_image_token": "<IMG_CONTEXT>",
    "video_token": "<video>",
}


def save_tiny_internvl(folder: Path, *, heads: int = 8, kv_heads: int = 2, layers: int = 3, seed: int = 0) -> Path:
    """A tiny HF-native InternVL folder (InternVLForConditionalGeneration + InternVLProcessor) that lmms-eval's
    ``internvl_hf`` backend loads: Qwen2 text model with ``heads`` query and ``kv_heads`` K/V heads (GQA, as in
    InternVL3), a 1-layer InternViT, 56 px tiles of 8 x 8 patches -> 16 image tokens per tile after pixel shuffle."""
    from transformers import (
        AutoTokenizer,
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
    )
    from transformers.models.internvl.video_processing_internvl import InternVLVideoProcessor

    from ambi_plugin.models.tiny_qwen import CHAT_TEMPLATE, make_tiny_qwen2_5_vl

    qwen = make_tiny_qwen2_5_vl(folder.parent / (folder.name + "_tok"))
    tok = AutoTokenizer.from_pretrained(qwen, extra_special_tokens=INTERNVL_TOKENS)
    template = CHAT_TEMPLATE.replace("'<|vision_start|><|image_pad|><|vision_end|>'", "'<IMG_CONTEXT>\\n'")
    assert template != CHAT_TEMPLATE
    special = dict(eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, bos_token_id=tok.pad_token_id)
    config = InternVLConfig(
        text_config={"model_type": "qwen2", "vocab_size": len(tok), "hidden_size": 64, "intermediate_size": 128,
                     "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv_heads,
                     "initializer_range": 0.5, "max_position_embeddings": 4096, **special},
        vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
                       "image_size": [56, 56], "patch_size": [7, 7], "initializer_range": 0.5},
        image_token_id=tok.context_image_token_id, downsample_ratio=0.5, **special,
    )  # fmt: skip
    config.ambi_random_weights = True
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = InternVLForConditionalGeneration(config).eval()
    with torch.no_grad():  # like the tiny Qwen: special tokens never win, so generation runs to max_new_tokens
        model.lm_head.weight[tok.all_special_ids] = 0.0
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    proc = InternVLProcessor(
        image_processor=GotOcr2ImageProcessor(size={"height": 56, "width": 56}, crop_to_patches=True),
        tokenizer=tok,
        video_processor=InternVLVideoProcessor(size={"height": 56, "width": 56}),
        image_seq_length=16,
        chat_template=template,
    )
    model.save_pretrained(folder)
    proc.save_pretrained(folder)
    return folder


PLANTED = (2, 1)  # layer, query head of the planted switch head in save_planted_qwen


def save_planted_qwen(folder: Path, *, layer: int = PLANTED[0], head: int = PLANTED[1], scale: float = 4.0) -> Path:
    """The tiny Qwen2.5-VL with one planted switch head: in every layer the o_proj columns of every other query head
    and the MLP output are zero, so the last prompt position's residual is its token embedding plus head
    ``(layer, head)``'s output (times ``scale``). Whatever changes the next token between two prompts that end in the
    same token goes through that head alone; its same-KV sibling and every other head carry nothing."""
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration

    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    src = make_tiny_qwen2_5_vl(folder.parent / (folder.name + "_src"))
    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(src).eval()
    layers = model.model.language_model.layers
    d = model.config.text_config.hidden_size // model.config.text_config.num_attention_heads
    with torch.no_grad():
        for i, block in enumerate(layers):
            w = block.self_attn.o_proj.weight
            keep = w[:, head * d : (head + 1) * d].clone() * scale
            w.zero_()
            if i == layer:
                w[:, head * d : (head + 1) * d] = keep
            block.mlp.down_proj.weight.zero_()
    model.save_pretrained(folder)
    AutoProcessor.from_pretrained(src).save_pretrained(folder)
    return folder
