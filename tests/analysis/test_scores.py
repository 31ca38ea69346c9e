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
    assert np.isnan(cosine_per_head(np.zeros((1, 1, 1, 2)), np.ones((1, 1, 1, 2)))[0, 0, 0]), "a zero vector: no angle"
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


def test_zero_and_near_zero_vectors_are_left_out_counted_and_never_ranked(tmp_path):
    """A zero vector used to give cos 0, s 1 (the maximum): now the pair is left out and counted."""
    rng = np.random.default_rng(0)
    pre, post = rng.normal(size=(3, 1, 3, 4)), rng.normal(size=(3, 1, 3, 4))
    pre[1, 0, 0] = 0.0  # head 0: one of three pairs has no direction
    post[:, 0, 1] = 0.0  # head 1: no pair left at all
    post[2, 0, 2] *= 1e-9  # head 2: near zero (1e-9 of the layer's largest head) in one pair
    sc = switching_scores(pre, post, category="bistable")
    want = cosine_per_head(pre[[0, 2]], post[[0, 2]])[:, 0, 0].mean()
    assert sc.cos[0, 0] == pytest.approx(want)
    assert sc.cos[0, 2] == pytest.approx(cosine_per_head(pre[:2], post[:2])[:, 0, 2].mean())
    assert np.isnan(sc.s[0, 1]) and sc.n_pairs.tolist() == [[2, 0, 2]] and sc.n_excluded_pairs == 5
    assert [(r["layer"], r["head"]) for r in sc.top_k(5)] == sorted([(0, 0), (0, 2)], key=lambda h: -sc.s[h])
    heads, _ = switch_heads(sc.s, threshold=-10.0, max_fraction=1.0)
    assert (0, 1) not in heads and len(heads) == 2, "a head scored on zero pairs is never selected"
    sp = sc.sparsity(max_fraction=1.0)
    assert sp["n_heads_unscored"] == 1 and sp["n_excluded_pairs"] == 5
    paths = sc.save(tmp_path)
    data = json.loads(paths["json"].read_text())  # plain JSON: no NaN token
    assert data["s"][0][1] is None and data["n_pairs"] == [[2, 0, 2]] and data["n_excluded_pairs"] == 5
    back = load_scores(paths["json"])
    assert np.isnan(back.s[0, 1]) and back.s[0, 0] == pytest.approx(sc.s[0, 0]) and back.n_excluded_pairs == 5
    assert save_heatmap(back.s, tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    assert pearson(sc.s, sc.s) == pytest.approx(1.0), "over the heads scored in both maps"
    # an epsilon-masked head (1e-3 of the others) still has a direction and keeps its pairs
    pre, post = rng.normal(size=(3, 1, 3, 4)), rng.normal(size=(3, 1, 3, 4))
    pre[:, 0, 2] *= 1e-3
    assert switching_scores(pre, post).n_pairs.tolist() == [[3, 3, 3]]


def test_selection_is_capped_to_leave_room_for_the_random_control():
    """The tiny model used to select 12 of its 16 heads, and Table 3's control then had no room: capped at 10%."""
    s = np.full((4, 4), 0.5)
    s.flat[:12] = np.linspace(0.95, 0.85, 12)
    heads, rule = switch_heads(s)
    assert heads == [(0, 0)], "10% of 16 heads, rounded down, at least one"
    assert "capped at the top 10% of heads (1 of 12)" in rule
    heads, rule = switch_heads(s, max_fraction=0.5)
    assert len(heads) == 8 and heads[:2] == [(0, 0), (0, 1)]
    heads, rule = switch_heads(s, max_fraction=1.0)
    assert len(heads) == 12 and rule == "s > 0.8"
    big = np.linspace(0.0, 0.9, 300).reshape(10, 30)
    assert len(switch_heads(big)[0]) == 30 and len(switch_heads(big, threshold=0.5)[0]) == 30


def test_top_one_percent_rounds_up_when_not_whole():
    """150 heads: 1% is 1.5 heads; the fallback rounds up to 2 (as documented)."""
    s = np.linspace(0.0, 0.7, 150).reshape(5, 30)
    heads, rule = switch_heads(s)
    assert rule == "top 1%" and heads == [(4, 29), (4, 28)]
    assert len(switch_heads(np.linspace(0, 0.7, 250).reshape(5, 50))[0]) == 3  # 2.5 -> 3
    assert len(switch_heads(np.linspace(0, 0.7, 40).reshape(4, 10))[0]) == 1  # 0.4 -> at least one


def test_near_zero_is_measured_per_layer_and_item_not_against_the_global_maximum():
    """A whole layer (or a whole image) of small head outputs is still scored: the near-zero test compares a head
    with the largest head of its own layer and image, never with the largest anywhere."""
    rng = np.random.default_rng(1)
    pre, post = rng.normal(size=(3, 2, 4, 5)), rng.normal(size=(3, 2, 4, 5))
    want = cosine_per_head(pre, post)
    pre[:, 1] *= 1e-8  # layer 1: every head 1e-8 of layer 0's norms (a low-norm layer)
    post[:, 1] *= 1e-8
    pre[2] *= 1e-8  # image 2: every head of every layer small in both prompts
    post[2] *= 1e-8
    sc = switching_scores(pre, post)
    assert sc.n_pairs.tolist() == [[3] * 4, [3] * 4] and sc.n_excluded_pairs == 0
    np.testing.assert_allclose(sc.cos, want.mean(0), rtol=1e-9)
    pre[0, 1, 3] *= 1e-9  # but a head 1e-9 of its own layer's largest is near zero
    assert switching_scores(pre, post).n_pairs[1].tolist() == [3, 3, 3, 2]


def test_one_nan_or_inf_neither_disables_nor_widens_the_near_zero_test_and_is_counted(tmp_path):
    rng = np.random.default_rng(2)
    pre, post = rng.normal(size=(2, 2, 4, 5)), rng.normal(size=(2, 2, 4, 5))
    pre[0, 0, 1, 2] = np.nan  # layer 0, image 0: one NaN in head 1 ...
    pre[0, 0, 2] *= 1e-9  # ... and a near-zero head 2: still left out as near zero (a NaN maximum disabled this)
    post[1, 1, 0, 4] = np.inf  # layer 1, image 1: one inf in head 0; the other heads keep their pairs (an infinite
    sc = switching_scores(pre, post, category="bistable")  # maximum used to exclude every head of the layer)
    assert sc.n_pairs.tolist() == [[2, 1, 1, 2], [1, 2, 2, 2]]
    assert sc.n_nonfinite.tolist() == [[0, 1, 0, 0], [1, 0, 0, 0]] and sc.n_nonfinite_pairs == 2
    assert sc.cos[0, 2] == pytest.approx(cosine_per_head(pre[1:], post[1:])[0, 0, 2]), "the 1e-9 head's pair is out"
    assert np.isfinite(sc.cos).all(), "no NaN reaches a score"
    for h in (1, 2, 3):
        assert sc.cos[1, h] == pytest.approx(cosine_per_head(pre, post)[:, 1, h].mean())
    data = json.loads(sc.save(tmp_path)["json"].read_text())
    assert data["n_nonfinite_pairs"] == [[0, 1, 0, 0], [1, 0, 0, 0]] and data["n_nonfinite_pairs_total"] == 2
    assert data["nonfinite_heads"] == [{"layer": 0, "head": 1, "pairs": 1}, {"layer": 1, "head": 0, "pairs": 1}]
    assert data["sparsity"]["n_nonfinite_pairs"] == 2 and data["n_excluded_pairs"] == 3
    assert load_scores(tmp_path / "scores_bistable.json").n_nonfinite_pairs == 2


def test_scores_command_reports_nan_and_inf_heads(tmp_path, capsys):
    """`ambi switch-heads scores` on a capture holding an inf (float16 overflow) and a NaN: said, named, counted."""
    import argparse

    from ambi_plugin.cli.switch_heads import cmd_scores

    rng = np.random.default_rng(3)
    pre, post = rng.normal(size=(3, 2, 4, 5)).astype(np.float32), rng.normal(size=(3, 2, 4, 5)).astype(np.float32)
    pre[0, 1, 2, 0], post[2, 1, 2, 3], post[1, 0, 0, 1] = np.inf, np.nan, np.inf
    folder = tmp_path / "bistable"
    folder.mkdir()
    np.savez(folder / "activations.npz", ids=np.array(["a", "b", "c"]), pre=pre, post=post, dtype="float32",
             switched=np.ones(3, bool), correct=np.ones(3, bool))  # fmt: skip
    args = argparse.Namespace(out=str(tmp_path), category=["bistable"], k=5, threshold=0.8, top_fraction=0.01,
                              max_fraction=0.5)  # fmt: skip
    assert cmd_scores(args) == 0
    out = capsys.readouterr().out
    assert "3 of them hold NaN/inf activations" in out and "(1, 2) x2, (0, 0) x1" in out
    data = json.loads((tmp_path / "scores_bistable.json").read_text())
    assert data["n_nonfinite_pairs_total"] == 3 and data["n_pairs"][1][2] == 1 and data["s"][1][2] is not None
