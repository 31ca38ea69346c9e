"""InternVL: layout, capture, masking and the A.8 overlay on a tiny HF-native InternVL through lmms-eval's
``internvl_hf`` backend; and the refusal of A.8 for the remote-code ``internvl3`` backend's chat() path.

lmms-eval's ``internvl3`` backend loads OpenGVLab's remote code (``trust_remote_code``) onto ``cuda:<rank>``; neither
runs here. Its module tree is reproduced below by a stand-in (``InternVLChatModel``: ``vision_model``, ``mlp1``,
``language_model`` = a Qwen2 causal LM, head counts in ``config.llm_config``) to check what our code reads from it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from PIL import Image

from ambi_plugin.analysis.attention import VisualizationError, _grid, visualize
from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.collect import capture_category, load_activations
from ambi_plugin.analysis.heads import find_head_modules, head_layout
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks
from ambi_plugin.lmms.analysis_driver import BackendModel, load_backend

from .tiny_models import hook_count, save_tiny_internvl


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return save_tiny_internvl(tmp_path_factory.mktemp("internvl") / "model")


@pytest.fixture(scope="module")
def lm(folder):
    return load_backend("internvl_hf", f"pretrained={folder},device=cpu,device_map=cpu,max_patches=4")


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    path = tmp_path_factory.mktemp("img") / "wide.png"
    Image.new("RGB", (112, 56), (30, 160, 90)).save(path)  # 2:1 -> two tiles + the thumbnail
    return str(path)


def test_internvl_layout_is_the_qwen2_text_model_with_gqa(folder):
    from transformers import InternVLForConditionalGeneration

    model = InternVLForConditionalGeneration.from_pretrained(folder)
    cfg = model.config.text_config
    layout = head_layout(model)
    assert layout.shape == (cfg.num_hidden_layers, cfg.num_attention_heads) == (3, 8)
    assert layout.head_dim == 8 and layout.n_kv_heads == 2
    assert all(n.startswith("model.language_model.layers.") for n in layout.names)


def test_internvl_hf_capture_records_the_o_proj_input(lm, image, tmp_path):
    _, o_proj = find_head_modules(lm)[1]
    seen = []
    handle = o_proj.register_forward_pre_hook(lambda m, a: seen.append(a[0][0, -1].detach().float().clone()))
    hooks = HookSet(lm)
    rec = HeadRecorder(hooks)
    try:
        with hooks:
            rec.start()
            answer = BackendModel(lm, gen_kwargs={"max_new_tokens": 3}).generate("what is this", [image])
    finally:
        handle.remove()
    assert answer.strip(), "internvl_hf swallows generation errors and answers '': it must have generated"
    acts = rec.result()
    assert acts.shape == (3, 8, 8)
    np.testing.assert_array_equal(acts[1], seen[0].view(8, 8).numpy())  # prompt's last token, per query head

    rows = [{"id": "w0", "benchmark": "ambibench", "category": "bistable", "task_type": "open", "image": image,
             "views": [{"name": "i1", "labels": ["duck"]}, {"name": "i2", "labels": ["rabbit"]}]}]  # fmt: skip
    summary = capture_category(
        lm, rows, tmp_path, category="bistable", rule="differs", gen_kwargs={"max_new_tokens": 3}
    )
    assert summary.n_items == 1
    assert load_activations(tmp_path / "bistable")["pre"].shape == (1, 3, 8, 8)
    assert remaining_hooks(lm) == []


def _first_o_proj_input(lm, layer: int, image: str) -> torch.Tensor:
    _, module = find_head_modules(lm)[layer]
    seen = []
    handle = module.register_forward_hook(lambda m, a, o: seen.append(a[0][0].detach().clone()) if not seen else None)
    try:
        BackendModel(lm, gen_kwargs={"max_new_tokens": 2}).generate("what is this", [image])
    finally:
        handle.remove()
    return seen[0]


def test_ambi_intervene_masks_an_internvl_query_head_exactly(lm, folder, image, tmp_path):
    from lmms_eval import models

    base = _first_o_proj_input(lm, 2, image).view(-1, 8, 8)
    heads = tmp_path / "heads.json"
    heads.write_text(json.dumps({"heads": [[2, 5]]}))
    wrapped = models.get_model("ambi_intervene").create_from_arg_string(
        f"base=internvl_hf,pretrained={folder},device=cpu,device_map=cpu,max_patches=4,heads={heads},mode=mask"
    )
    got = _first_o_proj_input(wrapped, 2, image).view(-1, 8, 8)
    assert torch.equal(got[:, 5], base[:, 5] * torch.tensor(1e-3, dtype=base.dtype))
    others = [h for h in range(8) if h != 5]
    assert torch.equal(got[:, others], base[:, others])
    assert remaining_hooks(wrapped) == []


def test_internvl_attention_overlay_uses_the_thumbnail_tile(lm, image, tmp_path):
    processor = lm.processor
    inputs = processor(text="<IMG_CONTEXT>", images=[Image.open(image)], max_patches=4)
    n_image_tokens = sum(int(t == lm.model.config.image_token_id) for t in inputs["input_ids"][0])
    assert n_image_tokens == 3 * 16, "two tiles and the thumbnail, 16 tokens each"
    before = hook_count(lm.model)
    info = visualize(lm, "what is this", image, tmp_path / "att.png", gen_kwargs={"max_new_tokens": 3})
    grid = np.load(info["grid"])
    assert info["layer"] == 1 and grid.shape == (4, 4), "the last tile (thumbnail): 4 x 4 tokens"
    assert np.all(grid >= 0) and grid.sum() > 0
    assert (tmp_path / "att.png").read_bytes()[:4] == b"\x89PNG"
    assert remaining_hooks(lm) == [] and hook_count(lm.model) == before
    assert _grid(48, None, 1, 16) == (4, 4, 32) and _grid(16, None, 1, 16) == (4, 4, 0)


class InternVLChatModel(torch.nn.Module):
    """Stand-in with the module tree and attributes of OpenGVLab's remote InternVL3 class (see module docstring)."""

    def __init__(self) -> None:
        from transformers import PretrainedConfig, Qwen2Config, Qwen2ForCausalLM

        super().__init__()
        llm = Qwen2Config(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2)  # fmt: skip
        self.config = PretrainedConfig()
        self.config.llm_config = llm
        self.vision_model = torch.nn.ModuleDict({"encoder": torch.nn.ModuleDict({"layers": torch.nn.ModuleList(
            [torch.nn.ModuleDict({"self_attn": torch.nn.ModuleDict({"o_proj": torch.nn.Linear(8, 8)})})])})})  # fmt: skip
        self.mlp1 = torch.nn.Linear(8, 32)
        self.language_model = Qwen2ForCausalLM(llm)
        self.img_context_token_id = None  # set by chat()

    def chat(self, *args, **kwargs):  # pragma: no cover - never called: the refusal comes first
        raise AssertionError("visualize must refuse before generating")


def test_remote_internvl3_layout_found_and_visualize_refused():
    model = InternVLChatModel()
    layout = head_layout(model)
    assert layout.shape == (2, 4) and layout.n_kv_heads == 2  # from config.llm_config; vision_model skipped
    assert all(n.startswith("language_model.model.layers.") for n in layout.names)
    with pytest.raises(VisualizationError, match="internvl_hf"):
        visualize(model, "what is this", "unused.png", "unused.png")
    assert remaining_hooks(model) == []
