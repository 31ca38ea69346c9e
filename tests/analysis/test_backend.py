"""Capture, interventions and the A.8 overlay through lmms-eval's own qwen2_5_vl backend (tiny random model, CPU)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.attention import visualize
from ambi_plugin.analysis.collect import capture_category, load_activations, load_items
from ambi_plugin.analysis.heads import find_head_modules, unwrap_model
from ambi_plugin.analysis.hooks import remaining_hooks
from ambi_plugin.analysis.interventions import HeadsSpec, write_heads_file
from ambi_plugin.cli.demo import TINY_MODEL_ARGS
from ambi_plugin.lmms.analysis_driver import BackendModel, load_backend
from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

from .tiny_models import hook_count


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return make_tiny_qwen2_5_vl(tmp_path_factory.mktemp("tiny") / "qwen")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("recs")
    rows = []
    for i, (a, b) in enumerate([("duck", "rabbit"), ("vase", "face"), ("old woman", "young woman")]):
        Image.new("RGB", (64, 48), (40 * i, 90, 200 - 30 * i)).save(root / f"img{i}.png")
        rows.append({"id": f"b{i}", "benchmark": "ambibench", "category": "bistable", "task_type": "open",
                     "image": f"img{i}.png", "views": [{"name": "i1", "labels": [a]}, {"name": "i2", "labels": [b]}],
                     "views_positional": False})  # fmt: skip
    (root / "bistable_open.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return load_items(str(root / "bistable_open.jsonl"), "bistable")


@pytest.fixture(scope="module")
def lm(tiny_dir):
    return load_backend("qwen2_5_vl", f"pretrained={tiny_dir},{TINY_MODEL_ARGS}")


def test_capture_through_the_backend_is_resumable(lm, records, tmp_path):
    calls = []
    original = lm.generate_until
    lm.generate_until = lambda reqs: calls.append(1) or original(reqs)
    try:
        first = capture_category(
            lm, records[:2], tmp_path, category="bistable", rule="differs", gen_kwargs={"max_new_tokens": 3}
        )
        assert len(calls) == 4 and first.n_items == 2
        again = capture_category(
            lm, records, tmp_path, category="bistable", rule="differs", gen_kwargs={"max_new_tokens": 3}
        )
        assert len(calls) == 6, "an interrupted capture must keep what it captured"
    finally:
        lm.generate_until = original
    assert again.n_items == 3
    acts = load_activations(tmp_path / "bistable")
    assert acts["pre"].shape == acts["post"].shape == (3, 4, 4, 16)
    assert list(acts["ids"]) == ["b0", "b1", "b2"]
    summary = json.loads((tmp_path / "bistable" / "capture.json").read_text())
    assert summary["prompts_are_ours"] and summary["layout"]["n_heads"] == 4 and summary["position"] == "last_prompt"
    # stored at 16 bits (bfloat16 bits), the dtype recorded; loaded back as float32
    assert summary["stored_dtype"] == "bfloat16" and summary["bytes_per_image"] == 2 * 4 * 4 * 16 * 2
    with np.load(tmp_path / "bistable" / "activations.npz") as z:
        assert z["pre"].dtype == np.uint16 and str(z["dtype"]) == "bfloat16"
    assert acts["pre"].dtype == np.float32 and np.abs(acts["pre"]).sum() > 0
    one = next((tmp_path / "bistable" / "acts").glob("*.npz"))
    with np.load(one) as z:
        assert z["pre"].nbytes + z["post"].nbytes == summary["bytes_per_image"]
    assert len(summary["items"]) == 3 and all(it["second"] for it in summary["items"])
    assert remaining_hooks(lm) == []


def test_capture_through_the_backend_runs_no_hook_while_decoding(lm, records, tmp_path, monkeypatch):
    """At last_prompt, our hooks run once per layer for each prompt and never for a generated token."""
    from ambi_plugin.analysis.hooks import HookSet

    calls = [0]
    make_hook = HookSet._make_hook

    def counting(self, layer):
        hook = make_hook(self, layer)

        def wrapper(module, args):
            calls[0] += 1
            return hook(module, args)

        return wrapper

    monkeypatch.setattr(HookSet, "_make_hook", counting)
    forwards = [0]
    head = unwrap_model(lm).lm_head.register_forward_hook(lambda m, a, o: forwards.__setitem__(0, forwards[0] + 1))
    try:
        capture_category(
            lm, records[:1], tmp_path, category="bistable", rule="differs", gen_kwargs={"max_new_tokens": 6}
        )
    finally:
        head.remove()
    assert forwards[0] == 2 * 6, "two prompts, six forwards each (the prompt and five decoding steps)"
    assert calls[0] == 2 * 4, "4 layers x 2 prompts: 0 calls per generated token"
    assert remaining_hooks(lm) == []


def test_capture_resumes_past_a_torn_line_and_a_truncated_npz(lm, records, tmp_path, capsys):
    """A run killed while writing: the last items line is torn and one acts/*.npz is cut short. The next run
    drops the torn line (cut from the file), captures both images again and says so."""
    from ambi_plugin.analysis.collect import _key

    kw = {"category": "bistable", "rule": "differs", "gen_kwargs": {"max_new_tokens": 3}}
    capture_category(lm, records[:2], tmp_path, **kw)
    folder = tmp_path / "bistable"
    items = folder / "items.rank0.jsonl"
    with items.open("a", encoding="utf-8") as fh:
        fh.write('{"id": "b2", "first": "a du')  # torn: no end, no newline
    acts = folder / "acts" / f"{_key('b1')}.npz"
    acts.write_bytes(acts.read_bytes()[: acts.stat().st_size // 2])
    capsys.readouterr()
    calls = []
    original = lm.generate_until
    lm.generate_until = lambda reqs: calls.append(1) or original(reqs)
    try:
        again = capture_category(lm, records, tmp_path, **kw)
    finally:
        lm.generate_until = original
    out = capsys.readouterr().out
    assert f"{items}: dropped a torn last line" in out
    assert f"{acts}: truncated or unreadable activations of image id='b1'" in out
    assert len(calls) == 4  # b1 (truncated activations) and b2 (torn line), two prompts each; b0 kept
    assert again.n_items == 3 and list(load_activations(folder)["ids"]) == ["b0", "b1", "b2"]
    lines = items.read_text(encoding="utf-8").splitlines()
    assert all(json.loads(ln)["id"] for ln in lines) and [json.loads(ln)["id"] for ln in lines][-2:] == ["b1", "b2"]


def _first_o_proj_input(lm, layer: int, image: str) -> torch.Tensor:
    _, module = find_head_modules(lm)[layer]
    seen = []

    def grab(mod, args, out):
        if not seen:
            seen.append(args[0][0].detach().clone())

    handle = module.register_forward_hook(grab)
    try:
        BackendModel(lm, gen_kwargs={"max_new_tokens": 2}).generate("what is this", [image])
    finally:
        handle.remove()
    return seen[0]


def test_ambi_intervene_from_lmms_eval_registry_masks_exactly(tiny_dir, records, lm):
    from lmms_eval import models

    image = records[0]["image"]
    base = _first_o_proj_input(lm, 1, image).view(-1, 4, 16)
    heads = tiny_dir.parent / "heads.json"
    heads.write_text(json.dumps({"heads": [[1, 2]]}))
    cls = models.get_model("ambi_intervene")
    wrapped = cls.create_from_arg_string(
        f"base=qwen2_5_vl,pretrained={tiny_dir},{TINY_MODEL_ARGS},heads={heads},mode=mask,epsilon=0.001"
    )
    assert wrapped.ambi_intervention["mode"] == "mask" and wrapped.ambi_intervention["heads"] == [[1, 2]]
    got = _first_o_proj_input(wrapped, 1, image).view(-1, 4, 16)
    assert torch.equal(got[:, 2], base[:, 2] * torch.tensor(1e-3, dtype=base.dtype))
    assert torch.equal(got[:, [0, 1, 3]], base[:, [0, 1, 3]])
    assert remaining_hooks(wrapped) == []
    control = cls.create_from_arg_string(
        f"base=qwen2_5_vl,pretrained={tiny_dir},{TINY_MODEL_ARGS},heads={heads},mode=mask,random_seed=1"
    )
    assert control.ambi_intervention["heads"] != [[1, 2]] and len(control.ambi_intervention["heads"]) == 1
    with pytest.raises(ValueError, match="base="):
        cls.create_from_arg_string(f"pretrained={tiny_dir}")


def test_ambi_intervene_iti_shift_is_exact(tiny_dir, records, lm):
    """mode=iti through the registry: head (2, 1) gets exactly + alpha * sigma * direction, the others nothing."""
    from lmms_eval import models

    image = records[0]["image"]
    base = _first_o_proj_input(lm, 2, image).view(-1, 4, 16)
    rng = np.random.default_rng(7)
    d = rng.normal(size=16)
    d /= np.linalg.norm(d)
    heads = tiny_dir.parent / "iti.json"
    write_heads_file(heads, HeadsSpec([(2, 1)], [d.tolist()], [2.5]))
    wrapped = models.get_model("ambi_intervene").create_from_arg_string(
        f"base=qwen2_5_vl,pretrained={tiny_dir},{TINY_MODEL_ARGS},heads={heads},mode=iti,alpha=0.3"
    )
    got = _first_o_proj_input(wrapped, 2, image).view(-1, 4, 16)
    shift = torch.tensor(0.3 * 2.5 * d, dtype=torch.float64)
    # exact in the model's own dtype (the backend loads bfloat16 here): x + (alpha * sigma * dir), one rounding
    assert torch.equal(got[:, 1], base[:, 1] + shift.to(base.dtype))
    torch.testing.assert_close((got[:, 1] - base[:, 1]).double().mean(0), shift, rtol=0, atol=0.02)
    assert torch.equal(got[:, [0, 2, 3]], base[:, [0, 2, 3]])
    assert remaining_hooks(wrapped) == []


def _logits_and_answer(lm, image: str) -> tuple[torch.Tensor, str]:
    """The prompt's next-token logits (lm_head's first call) and the answer, through the backend."""
    head = unwrap_model(lm).lm_head
    seen = []
    handle = head.register_forward_hook(lambda m, a, out: seen.append(out[0, -1].detach().clone()))
    try:
        answer = BackendModel(lm, gen_kwargs={"max_new_tokens": 4}).generate("what is this", [image])
    finally:
        handle.remove()
    return seen[0], answer


def test_masking_planted_heads_changes_the_output(tiny_dir, records, lm):
    """An intervention is not a no-op: masking every head of layers 0-1 moves the logits; mode=none does not."""
    from lmms_eval import models

    image = records[0]["image"]
    base_logits, _ = _logits_and_answer(lm, image)
    heads = tiny_dir.parent / "planted.json"
    heads.write_text(json.dumps({"heads": [[layer, h] for layer in (0, 1) for h in range(4)]}))
    cls = models.get_model("ambi_intervene")
    none = cls.create_from_arg_string(f"base=qwen2_5_vl,pretrained={tiny_dir},{TINY_MODEL_ARGS},mode=none")
    masked = cls.create_from_arg_string(
        f"base=qwen2_5_vl,pretrained={tiny_dir},{TINY_MODEL_ARGS},heads={heads},mode=mask"
    )
    none_logits, _ = _logits_and_answer(none, image)
    masked_logits, _ = _logits_and_answer(masked, image)
    assert torch.equal(none_logits, base_logits)
    assert float((masked_logits - base_logits).abs().max()) > 0.1 * float(base_logits.abs().max())
    assert remaining_hooks(masked) == [] and remaining_hooks(none) == []


def test_attention_overlay_on_patch_grid(lm, records, tmp_path):
    before = hook_count(unwrap_model(lm))
    seen_during = {}
    original = lm.generate_until

    def spy(reqs):  # counts the hooks installed while the backend generates
        seen_during["ours"] = len(remaining_hooks(lm))
        seen_during["all"] = hook_count(unwrap_model(lm))
        return original(reqs)

    lm.generate_until = spy
    try:
        info = visualize(
            lm, "what is this", records[0]["image"], tmp_path / "att.png", gen_kwargs={"max_new_tokens": 3}
        )
    finally:
        lm.generate_until = original
    assert seen_during == {"ours": 3, "all": before + 3}, "top-level, vision-tower and layer-2 attention hooks"
    assert remaining_hooks(lm) == [] and hook_count(unwrap_model(lm)) == before
    assert info["layer"] == 2  # half of 4 layers
    grid = np.load(info["grid"])
    assert grid.ndim == 2 and min(grid.shape) > 1, "image tokens laid out on the merged patch grid (rows x cols)"
    assert grid.size >= 4 and np.all(grid >= 0) and grid.sum() > 0
    assert (tmp_path / "att.png").read_bytes()[:4] == b"\x89PNG"
    assert remaining_hooks(lm) == []


def test_llava_hf_backend_gqa_capture_and_intervene(tmp_path, records):
    """lmms-eval's llava_hf backend on a tiny LLaVA whose Llama text model has 8 query and 2 K/V heads."""
    from lmms_eval import models

    from .tiny_models import save_tiny_llava

    folder = save_tiny_llava(tmp_path / "llava")
    margs = f"pretrained={folder},device=cpu,device_map=cpu"
    lm = load_backend("llava_hf", margs)
    summary = capture_category(
        lm, records[:1], tmp_path / "cap", category="bistable", rule="differs", gen_kwargs={"max_new_tokens": 3}
    )
    assert summary.n_items == 1
    assert load_activations(tmp_path / "cap" / "bistable")["pre"].shape == (1, 3, 8, 8)  # query heads, not K/V heads
    heads = tmp_path / "heads.json"
    heads.write_text(json.dumps({"heads": [[2, 6]]}))
    base = _first_o_proj_input(lm, 2, records[0]["image"]).view(-1, 8, 8)
    wrapped = models.get_model("ambi_intervene").create_from_arg_string(
        f"base=llava_hf,{margs},heads={heads},mode=mask"
    )
    got = _first_o_proj_input(wrapped, 2, records[0]["image"]).view(-1, 8, 8)
    assert torch.equal(got[:, 6], base[:, 6] * torch.tensor(1e-3, dtype=base.dtype))
    assert torch.equal(got[:, :6], base[:, :6]) and torch.equal(got[:, 7], base[:, 7])
    assert remaining_hooks(wrapped) == [] and remaining_hooks(lm) == []
