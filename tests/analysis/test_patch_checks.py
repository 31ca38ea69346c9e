"""Patching checks that a scale-free assertion would miss or that need a broken model: AtP equals finite differences
of the exact patch divided by the gap; AtP* follows GradDrop's formula; an image whose re-run does not reproduce the
backend's logits, or whose heads give NaN/inf, is refused and named while the others go on."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.heads import head_layout, unwrap_model
from ambi_plugin.analysis.hooks import remaining_hooks
from ambi_plugin.analysis.patch_model import Patcher, attribution, logp, patched_logits, run_prompt
from ambi_plugin.analysis.patching import PatchItem, patch_items
from ambi_plugin.analysis.prompts import first_prompt, second_prompt

from .planted import HEAD_DIM, N_HEADS, N_LAYERS, load_float32, save_planted

QUIET = {"progress": False, "say": lambda msg: None}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("imgs")
    out = []
    for i in range(3):
        Image.new("RGB", (64, 48), (40 * i, 90, 200 - 30 * i)).save(root / f"img{i}.png")
        out.append(str(root / f"img{i}.png"))
    return out


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return load_float32(save_planted(tmp_path_factory.mktemp("m") / "m", seed=0, heads=[(2, 3)]))


def _item(i, image, word="duck", prompt_a=None):
    return PatchItem(f"b{i}", [image], prompt_a or first_prompt("bistable"), second_prompt("bistable", word))


def test_atp_is_the_derivative_of_the_patched_log_prob_divided_by_the_gap(lm, images):
    """Central finite differences of logp_patched(b) along x_B - x_A, divided by logp_B(b) - logp_A(b), equal the
    AtP estimate per head: the gap's scale is part of the check (it is far from 1 here)."""
    item = _item(0, images[0])
    data = patch_items(lm, [item], switch_heads=[(2, 3)], per_head=[], draws=0, atp_star=True, **QUIET)
    row = data["items"][0]
    gap, b = row["logp_b"] - row["logp_a"], row["token_b"]
    assert abs(gap - 1.0) > 0.3 and abs(gap) > 0.1, f"a gap near 1 would not tell a missing division ({gap})"
    atp = np.array(row["atp"], dtype=float)
    layout = head_layout(lm)
    patcher = Patcher(lm, layout, -1)
    run_a = run_prompt(lm, patcher, item.prompt_a, item.images)
    run_b = run_prompt(lm, patcher, item.prompt_b, item.images)
    eps = 1e-3
    order = np.argsort(-np.abs(atp), axis=None)
    checked = [tuple(int(v) for v in np.unravel_index(f, atp.shape)) for f in order[:6]]
    for layer, head in checked:
        x_a, d = run_a.acts[layer][head], run_b.acts[layer][head] - run_a.acts[layer][head]
        lp = [logp(patched_logits(lm, patcher, run_a, {layer: ([head], (x_a + e * d)[None])}), b) for e in (eps, -eps)]
        fd = (lp[0] - lp[1]) / (2 * eps) / gap
        assert atp[layer, head] == pytest.approx(fd, rel=0.02, abs=1e-4), (layer, head)
    assert abs(atp[checked[0]]) > 0.05, "the checked heads carry a real share"

    # AtP* (GradDrop, eq. 11): for a head of the last layer every dropped layer but its own leaves its gradient as
    # it is, so AtP* = (L - 1) |AtP| / (L - 1) = |AtP|; one layer below, the last layer's dropped term enters
    star = np.array(row["atp_star"], dtype=float)
    np.testing.assert_allclose(star[-1], np.abs(atp[-1]), rtol=1e-4, atol=1e-7)
    block = unwrap_model(lm).model.language_model.layers[-1]
    dropped = attribution(lm, patcher, run_a, run_b, b, layout, drop_layer=block) / abs(gap)
    want = ((N_LAYERS - 2) * np.abs(atp[-2]) + np.abs(dropped[-2])) / (N_LAYERS - 1)
    np.testing.assert_allclose(star[-2], want, rtol=1e-4, atol=1e-7)
    assert not np.allclose(star[-2], np.abs(atp[-2]), rtol=1e-2), "dropping the last layer changes layer 2's terms"
    assert np.all(dropped[-1] == 0), "a dropped layer's own heads get no gradient"
    assert remaining_hooks(lm) == []


