"""Switching scores: definition, a planted switch head comes out on top, sparsity rule, Pearson, files."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.capture import HeadRecorder
from ambi_plugin.analysis.hooks import HookSet, remaining_hooks
from ambi_plugin.analysis.plots import save_heatmap
from ambi_plugin.analysis.scores import (
    SwitchScores,
    cosine_per_head,
    load_scores,
    pearson,
    switch_heads,
    switching_scores,
)

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
    with pytest.raises(
        ValueError, match=r"^no switched images in bistable: the switching score is undefined\. Capture"
    ):
        switching_scores(pre[:0], post[:0], category="bistable")
    with pytest.raises(ValueError, match=r"^no switched images: the switching score is undefined"):
        switching_scores(pre[:0], post[:0])
    assert switching_scores(pre, post).category == ""


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


def _hand_cos(u, v) -> float:
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return float(u @ v / np.sqrt((u @ u) * (v @ v)))


def test_scores_against_a_hand_computation_and_at_any_scale():
    """s = 1 - the mean over images of each pair's cosine, per head; a layer whose outputs are 1e200 or 1e-200 (a
    norm that overflows or underflows float64) is scored the same as at scale 1."""
    pre = np.array([[[[1.0, 0.0], [3.0, 4.0]]], [[[1.0, 1.0], [0.0, 2.0]]]])  # 2 images, 1 layer, 2 heads, dim 2
    post = np.array([[[[0.0, 1.0], [3.0, 4.0]]], [[[1.0, 0.0], [2.0, 0.0]]]])
    cos00 = (0.0 + _hand_cos([1, 1], [1, 0])) / 2  # (orthogonal, 45 degrees)
    cos01 = (1.0 + 0.0) / 2
    sc = switching_scores(pre, post, category="bistable")
    np.testing.assert_allclose(sc.cos, [[cos00, cos01]], rtol=1e-12)
    np.testing.assert_allclose(sc.s, [[1 - cos00, 1 - cos01]], rtol=1e-12)
    assert sc.n_images == 2 and sc.category == "bistable" and sc.n_pairs.tolist() == [[2, 2]]
    assert sc.n_nonfinite.tolist() == [[0, 0]] and sc.n_excluded_pairs == 0 and sc.n_nonfinite_pairs == 0
    for scale in (1e200, 1e-200):
        big = switching_scores(pre * scale, post * scale)
        np.testing.assert_allclose(big.cos, sc.cos, rtol=1e-12)
        assert big.n_pairs.tolist() == [[2, 2]]
    one = cosine_per_head(np.array([[[[1e200, 0.0]]]]), np.array([[[[0.0, 1e200]]]]))
    assert one.tolist() == [[[0.0]]], "orthogonal huge vectors: cos 0, not dropped"


def test_zero_vectors_no_warning_and_an_all_zero_layer(recwarn):
    pre, post = np.ones((2, 2, 3, 4)), np.ones((2, 2, 3, 4))
    pre[:, 1] = 0.0  # layer 1 entirely zero in prompt 1 (a head-masked layer): no pair has an angle
    post[0, 0, 2] = 0.0
    sc = switching_scores(pre, post)
    assert sc.n_pairs.tolist() == [[2, 2, 1], [0, 0, 0]] and np.isnan(sc.s[1]).all()
    np.testing.assert_allclose(sc.cos[0], [1.0, 1.0, 1.0])
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], "zero vectors: no numpy warning"


def test_near_zero_boundary_and_a_nan_head_in_a_low_norm_layer():
    """At most 1e-6 of the largest head norm of the layer and item (inclusive); a NaN head is no reference, also
    when the rest of its layer is small."""
    pre = np.zeros((1, 1, 3, 2))
    pre[0, 0, 0] = [1e6, 0.0]  # norm 1e6: the layer's largest
    pre[0, 0, 1] = [1.0, 0.0]  # exactly 1e-6 of it: near zero
    pre[0, 0, 2] = [1.0, 1e-3]  # just above: kept
    post = np.ones((1, 1, 3, 2))
    assert switching_scores(pre, post).n_pairs.tolist() == [[1, 0, 1]]
    low = np.random.default_rng(4).normal(size=(1, 1, 4, 3)) * 1e-9  # a whole layer of small outputs ...
    low[0, 0, 0, 1] = np.nan  # ... with one NaN head
    sc = switching_scores(low, np.ones((1, 1, 4, 3)))
    assert sc.n_pairs.tolist() == [[0, 1, 1, 1]] and sc.n_nonfinite.tolist() == [[1, 0, 0, 0]]
    wide = cosine_per_head(pre, post, zero_rel=0.5)  # a looser threshold: anything under half the largest norm
    assert np.isfinite(wide[0, 0, 0]) and np.isnan(wide[0, 0, 1:]).all()
    with pytest.raises(ValueError, match=r"must both be \[items, layers, heads, dim\]; got \(1, 2\) and \(1, 2\)"):
        cosine_per_head(np.ones((1, 2)), np.ones((1, 2)))
    with pytest.raises(ValueError, match=r"got \(1, 1, 1, 2\) and \(1, 1, 1, 3\)"):
        cosine_per_head(np.ones((1, 1, 1, 2)), np.ones((1, 1, 1, 3)))


def test_ties_rank_in_layer_and_head_order():
    """More than 16 heads (numpy's default sort is no longer stable there): equal scores keep (layer, head) order."""
    rng = np.random.default_rng(0)
    s = np.round(rng.uniform(size=(4, 10)), 1)
    want = sorted(((layer, head) for layer in range(4) for head in range(10)), key=lambda h: -s[h])
    sc = SwitchScores(cos=1 - s, s=s, n_images=1)
    assert [(r["layer"], r["head"]) for r in sc.top_k(40)] == want
    assert switch_heads(s, threshold=-1.0, max_fraction=1.0)[0] == want
    bad = rng.integers(0, 3, size=(4, 10))
    sc.n_nonfinite = bad
    rows = sc.nonfinite_heads()
    order = sorted(((layer, head) for layer in range(4) for head in range(10) if bad[layer, head]),
                   key=lambda h: -bad[h])  # fmt: skip
    assert [(r["layer"], r["head"]) for r in rows] == order and [r["pairs"] for r in rows] == [bad[h] for h in order]
    assert SwitchScores(cos=s, s=s, n_images=1).nonfinite_heads() == []


def test_sparsity_counts_and_defaults():
    s = np.full((3, 10), 0.2)
    s[0, 3], s[2, 7], s[2, 8] = 0.81, 0.9, 0.8  # 0.8 itself is not above the threshold
    s[1, 0] = np.nan
    sc = SwitchScores(cos=1 - s, s=s, n_images=4, n_pairs=np.full((3, 10), 4), n_nonfinite=np.zeros((3, 10), int))
    sc.n_pairs[1, 0], sc.n_pairs[0, 1] = 0, 3
    sc.n_nonfinite[0, 1] = 1
    sp = sc.sparsity()
    assert sp["rule"] == "s > 0.8" and sp["threshold"] == 0.8 and sp["max_fraction"] == 0.1
    assert sp["heads"] == [[2, 7], [0, 3]] and sp["n_selected"] == 2 and sp["fraction_selected"] == 2 / 30
    assert sp["n_above_threshold"] == 2 and sp["n_heads_total"] == 30 and sp["n_heads_unscored"] == 1
    assert sp["n_excluded_pairs"] == 5 and sp["n_nonfinite_pairs"] == 1
    assert sp["layer_distribution"] == [1, 0, 1]
    low = sc.sparsity(threshold=-1.0, max_fraction=0.2)  # every scored head is above: capped at 6 of 29
    assert low["n_above_threshold"] == 29 and low["n_selected"] == 6 and "(6 of 29)" in low["rule"]
    assert low["threshold"] == -1.0 and low["max_fraction"] == 0.2
    top = sc.sparsity(threshold=0.95, top_fraction=0.1)  # none above: the top 10%, 3 heads
    assert top["rule"] == "top 10%" and top["heads"] == [[2, 7], [0, 3], [2, 8]]
    assert top["layer_distribution"] == [1, 0, 2]


def test_json_names_every_field_and_the_defaults_of_save(tmp_path):
    rng = np.random.default_rng(5)
    pre, post = rng.normal(size=(2, 3, 5, 4)), rng.normal(size=(2, 3, 5, 4))
    post[1, 2, 4] = 0.0
    sc = switching_scores(pre, post, category="multi", meta={"model": "tiny"})
    data = sc.to_json()
    assert data["category"] == "multi" and data["n_images"] == 2 and data["shape"] == [3, 5]
    assert data["model"] == "tiny", "the meta fields are kept"
    assert data["definition"] == (
        "s = 1 - mean over switched images of cos(x_pre, x_post), per (layer, head); pairs with a zero, near-zero or "
        "non-finite (NaN/inf) vector left out (n_pairs; n_nonfinite_pairs counts the non-finite ones per head); null = "
        "no pair left"
    )
    assert len(data["top_k"]) == 10, "10 heads by default"
    assert data["top_k"][0] == {"layer": int(np.nanargmax(sc.s) // 5), "head": int(np.nanargmax(sc.s) % 5),
                                "s": float(np.nanmax(sc.s)), "cos": float(1 - np.nanmax(sc.s))}  # fmt: skip
    np.testing.assert_allclose(np.array(data["cos"], dtype=float), sc.cos)
    assert data["n_pairs"][2][4] == 1 and data["n_excluded_pairs"] == 1
    assert data["n_nonfinite_pairs"] == [[0] * 5] * 3 and data["n_nonfinite_pairs_total"] == 0
    assert data["nonfinite_heads"] == []
    assert data["sparsity"] == sc.sparsity() and "capped at the top 10% of heads" in data["sparsity"]["rule"]
    paths = sc.save(tmp_path)  # defaults: 10 heads, the paper's threshold and cap
    assert paths == {"npz": tmp_path / "scores_multi.npz", "json": tmp_path / "scores_multi.json"}
    saved = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(data)) and paths["json"].read_text().endswith("}\n")
    with np.load(paths["npz"]) as z:
        assert set(z.files) == {"cos", "s", "n_images", "n_pairs", "n_nonfinite"} and int(z["n_images"]) == 2
        np.testing.assert_array_equal(z["n_pairs"], sc.n_pairs)
        np.testing.assert_array_equal(z["n_nonfinite"], sc.n_nonfinite)
    text = paths["json"].read_text()  # one field a line, indented by one space like the project's other JSON files
    assert text.startswith('{\n "category": "multi",\n "n_images": 2,\n "shape": [\n  3,\n  5\n ],\n')
    tuned = sc.to_json(k=2, threshold=5.0, top_fraction=0.5, max_fraction=0.3)  # none above 5: the top half, capped
    assert len(tuned["top_k"]) == 2 and tuned["sparsity"]["rule"] == "top 50%, capped at the top 30% of heads (4 of 8)"
    assert tuned["sparsity"] == sc.sparsity(threshold=5.0, top_fraction=0.5, max_fraction=0.3)
    sc.save(tmp_path / "t" / "nested", k=3, threshold=5.0, top_fraction=0.5, max_fraction=0.3)
    back = json.loads((tmp_path / "t" / "nested" / "scores_multi.json").read_text())
    assert len(back["top_k"]) == 3 and back["sparsity"] == json.loads(json.dumps(tuned["sparsity"]))


def test_a_score_file_without_optional_fields_and_without_a_category(tmp_path):
    sc = SwitchScores(cos=np.array([[0.5, np.nan]]), s=np.array([[0.5, np.nan]]), n_images=3)
    paths = sc.save(tmp_path)
    assert paths["json"].name == "scores.json" and paths["npz"].name == "scores.npz"
    with np.load(paths["npz"]) as z:
        assert set(z.files) == {"cos", "s", "n_images"}
    data = json.loads(paths["json"].read_text())
    assert data["n_pairs"] is None and data["n_nonfinite_pairs"] is None and data["n_excluded_pairs"] == 0
    assert data["n_nonfinite_pairs_total"] == 0 and data["category"] == ""
    back = load_scores(paths["json"])
    assert back.n_pairs is None and back.n_nonfinite is None and back.category == "" and back.n_images == 3
    assert back.cos.dtype == float and back.cos[0, 0] == 0.5 and np.isnan(back.cos[0, 1])
    assert back.s.dtype == float and np.isnan(back.s[0, 1])
    full = switching_scores(np.ones((2, 1, 2, 3)), np.ones((2, 1, 2, 3)), category="bistable")
    full.n_nonfinite[0, 1] = 1
    again = load_scores(full.save(tmp_path)["json"])
    assert again.category == "bistable" and again.n_pairs.tolist() == [[2, 2]] and again.n_pairs.dtype.kind == "i"
    assert again.n_nonfinite.tolist() == [[0, 1]] and again.n_nonfinite.dtype.kind == "i"
    np.testing.assert_allclose(again.cos, [[1.0, 1.0]])
    minimal = tmp_path / "hand.json"  # a file with only the maps (written by hand or by an older version)
    minimal.write_text(json.dumps({"cos": [[0.2, None]], "s": [[0.8, None]], "n_images": 4}), encoding="utf-8")
    hand = load_scores(minimal)
    assert hand.category == "" and hand.n_pairs is None and hand.n_nonfinite is None and hand.n_images == 4
    assert hand.s[0, 0] == 0.8 and np.isnan(hand.cos[0, 1]) and hand.n_excluded_pairs == 0


def test_pearson_edges(recwarn):
    assert pearson([1.0, 2.0], [3.0, 5.0]) == pytest.approx(1.0), "two heads are enough"
    assert np.isnan(pearson([1.0], [2.0])) and np.isnan(pearson([1.0, np.nan], [2.0, 3.0]))
    a = np.array([1.0, 2.0, np.nan, 4.0, 3.0])
    b = np.array([2.0, 4.0, 6.0, np.inf, 5.0])
    assert pearson(a, b) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 5])[0, 1]), "heads scored in both only"
    assert np.isnan(pearson([1.0, 2.0, 3.0], [7.0, 7.0, 7.0])), "a constant map"
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], "quietly: no numpy warning"
    with pytest.raises(ValueError, match=r"maps differ in shape: \(3,\) vs \(2,\)"):
        pearson([1.0, 2.0, 3.0], [1.0, 2.0])
    rng = np.random.default_rng(6)  # float16 maps (as stored): computed in float64, no overflow
    x = (rng.uniform(size=(20, 40)) * 200).astype(np.float16)
    y = (x.astype(np.float64) + rng.normal(scale=30, size=(20, 40))).astype(np.float16)
    want = np.corrcoef(x.astype(np.float64).ravel(), y.astype(np.float64).ravel())[0, 1]
    assert pearson(x, y) == pytest.approx(want, rel=1e-9) and pearson(x, y.astype(np.float64)) == pytest.approx(want)


