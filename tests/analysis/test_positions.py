"""Token positions in the two prompts of a switched image (35 and 66 tokens on the tiny Qwen2.5-VL): a negative
position counts from the end of each prompt, a start-relative index is refused (it used to name the shared prefix,
where every head is identical in both prompts: s = 0 and a no-op patch, or raise an IndexError past the shorter
prompt), a position outside a prompt or on different tokens is refused with a message, in the capture and in the
patching alike."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.collect import capture_category
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks
from ambi_plugin.analysis.patching import PatchingError, PatchItem, patch_items
from ambi_plugin.analysis.positions import PositionError, check_same_token, paired_position
from ambi_plugin.analysis.prompts import first_prompt, second_prompt

from .planted import N_HEADS, load_float32, save_planted
from .tiny_models import tiny_llava

QUIET = {"progress": False, "say": lambda msg: None}
LEN_1, LEN_2, TAIL = (
    35,
    66,
    4,
)  # prompt lengths on this model and the tokens both end with ('.', im_end, im_start, assistant)


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_paired_positions_and_the_same_token_check():
    assert paired_position("last_prompt") == "last_prompt" and paired_position("-3") == -3
    assert paired_position("mean_prompt") == "mean_prompt"
    for bad in (0, "5", 40):
        with pytest.raises(PositionError, match="Count from the end instead"):
            paired_position(bad)
    a, b = [7, 8, 1, 2, 3], [7, 9, 9, 9, 1, 2, 3]  # different lengths, the same last three tokens
    for pos in (-1, -2, -3):
        check_same_token(pos, a, b)
    with pytest.raises(PositionError, match=r"token id 8 in prompt 1 and 9 in prompt 2.*-1\.\.-3"):
        check_same_token(-4, a, b)
    with pytest.raises(PositionError, match="outside prompt 1, which has 5 tokens"):
        check_same_token(-6, a, b)
    with pytest.raises(PositionError, match="outside the prompt, which has 4 tokens"):
        _record(tiny_llava(), torch.tensor([[5, 17, 33, 2]]), 7)  # a single sequence: said, not an IndexError


def _record(model, ids, position):
    hooks = HookSet(model)
    rec = HeadRecorder(hooks, position=position)
    with hooks, torch.no_grad():
        rec.start()
        model(input_ids=ids)
    return rec.result()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("pos")
    lm = load_float32(save_planted(root / "m", seed=0))
    rows = []
    for i in range(2):
        Image.new("RGB", (64, 48), (60 * i, 90, 200)).save(root / f"img{i}.png")
        rows.append({"id": f"b{i}", "image": str(root / f"img{i}.png"), "views": [{"name": "v", "labels": ["duck"]}]})
    return lm, rows, root


def _grab_layer(lm, layer):
    """Every call's full o_proj input of one layer (the reference for where a position lands)."""
    from ambi_plugin.analysis.heads import find_head_modules

    calls = []
    module = find_head_modules(lm)[layer][1]
    handle = module.register_forward_pre_hook(lambda m, args: calls.append(args[0][0].detach().clone()))
    return calls, handle


def test_capture_resolves_negative_positions_per_prompt_and_refuses_the_rest(setup, tmp_path):
    lm, rows, _ = setup
    calls, handle = _grab_layer(lm, 2)
    try:
        capture_category(lm, rows, tmp_path / "a", category="bistable", position=-3, rule="differs",
                         gen_kwargs={"max_new_tokens": 1})  # fmt: skip
    finally:
        handle.remove()
    prompts = [c for c in calls if c.shape[0] > 1]  # the prefill calls: prompt 1, prompt 2 of each image
    assert [p.shape[0] for p in prompts] == [LEN_1, LEN_2] * 2, "prompts of different lengths"
    with np.load(tmp_path / "a" / "bistable" / "activations.npz") as z:
        dtype = str(z["dtype"])
    from ambi_plugin.analysis.collect import load_activations

    acts = load_activations(tmp_path / "a" / "bistable")
    for i in range(2):
        for stored, full in ((acts["pre"][i, 2], prompts[2 * i]), (acts["post"][i, 2], prompts[2 * i + 1])):
            want = full[full.shape[0] - 3].view(N_HEADS, -1).float().numpy()  # 3rd from the end of *this* prompt
            np.testing.assert_allclose(stored, want, rtol=1e-2 if dtype == "bfloat16" else 0, atol=1e-2)
    assert json.loads((tmp_path / "a" / "bistable" / "capture.json").read_text())["position"] == -3

    for position, msg in ((5, "Count from the end instead"), (LEN_1 + 2, "Count from the end instead"),
                          (-(TAIL + 1), rf"not the same place in both prompts.*-1\.\.-{TAIL}"),
                          (-(LEN_1 + 1), f"outside the prompt, which has {LEN_1} tokens")):  # fmt: skip
        out = tmp_path / f"p{position}"
        with pytest.raises(PositionError, match=msg):
            capture_category(lm, rows, out, category="bistable", position=position, rule="differs",
                             gen_kwargs={"max_new_tokens": 1})  # fmt: skip
        assert not list((out / "bistable" / "acts").glob("*.npz")), "nothing written for a refused position"
    assert remaining_hooks(lm) == []


def test_patching_refuses_positions_that_differ_between_the_prompts(setup):
    lm, rows, _ = setup
    items = [PatchItem(r["id"], [r["image"]], first_prompt("bistable"), second_prompt("bistable", w))
             for r, w in zip(rows, ["duck", "vase"])]  # fmt: skip
    for position in (5, LEN_1 + 2):
        with pytest.raises(PatchingError, match="Count from the end instead"):
            patch_items(lm, items, switch_heads=[(2, 1)], position=position, per_head=[], draws=0, **QUIET)
    for position, msg in ((-(TAIL + 1), "not the same place in both prompts"),
                          (-(LEN_1 + 1), f"outside prompt 1, which has {LEN_1} tokens")):  # fmt: skip
        data = patch_items(lm, items, switch_heads=[(2, 1)], position=position, per_head=[], draws=0, **QUIET)
        assert data["n_items"] == 0 and [r["id"] for r in data["refused"]] == ["b0", "b1"]
        assert all(msg in r["reason"] for r in data["refused"]), data["refused"]
    data = patch_items(lm, items, switch_heads=[(2, 1)], position=-TAIL, per_head=[(2, 1), (3, 0)], draws=0, **QUIET)
    assert data["refused"] == [] and data["n_items"] + len(data["skipped"]) == 2
    assert remaining_hooks(lm) == []