def test_an_item_whose_rerun_differs_is_refused_and_named_and_the_others_go_on(lm, images):
    from ambi_plugin.analysis.driver import model_driver
    from ambi_plugin.analysis.positions import FirstCallIds

    odd = "What is this picture? One word."
    ids = FirstCallIds(lm)
    with ids:
        ids.start()
        model_driver(lm, gen_kwargs={"max_new_tokens": 1}).generate(odd, [images[1]])
    n_odd = len(ids.ids)

    def spoil(module, args, kwargs, out):  # a re-run (use_cache=False) of that one prompt gives other logits
        if kwargs.get("use_cache") is False and kwargs["input_ids"].shape[1] == n_odd:
            out.logits = out.logits + 1.0
        return out

    handle = unwrap_model(lm).register_forward_hook(spoil, with_kwargs=True)
    try:
        items = [_item(0, images[0]), _item(1, images[1], prompt_a=odd), _item(2, images[2], "woman")]
        data = patch_items(lm, items, switch_heads=[(2, 3)], per_head=[(2, 3)], draws=0, **QUIET)
    finally:
        handle.remove()
    assert [r["id"] for r in data["refused"]] == ["b1"]
    assert "does not reproduce its logits" in data["refused"][0]["reason"]
    assert data["n_items"] + len(data["skipped"]) == 2, "the other images are patched"
    from ambi_plugin.reports.switch_heads import section_data, section_markdown

    md = section_markdown(section_data(data))
    assert "1 refused" in md and "Refused (1): b1: re-running the backend's inputs does not reproduce" in md


def test_nan_and_inf_head_outputs_are_counted_per_head_and_reported(tmp_path, images):
    """An infinite V bias in layer 3's second K/V group: its two query heads give inf/NaN at every position, the
    logits turn NaN, every image is refused with those heads named, and the heads are counted."""
    folder = save_planted(tmp_path / "m", seed=0)
    from transformers import Qwen2_5_VLForConditionalGeneration

    model = Qwen2_5_VLForConditionalGeneration.from_pretrained(folder)
    with torch.no_grad():
        model.model.language_model.layers[3].self_attn.v_proj.bias[1 * HEAD_DIM] = float("inf")
    model.save_pretrained(folder)
    lm = load_float32(folder)
    items = [_item(i, img, w) for i, (img, w) in enumerate(zip(images, ["duck", "vase", "woman"]))]
    scores = np.zeros((N_LAYERS, N_HEADS))  # with a scores map too (every image refused used to crash its Spearman)
    data = patch_items(lm, items, switch_heads=[(2, 3)], per_head=[], scores=scores, draws=0, **QUIET)
    assert data["n_items"] == 0 and len(data["refused"]) == 3, data["refused"]
    assert data["spearman"]["s_vs_atp"]["rho"] is None and data["spearman"]["s_vs_atp"]["n_heads"] == 0
    assert all("prompt 1 gives NaN or infinite logits; heads with NaN/inf outputs at the position: (3, 2), (3, 3)" in r["reason"]
               for r in data["refused"])  # fmt: skip
    bad = np.array(data["nonfinite_activations"]["per_head"])
    assert bad[3, 2] == bad[3, 3] == 3 and bad.sum() == 6 and data["nonfinite_activations"]["heads"] == 2


def test_settings_that_do_not_fit_the_model_are_said(lm, images):
    with pytest.raises(ValueError, match=r"head \(4, 0\) is outside the model's 4 x 8 heads"):
        patch_items(lm, [_item(0, images[0])], switch_heads=[(4, 0)], draws=0, **QUIET)
    with pytest.raises(ValueError, match=r"switching scores are \(4, 4\).*the model has \(4, 8\)"):
        patch_items(lm, [_item(0, images[0])], switch_heads=[(1, 1)], scores=np.zeros((4, 4)), draws=0, **QUIET)
