"""Activation patching and AtP through lmms-eval's qwen2_5_vl backend, on a tiny model with one planted switch head:
patching that head brings the second answer back (effect 1), its same-KV sibling and random heads do not (0), AtP
ranks it first; Spearman's rank correlation on known inputs; ``ambi switch-heads patch`` writes its table and plot."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from ambi_plugin.analysis.collect import capture_category, load_items
from ambi_plugin.analysis.hooks import remaining_hooks
from ambi_plugin.analysis.patching import (
    PatchingError,
    PatchItem,
    _duration,
    patch_items,
    patch_position,
    select_heads,
    spearman,
)
from ambi_plugin.analysis.prompts import first_prompt, second_prompt
from ambi_plugin.cli.demo import TINY_MODEL_ARGS
from ambi_plugin.lmms.analysis_driver import load_backend
from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

from .tiny_models import PLANTED, preload_qwen_backend, save_planted_qwen

preload_qwen_backend()

SIBLING = (PLANTED[0], PLANTED[1] ^ 1)  # 4 query heads on 2 K/V heads: heads 0 and 1 share one


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def test_spearman_on_known_inputs():
    from scipy.stats import spearmanr

    a = np.array([1.0, 2, 3, 4, 5])
    assert spearman(a, 10 * a + 3) == pytest.approx(1.0)
    assert spearman(a, -(a**3)) == pytest.approx(-1.0)
    b = np.array([5.0, 6, 7, 8, 7])  # ranks 1, 2, 3.5, 5, 3.5: r = 8 / sqrt(10 * 9.5)
    assert spearman(a, b) == pytest.approx(8 / np.sqrt(95))
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 6)), rng.integers(0, 4, size=(4, 6)).astype(float)  # ties on one side
    assert spearman(x, y) == pytest.approx(spearmanr(x.ravel(), y.ravel()).statistic)
    y[0, :3] = np.nan  # entries missing on either side are left out
    keep = np.isfinite(y.ravel())
    assert spearman(x, y) == pytest.approx(spearmanr(x.ravel()[keep], y.ravel()[keep]).statistic)
    assert np.isnan(spearman(np.ones(4), a[:4])) and np.isnan(spearman([1.0, np.nan], [2.0, 3.0]))


def test_the_heads_patched_one_by_one_are_the_union_of_the_top_k_rankings():
    s = np.array([[0.9, 0.1, 0.5], [0.2, np.nan, 0.8]])
    atp = np.array([[0.0, 0.7, 0.6], [np.nan, 0.9, -1.0]])
    star = np.array([[0.3, 0.2, 0.1], [0.0, 0.0, 0.05]])
    # top 2 by s: (0, 0), (1, 2); by AtP: (1, 1), (0, 1); by AtP*: (0, 0), (0, 1); NaN never ranks
    got = select_heads((2, 3), k=2, scores=s, atp=atp, atp_star=star)
    assert got == [((0, 0), "s+atp*"), ((0, 1), "atp+atp*"), ((1, 1), "atp"), ((1, 2), "s")]
    assert select_heads((2, 3), k=2, scores=s, atp=np.array([[0.9, 0.0, 0.0], [0.0, 0.0, 0.8]])) == [
        ((0, 0), "both"),
        ((1, 2), "both"),
    ]
    both_star = select_heads((2, 3), k=1, scores=s, atp=np.array([[0.9, 0, 0], [0, 0, 0]]), atp_star=star)
    assert both_star == [((0, 0), "both+atp*")]
    assert select_heads((2, 3), k=1, scores=s) == [((0, 0), "s")], "without AtP: the top by s alone"
    assert select_heads((2, 3), k=0, scores=s, atp=atp) == [] and select_heads((2, 3), k=3) == []
    assert len(select_heads((2, 3), k=10, scores=s)) == 5, "k beyond the scored heads: every scored head"
    every = select_heads((2, 3), k=1, scores=s, all_heads=True)
    assert every == [((l_, h), "all") for l_ in range(2) for h in range(3)]
    given = select_heads((2, 3), k=1, scores=s, all_heads=True, given=[(1, 2), [0, 1], (1, 2)])
    assert given == [((1, 2), "given"), ((0, 1), "given")], "given as is (first mention, no duplicates)"
    ties = select_heads((2, 3), k=2, scores=np.ones((2, 3)))
    assert ties == [((0, 0), "s"), ((0, 1), "s")], "ties: the first heads in (layer, head) order"
    many = np.random.default_rng(1).integers(0, 3, size=(4, 10)).astype(float)  # ties among 40 heads
    want = sorted(((layer, head) for layer in range(4) for head in range(10)), key=lambda h: -many[h])[:5]
    assert [h for h, _ in select_heads((4, 10), k=5, atp=many)] == sorted(want)
    json_map = [[0.9, None, 0.5], [None, 0.7, 0.1]]  # a map read back from the JSON: null for an unscored head
    assert select_heads((2, 3), k=2, scores=json_map) == [((0, 0), "s"), ((1, 1), "s")]
    assert select_heads((2, 3), k=-1, scores=s) == [], "no head for k < 1"


def test_only_single_token_positions_counted_from_the_end_can_be_patched():
    assert patch_position("last_prompt") == -1 and patch_position("-3") == -3 and patch_position(-2) == -2
    with pytest.raises(PatchingError, match="one token position, but the capture used 'mean_prompt'"):
        patch_position("mean_prompt")
    with pytest.raises(PatchingError, match="`position` to be one of"):
        patch_position("middle")
    with pytest.raises(PatchingError, match="--position last_prompt"):
        patch_position("mean_generated")
    with pytest.raises(PatchingError, match="Count from the end instead: -1 is the last prompt token"):
        patch_position("5")


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
def planted(tmp_path_factory):
    folder = save_planted_qwen(tmp_path_factory.mktemp("planted") / "qwen")
    return folder, load_backend("qwen2_5_vl", f"pretrained={folder},{TINY_MODEL_ARGS}")


def _items(images):
    return [PatchItem(f"b{i}", [img], first_prompt("bistable"), second_prompt("bistable", word))
            for i, (img, word) in enumerate(zip(images, ["duck", "vase", "woman"]))]  # fmt: skip


def test_patching_the_planted_head_restores_the_switch(planted, images):
    _, lm = planted
    others = [(0, 2), (1, 1), (3, 3)]
    data = patch_items(lm, _items(images), switch_heads=[PLANTED], draws=5, per_head=[PLANTED, SIBLING, *others],
                       progress=False)  # fmt: skip
    assert remaining_hooks(lm) == []
    assert data["n_items"] == 3 and data["skipped"] == [] and data["refused"] == [], (
        "the prompts predict different tokens"
    )
    cond = {c["condition"]: c for c in data["conditions"]}
    assert cond["switch heads"]["effect"] == pytest.approx(1.0, abs=1e-3) and cond["switch heads"]["flips"] == 3
    rnd = cond["layer-matched random sets"]
    assert abs(rnd["effect"]) < 1e-3 and rnd["flip_rate"] == 0.0
    perm = data["permutation"]  # one head in layer 2 of 4 heads: 3 layer-matched sets, each patched (exact)
    assert (
        perm["exact"] and perm["n"] == perm["n_possible"] == 3 and perm["k"] == 0 and perm["p"] == pytest.approx(1 / 4)
    )
    assert sorted(map(tuple, (h for s in perm["sets"] for h in s))) == [(2, 0), (2, 2), (2, 3)]
    per = {(r["layer"], r["head"]): r for r in data["per_head"]}
    assert per[PLANTED]["effect"] == pytest.approx(1.0, abs=1e-3) and per[PLANTED]["rank_exact"] == 1
    assert {r["from"] for r in data["per_head"]} == {"given"}
    assert abs(per[SIBLING]["effect"]) < 1e-3 and per[SIBLING]["flips"] == 0, "same K/V, carries nothing"
    assert all(abs(per[h]["effect"]) < 1e-3 for h in others)
    for item in data["items"]:  # per item too, not only on average
        assert item["switch heads"]["effect"] == pytest.approx(1.0, abs=1e-3) and item["switch heads"]["flip"]
        assert item["logp_b"] > item["logp_a"]
    atp = np.array(data["atp"], dtype=float)
    assert np.unravel_index(np.argmax(atp), atp.shape) == PLANTED and atp[PLANTED] > 0, (
        "AtP ranks the planted head first"
    )
    assert np.abs(np.delete(atp.ravel(), np.ravel_multi_index(PLANTED, atp.shape))).max() < 1e-3
    sp = data["spearman"]["atp_vs_exact"]
    assert sp["rho"] == pytest.approx(1.0) and sp["n_heads"] == 5 and sp["ci"] is not None
    # with a switching-score map, all three rankings are compared
    s = np.zeros((4, 4))
    s[PLANTED] = 0.9
    again = patch_items(lm, _items(images)[:1], switch_heads=[PLANTED], draws=0, per_head=[PLANTED, SIBLING],
                        scores=s, progress=False)  # fmt: skip
    assert again["spearman"]["s_vs_atp"]["rho"] > 0.5 and again["spearman"]["s_vs_exact"]["rho"] == pytest.approx(1.0)
    assert again["spearman"]["s_vs_exact"]["ci"] is None, "one image: no interval"


def test_cost_skipped_items_union_and_settings_said(planted, images):
    """The cost is said first (images x (heads + switch set + random sets) forward passes, measured seconds per pass);
    an image whose prompts predict the same token is skipped and named; duplicates in the switch heads count once;
    the default selection is the union of the top-k by s and by AtP."""
    _, lm = planted
    said = []
    p1 = first_prompt("bistable")
    items = [*_items(images)[:2], PatchItem("same", [images[2]], p1, p1)]
    s = np.zeros((4, 4))
    s[PLANTED], s[0, 0] = 0.9, 0.5
    data = patch_items(lm, items, switch_heads=[PLANTED, list(PLANTED)], scores=s, top_k=1, draws=2, say=said.append,
                       progress=False)  # fmt: skip
    assert data["skipped"] == [{"id": "same", "reason": "the two runs predict the same first answer token"}]
    assert data["n_items"] == 2 and [it["id"] for it in data["items"]] == ["b0", "b1"]
    assert data["conditions"][0]["heads"] == [list(PLANTED)], "a head named twice is patched once"
    assert data["selection"] == {"mode": "union", "k": 1, "atp_star": False, "n_heads": 1}
    assert [(r["layer"], r["head"], r["from"]) for r in data["per_head"]] == [(*PLANTED, "both")]
    perm = data["permutation"]
    assert perm["n"] == 2 and perm["n_possible"] == 3 and perm["exact"] is False, "2 draws of the 3 possible sets"
    cost = data["cost"]
    assert cost["forward_passes"] == 2 * (1 + 2 + 1) and cost["seconds_per_pass"] > 0
    assert cost["estimate_s"] == pytest.approx(8 * cost["seconds_per_pass"])
    assert len(said) == 1 and said[0].startswith(
        "patching: 2 images x (1 heads one by one + the switch set + 2 layer-matched random sets) = 8 forward passes x "
    )
    assert said[0].endswith(f" s per pass (measured on this model) = about {_duration(cost['estimate_s'])}")
    none = patch_items(lm, items[2:], switch_heads=[PLANTED], all_heads=True, draws=2, say=said.append, progress=False)
    assert none["n_items"] == 0 and none["cost"] == {"forward_passes": 0, "seconds_per_pass": None, "estimate_s": None}
    assert said[-1].startswith("patching: 0 images x (every head one by one") and said[-1].endswith(
        "= about unknown (no image was run)"
    )
    assert none["selection"]["mode"] == "all" and none["items"] == [] and none["permutation"]["p"] is None
    for bad, what in (([(0, -1)], r"head \(0, -1\)"), ([(0, 4)], r"head \(0, 4\)"), ([(4, 0)], r"head \(4, 0\)")):
        with pytest.raises(PatchingError, match=what + r" is outside the model's 4 x 4 heads"):
            patch_items(lm, items, switch_heads=[PLANTED], per_head=bad, draws=0, progress=False)
    with pytest.raises(PatchingError, match=r"head \(-1, 0\) is outside"):
        patch_items(lm, items, switch_heads=[(-1, 0)], draws=0, progress=False)
    with pytest.raises(PatchingError, match="no switch heads to patch"):
        patch_items(lm, items, switch_heads=[], draws=0, progress=False)
    assert remaining_hooks(lm) == []


def test_an_image_after_a_skipped_one_is_patched_and_atp_star_joins_the_union_and_the_seed_draws_the_sets(
    planted, images
):
    """A skipped image does not end the loop (the images after it are patched); with AtP* on, the heads patched one
    by one are the union of the top-k by s, AtP and AtP* (its mean over the images is computed and used); heads given
    by the caller are said as such; the layer-matched random sets are those the seed draws."""
    from ambi_plugin.analysis.patch_stats import layer_matched_sets

    _, lm = planted
    p1 = first_prompt("bistable")
    items = [PatchItem("same", [images[2]], p1, p1), *_items(images)[:1]]
    s = np.zeros((4, 4))
    s[0, 0] = 0.9  # the top head by s is not the planted one
    data = patch_items(lm, items, switch_heads=[PLANTED], scores=s, top_k=1, atp_star=True, draws=2, seed=3,
                       progress=False)  # fmt: skip
    assert [r["id"] for r in data["skipped"]] == ["same"] and data["n_items"] == 1
    assert data["selection"] == {"mode": "union", "k": 1, "atp_star": True, "n_heads": 2}
    origin = {(r["layer"], r["head"]): r["from"] for r in data["per_head"]}
    assert origin[(0, 0)] == "s" and "atp*" in origin[PLANTED], origin
    want = layer_matched_sets([PLANTED], (4, 4), 2, 3)[0]
    assert sorted(map(sorted, data["permutation"]["sets"])) == sorted(sorted(map(list, st)) for st in want)
    given = patch_items(lm, items[1:], switch_heads=[PLANTED], per_head=[PLANTED], draws=0, progress=False)
    assert given["selection"]["mode"] == "given"
    assert remaining_hooks(lm) == []


def test_durations_are_said_in_a_readable_unit():
    assert _duration(0.04) == "0.0 s" and _duration(119.94) == "119.9 s"
    assert _duration(120) == "2.0 min" and _duration(7199) == "120.0 min"
    assert _duration(7200) == "2.0 h" and _duration(36000) == "10.0 h"
    assert _duration(float("nan")) == "unknown (no image was run)" and _duration(float("inf")).startswith("unknown")


def test_patching_every_head_of_an_ordinary_model_restores_everything(tmp_path, images):
    """Positive control on the unplanted tiny model: the last position's residual is its token embedding plus the
    attention outputs plus MLPs of it, so patching every head there makes run A's next token exactly run B's."""
    folder = make_tiny_qwen2_5_vl(tmp_path / "qwen")
    lm = load_backend("qwen2_5_vl", f"pretrained={folder},{TINY_MODEL_ARGS}")
    every = [(a, b) for a in range(4) for b in range(4)]
    data = patch_items(lm, _items(images), switch_heads=every, draws=0, per_head=[], progress=False)
    assert data["n_items"] + len(data["skipped"]) == 3 and data["n_items"] >= 1
    cond = data["conditions"][0]
    assert cond["effect"] == pytest.approx(1.0, abs=1e-3) and cond["flips"] == data["n_items"]
    assert remaining_hooks(lm) == []


def test_cli_patch_writes_table_and_plot_beside_the_others(planted, images, tmp_path, capsys):
    from ambi_plugin.cli.switch_heads import cmd_patch, cmd_scores

    _, lm = planted
    rows = [{"id": f"b{i}", "benchmark": "ambibench", "category": "bistable", "task_type": "open", "image": img,
             "views": [{"name": "i1", "labels": ["duck"]}, {"name": "i2", "labels": ["rabbit"]}],
             "views_positional": False} for i, img in enumerate(images)]  # fmt: skip
    recs = tmp_path / "bistable_open.jsonl"
    recs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    capture_category(lm, load_items(str(recs), "bistable"), out, category="bistable", rule="differs",
                     gen_kwargs={"max_new_tokens": 3})  # fmt: skip
    cmd_scores(argparse.Namespace(out=str(out), category=["bistable"], k=10, threshold=0.8, top_fraction=0.01,
                                  max_fraction=0.1))  # fmt: skip
    args = argparse.Namespace(out=str(out), category=["bistable"], records=str(recs), heads=None, position=None,
                              per_head_k=0, all_heads=False, atp_star=False, draws=10, seed=0, n_boot=200,
                              limit=None, model="qwen2_5_vl", model_args="")  # fmt: skip
    capsys.readouterr()
    assert cmd_patch(args, lm) == 0
    printed = capsys.readouterr().out
    cost = printed.index("every head one by one + the switch set")  # --per-head-k 0: the cost first, then the table
    assert "forward passes x" in printed[cost:] and " s per pass (measured on this model)" in printed[cost:]
    assert cost < printed.index("Activation patching on")
    data = json.loads((out / "patching_bistable.json").read_text())
    n_switched = sum(it["switched"] for it in json.loads((out / "bistable" / "capture.json").read_text())["items"])
    assert data["n_items"] + len(data["skipped"]) == n_switched >= 1
    assert data["heads_file"].endswith("switch_heads_bistable.json") and len(data["per_head"]) == 16
    assert {r["from"] for r in data["per_head"]} == {"all"} and data["selection"]["mode"] == "all"
    exact = np.array(data["exact"], dtype=float)
    assert np.unravel_index(np.nanargmax(exact), exact.shape) == PLANTED and exact[PLANTED] == pytest.approx(
        1.0, abs=1e-3
    )
    assert set(data["spearman"]) == {"s_vs_atp", "s_vs_exact", "atp_vs_exact"}
    assert data["spearman"]["atp_vs_exact"]["n_heads"] == 16
    md = (out / "patching_bistable.md").read_text()
    assert "| switch heads |" in md and "Permutation test (one-sided): p = " in md and "first answer token" in md
    for png in ("patching_bistable.png", "atp_bistable.png", "heatmap_bistable.png"):
        assert (out / png).read_bytes()[:4] == b"\x89PNG"

    # `ambi report` on the run folder includes the causal check (no Table 3 run there: the patching alone)
    from ambi_plugin.cli import main

    assert main(["report", str(out), "--out", str(tmp_path / "rep"), "--quiet"]) == 0
    text = (tmp_path / "rep" / "report.md").read_text()
    assert "## Switch heads: causal check" in text and "### run: bistable" in text and "| switch heads | 1 |" in text
    assert "| (2, 1) | all |" in text and "Rank agreement (Spearman)" in text
    assert (tmp_path / "rep" / "plots" / "patching_0_bistable.png").read_bytes()[:4] == b"\x89PNG"
    assert "](plots/patching_0_bistable.png)" in text
    # the same section, as data, in report.json: one dict per category (what the HTML renders too)
    assert main(["report", str(out), "--out", str(tmp_path / "rep"), "--format", "json", "--quiet"]) == 0
    (section,) = json.loads((tmp_path / "rep" / "report.json").read_text())["switch_heads"]
    assert set(section) == {"category", "folder", "model", "plot", "headline", "scope", "tables", "permutation",
                            "notes", "skipped", "refused"}  # fmt: skip
    assert [t["key"] for t in section["tables"]] == ["conditions", "heads", "rank_agreement"]
    heads = section["tables"][1]
    assert len(heads["rows"]) == 16 and all(len(r) == len(heads["columns"]) for r in heads["rows"])
    assert section["permutation"]["p"] == pytest.approx(
        (section["permutation"]["k"] + 1) / (section["permutation"]["n"] + 1)
    )