# last in the file: the slowest (a model); a mutation run stops a mutant at its first failing test, in file order
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


def test_near_zero_threshold_is_the_own_layers_largest_head_even_where_layers_differ_in_shape_of_vectors():
    """Each layer and image is scaled to its own largest entry, so a layer whose largest head is one spike (norm 1
    after scaling) and a layer of flat heads (norm 4 in 16 dims) have different largest norms: a head at 2e-6 of
    its own layer's largest is kept, although it is under 1e-6 of the other layer's."""
    pre = np.zeros((1, 2, 2, 16))
    pre[0, 0, 0, 0] = 1.0  # layer 0: a one-hot head (norm 1) ...
    pre[0, 0, 1, 0] = 2e-6  # ... and a head at 2e-6 of it: kept (more than 1e-6 of its own layer's largest)
    pre[0, 1, 0] = 1.0  # layer 1: a flat head, norm 4 (4 times layer 0's largest once both are scaled)
    pre[0, 1, 1, 0] = 1.0
    post = np.ones((1, 2, 2, 16))
    assert switching_scores(pre, post).n_pairs.tolist() == [[1, 1], [1, 1]]


def test_layers_at_1e200_and_1e_minus_200_in_one_array_give_their_unit_cosines():
    """Each layer is scaled by its own largest entry: one scale for the whole array would underflow the small layer
    to zero (left out as a zero vector) while the large one stays finite."""
    rng = np.random.default_rng(6)
    pre, post = rng.normal(size=(2, 2, 3, 4)), rng.normal(size=(2, 2, 3, 4))
    want = cosine_per_head(pre, post)
    pre[:, 0] *= 1e200
    post[:, 0] *= 1e200
    pre[:, 1] *= 1e-200
    post[:, 1] *= 1e-200
    got = cosine_per_head(pre, post)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_low_precision_outputs_are_scored_in_float64():
    """float16 head outputs (a half-precision backend's capture) are scored as their float64 values: the same
    cosines to the last digit, not float16 arithmetic."""
    rng = np.random.default_rng(7)
    pre = rng.normal(size=(2, 1, 3, 8)).astype(np.float16)
    post = rng.normal(size=(2, 1, 3, 8)).astype(np.float16)
    got = cosine_per_head(pre, post)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, cosine_per_head(pre.astype(np.float64), post.astype(np.float64)))


def test_a_non_finite_vector_on_one_side_only_leaves_its_pair_out():
    pre, post = np.ones((1, 1, 2, 3)), np.ones((1, 1, 2, 3))
    pre[0, 0, 0, 1] = np.nan  # head 0: NaN before the switch only
    post[0, 0, 1, 2] = np.inf  # head 1: inf after it only
    assert np.isnan(cosine_per_head(pre, post)).all()
    sc = switching_scores(pre, post)
    assert sc.n_pairs.tolist() == [[0, 0]] and sc.n_nonfinite.tolist() == [[1, 1]]
