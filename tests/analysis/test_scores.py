"""Switching scores: definition, a planted switch head comes out on top, sparsity rule, Pearson, files."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks
from ambi_plugin.analysis.plots import save_heatmap
from ambi_plugin.analysis.scores import cosine_per_head, load_scores, pearson, switch_heads, switching_scores

from .tiny_models import tiny_llava


def test_cosine_and_score_definition():
    pre = np.zeros((2, 1, 2, 3))
    post = np.zeros((2, 1, 2, 3))
    pre[:, 0, 0] = [1, 0, 0]
    post[:, 0, 0] = [0, 1, 0]  # orthogonal: cos 0
    pre[:, 0, 1] = [1, 2, 3]
    post[:, 0, 1] = [2, 4, 6]  # parallel: cos 1
    sc = switching_scores(pre, post)
    np.testing.assert_allclose(sc.cos, [[0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(sc.s, [[1.0, 0.0]], atol=1e-12)
    assert cosine_per_head(np.zeros((1, 1, 1, 2)), np.ones((1, 1, 1, 2)))[0, 0, 0] == 0.0
    with pytest.raises(ValueError, match="no switched images"):
        switching_scores(pre[:0], post[:0], category="bistable")


def test_planted_switch_head_comes_out_on_top():
    """Head (2, 5) is made to point one way for the first prompt and the opposite way for the second."""
    model = tiny_llava(heads=8, kv_heads=2, layers=4)
    phase = {"sign": 1.0, "v": None}

    def plant(x4, state):
        out = x4.clone()
        out[:, :, 5, :] = phase["sign"] * phase["v"].to(x4.dtype)
        return out

    hooks = HookSet(model)
    hooks.add(2, plant)  # added before the recorder, so the recorder sees the planted output
    rec = HeadRecorder(hooks)
    rng = torch.Generator().manual_seed(0)
    pre, post = [], []
    with hooks, torch.no_grad():
        for _image in range(4):
            phase["v"] = torch.randn(8, generator=rng)
            ids = torch.randint(10, 99, (1, 7), generator=rng)
            for sign, store, extra in ((1.0, pre, [3, 4]), (-1.0, post, [5, 6, 7])):
                phase["sign"] = sign
                rec.start()
                model.generate(input_ids=torch.cat([ids, torch.tensor([extra])], 1), max_new_tokens=3, do_sample=False)
                store.append(rec.result())
    assert remaining_hooks(model) == []
    scores = switching_scores(np.stack(pre), np.stack(post), category="bistable")
    top = scores.top_k(3)
    assert (top[0]["layer"], top[0]["head"]) == (2, 5)
    assert top[0]["s"] == pytest.approx(2.0) and top[0]["cos"] == pytest.approx(-1.0)
    assert top[1]["s"] < 2.0 - 1e-3
    heads, rule = switch_heads(scores.s, threshold=1.99)
    assert heads == [(2, 5)] and rule == "s > 1.99"


def test_sparsity_falls_back_to_top_one_percent():
    s = np.linspace(0, 0.7, 300).reshape(10, 30)
    heads, rule = switch_heads(s)
    assert rule == "top 1%" and len(heads) == 3 and heads[0] == (9, 29)
    s[4, 7] = 0.9
    s[5, 1] = 0.95
    heads, rule = switch_heads(s)
    assert heads == [(5, 1), (4, 7)] and rule == "s > 0.8"
    sc = switching_scores(np.ones((1, 10, 30, 2)), np.ones((1, 10, 30, 2)))
    sc.s = s
    sp = sc.sparsity()
    assert sp["n_selected"] == 2 and sp["fraction_selected"] == pytest.approx(2 / 300)
    assert sp["layer_distribution"][4] == 1 and sp["layer_distribution"][5] == 1 and sum(sp["layer_distribution"]) == 2


def test_pearson_matches_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 6)), rng.normal(size=(4, 6))
    assert pearson(a, b) == pytest.approx(np.corrcoef(a.ravel(), b.ravel())[0, 1])
    assert pearson(a, 2 * a + 1) == pytest.approx(1.0)
    assert np.isnan(pearson(np.ones(3), a.ravel()[:3]))


def test_files_roundtrip(tmp_path):
    rng = np.random.default_rng(0)
    sc = switching_scores(rng.normal(size=(3, 2, 4, 5)), rng.normal(size=(3, 2, 4, 5)), category="bistable")
    paths = sc.save(tmp_path, k=3)
    data = json.loads(paths["json"].read_text())
    assert data["n_images"] == 3 and len(data["top_k"]) == 3 and np.array(data["s"]).shape == (2, 4)
    with np.load(paths["npz"]) as z:
        np.testing.assert_allclose(z["s"], 1 - z["cos"])
    back = load_scores(paths["json"])
    np.testing.assert_allclose(back.s, sc.s)
    png = save_heatmap(sc.s, tmp_path / "h.png", highlight=[(1, 2)])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
