"""Activation patching on tiny Qwen2.5-VL models (4 layers x 8 heads, through lmms-eval's backend) with planted causal
heads and every other head and MLP intact (``planted.py``): the planted head is in the default patched set (the union
of the top-k by s and by AtP) and ranked first by exact patching in every setting, also when its s is low; the
permutation test calls a planted set significant and the top-s sets of random-weight models not; AtP is divided by
the gap (finite differences); AtP* follows GradDrop's formula."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from ambi_plugin.analysis.patching import PatchItem, patch_items
from ambi_plugin.analysis.prompts import first_prompt, second_prompt
from ambi_plugin.analysis.scores import switch_heads

from .planted import N_HEADS, N_LAYERS, load_float32, rank_of, save_planted, switch_scores

QUIET = {"progress": False, "say": lambda msg: None}


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    """Two shared cores: one intra-op thread keeps a tiny forward at a few ms instead of hundreds under contention."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def items(tmp_path_factory):
    from PIL import Image

    root = tmp_path_factory.mktemp("imgs")
    out = []
    for i, word in enumerate(["duck", "vase", "woman"]):
        path = root / f"img{i}.png"
        Image.new("RGB", (64, 48), (40 * i, 90, 200 - 30 * i)).save(path)
        out.append(PatchItem(f"b{i}", [str(path)], first_prompt("bistable"), second_prompt("bistable", word)))
    return out


# (seed of the random weights, planted head, hidden constant): the last one has a low s by construction
CAUSAL = [(0, (2, 3), 0.0), (0, (1, 6), 0.0), (1, (3, 1), 0.0), (1, (2, 6), 0.0), (1, (2, 6), 50.0)]


@pytest.mark.parametrize(("seed", "head", "hidden"), CAUSAL)
def test_planted_head_is_in_the_default_set_and_ranked_first(tmp_path, items, seed, head, hidden):
    lm = load_float32(save_planted(tmp_path / "m", seed=seed, heads=[head], hidden=hidden))
    s = switch_scores(lm, items)
    data = patch_items(lm, items, switch_heads=[head], scores=s, top_k=3, draws=0, n_boot=200, **QUIET)
    assert data["n_items"] == 3 and data["selection"]["mode"] == "union"
    per = {(r["layer"], r["head"]): r for r in data["per_head"]}
    assert head in per, f"the planted head is in the default patched set ({sorted(per)})"
    assert per[head]["rank_exact"] == 1 and per[head]["effect"] > 0.8, per[head]
    assert per[head]["ci"][0] > 0.5, "its interval over images stays well above 0"
    assert 3 < len(per) <= 6, "the union of two top-3 lists"
    by_s = {h for h, r in per.items() if r["from"] in ("s", "both")}
    assert by_s == {tuple(int(v) for v in np.unravel_index(f, s.shape)) for f in np.argsort(-s, axis=None)[:3]}
    # against every head, not only the patched ones: first as well
    every = patch_items(lm, items, switch_heads=[head], scores=s, all_heads=True, draws=0, n_boot=50, **QUIET)
    exact = np.array(every["exact"], dtype=float)
    assert len(every["per_head"]) == N_LAYERS * N_HEADS and {r["from"] for r in every["per_head"]} == {"all"}
    assert rank_of(exact, head) == 1, f"exact patching ranks the planted head first of {exact.size}"
    if hidden:
        assert rank_of(s, head) > N_LAYERS * N_HEADS // 2, "its switching score is low (lower half)"
        assert per[head]["from"] in ("atp", "atp+atp*"), "found through the AtP half of the union"


def test_a_causal_head_with_a_low_switching_score_is_found_through_atp(tmp_path, items):
    """The low-s setting with the top-k by s alone (the old default) misses the head; the union finds it."""
    head = (2, 6)
    lm = load_float32(save_planted(tmp_path / "m", seed=1, heads=[head], hidden=50.0))
    s = switch_scores(lm, items)
    top_s = {tuple(int(v) for v in np.unravel_index(f, s.shape)) for f in np.argsort(-s, axis=None)[:10]}
    assert head not in top_s, "not among the top 10 by s"
    data = patch_items(lm, items, switch_heads=[head], scores=s, top_k=10, draws=0, n_boot=100, **QUIET)
    per = {(r["layer"], r["head"]): r for r in data["per_head"]}
    assert per[head]["from"] == "atp" and per[head]["rank_exact"] == 1


def test_permutation_test_planted_set_significant_random_sets_not(tmp_path, items):
    """Negative control: on random-weight models the switch heads chosen by s (the default rule) are not
    significantly better than layer-matched random sets in most seeds; a planted set (3 causal heads) is."""
    draws = 39  # p >= 1/40 = 0.025
    ps = []
    for seed in range(4):
        lm = load_float32(save_planted(tmp_path / f"r{seed}", seed=seed))
        s = switch_scores(lm, items)
        chosen, _ = switch_heads(s)
        data = patch_items(lm, items, switch_heads=chosen, scores=s, per_head=[], draws=draws, seed=seed, n_boot=100,
                           **QUIET)  # fmt: skip
        perm = data["permutation"]
        assert perm["n"] == draws and not perm["exact"] and perm["layer_matched"]
        assert perm["p"] == pytest.approx((perm["k"] + 1) / (draws + 1))
        ps.append(perm["p"])
    assert sum(p > 0.05 for p in ps) >= 3, f"random-weight models called significant: p = {ps}"

    planted = [(1, 6), (2, 3), (3, 1)]
    lm = load_float32(save_planted(tmp_path / "planted", seed=0, heads=planted))
    data = patch_items(lm, items, switch_heads=planted, per_head=[], draws=draws, n_boot=100, **QUIET)
    perm = data["permutation"]
    assert perm["p"] <= 0.05 and perm["k"] == 0, perm
    for s_ in perm["sets"]:  # layer-matched: one head in each of layers 1, 2, 3, none of the planted ones
        assert sorted(h[0] for h in s_) == [1, 2, 3] and not {tuple(h) for h in s_} & set(planted)
    assert data["conditions"][0]["effect"] > 0.9 and abs(data["conditions"][1]["effect"]) < 0.1
