"""The patching table's data from patched images with known effects, checked against hand computations: the switch
set's mean effect and flips, the layer-matched random sets, the permutation p-value, the per-head rows (effect, rank,
AtP, AtP*, NaN/inf counts), the rank agreements, the maps and the per-image rows. No model: the patched results are
written in by hand, as :func:`ambi_plugin.analysis.patching.patch_items` leaves them on each image."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import spearmanr

from ambi_plugin.analysis.patch_summary import DEFINITION, summarize
from ambi_plugin.analysis.patching import PatchItem, _State

NAN = float("nan")
SHAPE = (2, 3)
SWITCH = [(1, 2)]
HEADS = [((0, 0), "s"), ((0, 1), "atp"), ((1, 2), "both")]
SETS = [[(1, 0)], [(1, 1)]]
# per image: the switch set's (effect, flip), each patched head's, each random set's
SWITCH_RES = [(1.0, True), (0.6, False), (0.8, True)]
HEAD_RES = [
    [(0.1, False), (0.5, True), (0.9, True)],
    [(0.3, False), (NAN, None), (0.7, True)],  # head (0, 1) gave NaN logits on image 1
    [(-0.2, False), (0.4, False), (1.1, True)],
]
SET_RES = [[(0.2, False), (-0.1, False)], [(0.0, False), (NAN, None)], [(0.1, True), (0.5, False)]]
ATP = [np.array([[0.1, 0.6, 0.0], [0.2, -0.3, 0.9]]) + np.random.default_rng(i).normal(scale=0.4, size=SHAPE)
       for i in range(3)]  # fmt: skip
STAR = [np.abs(a) + 0.05 * i for i, a in enumerate(ATP)]
SCORES = np.array([[0.3, 0.1, 0.5], [0.2, 0.4, 0.95]])


def _states(n: int = 3, *, star: bool = True) -> list[_State]:
    out = []
    for i in range(n):
        bad = np.zeros(SHAPE, dtype=bool)
        bad[0, 2] = i == 1  # head (0, 2): NaN/inf output on image 1
        st = _State(PatchItem(f"img{i}", [], "p1", "p2"), None, None, 10 + i, 20 + i, -3.0 - i, -1.0, ATP[i],
                    STAR[i] if star else None, bad)  # fmt: skip
        st.results = {"switch": SWITCH_RES[i], "heads": HEAD_RES[i], "sets": SET_RES[i]}
        out.append(st)
    return out


def _summary(states, *, heads=HEADS, sets=SETS, set_info=None, scores=SCORES, atp_star=True, **kw):
    args = dict(skipped=[{"id": "s", "reason": "same token"}], refused=[{"id": "r", "reason": "re-run differs"}],
                switch=SWITCH, heads=heads, sets=sets, set_info=set_info or {"exact": True, "n_possible": 2},
                shape=SHAPE, scores=scores, position="last_prompt", cost={"forward_passes": 7}, n_boot=400, seed=3,
                confidence=0.9, atp_star=atp_star, mode="union", top_k=2)  # fmt: skip
    return summarize(states, **{**args, **kw})


def _boot_ci(x, n_boot=400, seed=3, confidence=0.9):
    """Percentile interval of the mean of the finite values over image resamples (the documented bootstrap)."""
    x = np.asarray(x, dtype=float)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(n_boot, len(x)))
    means = np.array([np.nanmean(x[row]) if np.isfinite(x[row]).any() else np.nan for row in idx])
    tail = 100 * (1 - confidence) / 2
    return list(np.percentile(means[np.isfinite(means)], [tail, 100 - tail]))


def test_conditions_permutation_and_header():
    data = _summary(_states(), refused_nonfinite=np.array([[0, 0, 0], [2, 0, 0]]))
    assert data["definition"] == DEFINITION and "/ (logp_B(b) - logp_A(b))" in DEFINITION
    assert data["n_items"] == 3 and data["position"] == "last_prompt" and data["cost"] == {"forward_passes": 7}
    assert data["skipped"] == [{"id": "s", "reason": "same token"}] and data["refused"][0]["id"] == "r"
    assert data["selection"] == {"mode": "union", "k": 2, "atp_star": True, "n_heads": 3}
    assert (data["confidence"], data["n_boot"], data["seed"]) == (0.9, 400, 3)
    assert data["scope"] == (
        "one token position, one direction (run B's head outputs written into run A), first answer token only"
    )

    switch, rnd = data["conditions"]
    assert switch["condition"] == "switch heads" and switch["heads"] == [[1, 2]]
    assert switch["effect"] == pytest.approx(0.8) and switch["n"] == 3 and switch["n_nonfinite"] == 0
    assert switch["flips"] == 2 and switch["n_flip_known"] == 3
    assert switch["ci"] == pytest.approx(_boot_ci([1.0, 0.6, 0.8]))
    # each image's mean over the sets (image 1: only set 0 has a value), then the mean over images
    per_image = [0.05, 0.0, 0.3]
    assert rnd["condition"] == "layer-matched random sets" and rnd["n_sets"] == 2 and rnd["exact"] is True
    assert rnd["effect"] == pytest.approx(np.mean(per_image)) and rnd["n"] == 3
    assert rnd["ci"] == pytest.approx(_boot_ci(per_image))
    assert rnd["flip_rate"] == pytest.approx(1 / 5), "one flip among the five known outcomes"

    perm = data["permutation"]  # each set's mean over images: 0.1 and 0.2, both below 0.8
    assert perm["p"] == pytest.approx(1 / 3) and perm["k"] == 0 and perm["n"] == 2
    assert perm["observed"] == pytest.approx(0.8) and perm["set_effects"] == pytest.approx([0.1, 0.2])
    assert perm["null_mean"] == pytest.approx(0.15)
    assert perm["null_range"] == pytest.approx([0.1 + 0.05 * 0.1, 0.2 - 0.05 * 0.1]), "the middle 90% of the sets"
    assert perm["exact"] is True and perm["n_possible"] == 2 and perm["layer_matched"] is True and perm["seed"] == 3
    assert perm["sets"] == [[[1, 0]], [[1, 1]]]
    assert perm["statistic"] == "mean effect over images"
    assert perm["alternative"] == "the switch set's mean effect is larger"


def test_a_random_set_as_strong_as_the_switch_set_counts_against_it():
    states = _states()
    for st, eff in zip(states, (0.9, 0.9, 0.9)):
        st.results["sets"] = [st.results["sets"][0], (eff, True)]
    perm = _summary(states)["permutation"]
    assert perm["k"] == 1 and perm["p"] == pytest.approx(2 / 3) and perm["set_effects"][1] == pytest.approx(0.9)


def test_per_head_rows_rank_atp_star_and_nonfinite_counts():
    data = _summary(_states(), refused_nonfinite=np.array([[0, 0, 0], [0, 0, 2]]))
    rows = data["per_head"]
    assert [(r["layer"], r["head"], r["from"]) for r in rows] == [(0, 0, "s"), (0, 1, "atp"), (1, 2, "both")]
    assert [r["s"] for r in rows] == [0.3, 0.1, 0.95]
    assert [r["effect"] for r in rows] == pytest.approx([0.2 / 3, 0.45, 0.9])
    assert [r["rank_exact"] for r in rows] == [3, 2, 1], "highest mean effect first"
    assert [r["n"] for r in rows] == [3, 2, 3] and [r["n_nonfinite"] for r in rows] == [0, 1, 0]
    assert [r["flips"] for r in rows] == [0, 1, 3] and [r["n_flip_known"] for r in rows] == [3, 2, 3]
    atp = np.stack(ATP)
    assert [r["atp"] for r in rows] == pytest.approx([atp[:, 0, 0].mean(), atp[:, 0, 1].mean(), atp[:, 1, 2].mean()])
    star = np.stack(STAR)
    assert [r["atp_star"] for r in rows] == pytest.approx([star[:, 0, 0].mean(), star[:, 0, 1].mean(),
                                                           star[:, 1, 2].mean()])  # fmt: skip
    assert rows[2]["ci"] == pytest.approx(_boot_ci([0.9, 0.7, 1.1]))
    assert rows[1]["ci"] == pytest.approx(_boot_ci([0.5, NAN, 0.4]))
    assert rows[0]["atp_ci"] == pytest.approx(_boot_ci(atp[:, 0, 0]))
    assert rows[1]["atp_star_ci"] == pytest.approx(_boot_ci(star[:, 0, 1]))
    # NaN/inf head outputs: head (0, 2) on image 1 of the kept ones, head (1, 2) on two refused images
    assert [r["n_nonfinite_activations"] for r in rows] == [0, 0, 2]
    bad = data["nonfinite_activations"]
    assert bad == {"per_head": [[0, 0, 1], [0, 0, 2]], "total": 3, "heads": 2}


def test_rank_agreements_against_an_independent_spearman():
    data = _summary(_states())
    atp, star = np.stack(ATP), np.stack(STAR)
    exact = np.array([0.2 / 3, 0.45, 0.9])
    cells = ([0, 0, 1], [0, 1, 2])
    sp = data["spearman"]
    assert set(sp) == {"atp_vs_exact", "atp_star_vs_abs_exact", "s_vs_exact", "s_vs_atp"}
    assert sp["atp_vs_exact"]["rho"] == pytest.approx(spearmanr(atp.mean(0)[cells], exact).statistic)
    assert sp["atp_vs_exact"]["n_heads"] == 3 and sp["atp_vs_exact"]["over"] == "the heads patched one by one"
    assert sp["s_vs_exact"]["rho"] == pytest.approx(spearmanr(SCORES[cells], exact).statistic)
    assert sp["s_vs_atp"]["rho"] == pytest.approx(spearmanr(SCORES.ravel(), atp.mean(0).ravel()).statistic)
    assert sp["s_vs_atp"]["n_heads"] == 6 and sp["s_vs_atp"]["over"] == "every head"
    star_rho = spearmanr(star.mean(0)[cells], np.abs(exact)).statistic
    assert sp["atp_star_vs_abs_exact"]["rho"] == pytest.approx(star_rho)
    assert sp["atp_star_vs_abs_exact"]["note"] == (
        "AtP* is a magnitude: ranked against the size of the exact effect, |effect|"
    )
    assert "note" not in sp["atp_vs_exact"]
    for c in sp.values():
        assert c["ci"] is not None and -1.0 <= c["ci"][0] <= c["ci"][1] <= 1.0
    # a negative effect: AtP* is ranked against its size
    states = _states()
    for st in states:
        st.results["heads"] = [(-5.0, False), *st.results["heads"][1:]]
    neg = _summary(states)["spearman"]["atp_star_vs_abs_exact"]
    assert neg["rho"] == pytest.approx(spearmanr(star.mean(0)[cells], [5.0, 0.45, 0.9]).statistic)


def test_maps_and_per_image_rows():
    data = _summary(_states())
    np.testing.assert_allclose(np.array(data["atp"], dtype=float), np.stack(ATP).mean(0))
    np.testing.assert_allclose(np.array(data["atp_star"], dtype=float), np.stack(STAR).mean(0))
    exact = np.array(data["exact"], dtype=float)  # only the heads patched one by one have a value
    assert data["exact"][0][2] is None and data["exact"][1][0] is None and data["exact"][1][1] is None
    assert exact[0, 0] == pytest.approx(0.2 / 3) and exact[0, 1] == pytest.approx(0.45) and exact[1, 2] == 0.9
    first, second = data["items"][0], data["items"][1]
    assert (first["id"], first["token_a"], first["token_b"], first["logp_a"], first["logp_b"]) == ("img0", 10, 20,
                                                                                                      -3.0, -1.0)  # fmt: skip
    assert first["switch heads"] == {"effect": 1.0, "flip": True}
    assert second["switch heads"] == {"effect": 0.6, "flip": False}
    assert second["per_head"] == {"0,0": {"effect": 0.3, "flip": False}, "0,1": {"effect": None, "flip": None},
                                  "1,2": {"effect": 0.7, "flip": True}}  # fmt: skip
    assert second["set_effects"] == [0.0, None]
    np.testing.assert_allclose(np.array(second["atp"]), ATP[1])
    np.testing.assert_allclose(np.array(data["items"][2]["atp_star"]), STAR[2])


def test_without_atp_star_or_scores():
    data = _summary(_states(star=False), atp_star=False, scores=None)
    assert data["atp_star"] is None and "atp_star" not in data["items"][0]
    assert all("atp_star" not in r and r["s"] is None for r in data["per_head"])
    assert set(data["spearman"]) == {"atp_vs_exact"}
    assert data["selection"]["atp_star"] is False


def test_an_atp_map_with_a_nan_image_averages_the_others(recwarn):
    states = _states()
    states[1].atp = np.full(SHAPE, np.nan)
    states[2].atp = states[2].atp.copy()
    states[2].atp[0, 0] = np.inf
    data = _summary(states)
    atp = np.array(data["atp"], dtype=float)
    assert atp[0, 0] == pytest.approx(ATP[0][0, 0]) and atp[1, 2] == pytest.approx((ATP[0][1, 2] + ATP[2][1, 2]) / 2)
    assert data["items"][1]["atp"] == [[None] * 3] * 2
    states[0].atp = states[2].atp = np.full(SHAPE, np.nan)  # no image with a value: None, quietly
    assert _summary(states)["atp"] == [[None] * 3] * 2
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_no_random_set_and_no_head_patched_one_by_one():
    states = _states()
    for st in states:
        st.results.update(heads=[], sets=[])
    data = _summary(states, heads=[], sets=[], set_info={"exact": False, "n_possible": 0, "reason": "too few"})
    rnd = data["conditions"][1]
    assert rnd["n_sets"] == 0 and rnd["effect"] is None and rnd["flip_rate"] is None and rnd["exact"] is False
    perm = data["permutation"]
    assert perm["p"] is None and perm["n"] == 0 and perm["null_mean"] is None and perm["null_range"] is None
    assert perm["reason"] == "too few" and perm["set_effects"] == []
    assert data["per_head"] == [] and data["selection"]["n_heads"] == 0
    assert data["spearman"]["atp_star_vs_abs_exact"]["rho"] is None
    assert data["spearman"]["atp_vs_exact"]["rho"] is None and data["spearman"]["s_vs_exact"]["n_heads"] == 0
    assert np.isnan(np.array(data["exact"], dtype=float)).all()
    assert data["items"][0]["per_head"] == {} and data["items"][0]["set_effects"] == []


def test_every_set_nan_on_every_image(recwarn):
    states = _states()
    for st in states:
        st.results["sets"] = [(NAN, None), (NAN, None)]
    data = _summary(states)
    rnd, perm = data["conditions"][1], data["permutation"]
    assert rnd["effect"] is None and rnd["flip_rate"] is None and rnd["n"] == 0
    assert perm["set_effects"] == [None, None] and perm["k"] == 2 and perm["p"] == 1.0, "a set without a value counts"
    assert perm["null_mean"] is None and perm["null_range"] is None
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], "no value: None, quietly"


def test_no_image_left():
    refused = np.zeros(SHAPE, dtype=int)
    refused[1, 1] = 3
    data = _summary([], refused_nonfinite=refused)
    assert data["n_items"] == 0 and data["items"] == []
    switch = data["conditions"][0]
    assert switch["effect"] is None and switch["ci"] is None and switch["n"] == 0 and switch["flips"] == 0
    assert data["permutation"]["p"] is None and data["permutation"]["observed"] is None
    assert data["atp"] == [[None] * 3] * 2 and data["atp_star"] == [[None] * 3] * 2
    assert data["nonfinite_activations"] == {"per_head": [[0, 0, 0], [0, 3, 0]], "total": 3, "heads": 1}
    assert json.dumps(data["nonfinite_activations"]["per_head"]) == "[[0, 0, 0], [0, 3, 0]]", "counts, as integers"
    assert [r["effect"] for r in data["per_head"]] == [None, None, None]
    without = _summary([], atp_star=False)
    assert without["atp_star"] is None and without["nonfinite_activations"]["total"] == 0


def _boot_spearman(a, b, idx, confidence):
    """The percentile interval of scipy's Spearman over the image resamples of ``a`` and ``b`` (``[n, m]`` per image,
    or ``[m]`` fixed)."""

    def mean(x, row):
        return x if x.ndim == 1 else x[row].mean(0)

    rhos = np.array([spearmanr(mean(a, row), mean(b, row)).statistic for row in idx])
    tail = 100 * (1 - confidence) / 2
    return list(np.percentile(rhos, [tail, 100 - tail]))


def test_rank_agreement_intervals_over_the_image_resamples():
    """Each interval: Spearman of each resample's mean AtP (AtP*, s) and mean effect per head, at the asked
    confidence (90%: the 5th and 95th percentiles); 12 heads, 8 noisy images."""
    rng = np.random.default_rng(11)
    shape, n = (3, 4), 8
    heads = [((layer, head), "all") for layer in range(3) for head in range(4)]
    truth = np.arange(12.0)
    effects = truth + rng.normal(scale=4.0, size=(n, 12))
    atp = truth + rng.normal(scale=4.0, size=(n, 12))
    star = np.abs(truth - 5.5) + rng.normal(scale=2.0, size=(n, 12))
    s = truth + rng.normal(scale=3.0, size=12)
    states = []
    for i in range(n):
        st = _State(PatchItem(f"i{i}", [], "p1", "p2"), None, None, 1, 2, -2.0, -1.0, atp[i].reshape(shape),
                    star[i].reshape(shape), np.zeros(shape, dtype=bool))  # fmt: skip
        st.results = {"switch": (1.0, True), "heads": [(e, True) for e in effects[i]], "sets": []}
        states.append(st)
    data = _summary(states, heads=heads, sets=[], shape=shape, scores=s.reshape(shape))
    idx = np.random.default_rng(3).integers(0, n, size=(400, n))
    sp = data["spearman"]
    for key, a, b in (("atp_vs_exact", atp, effects), ("atp_star_vs_abs_exact", star, np.abs(effects.mean(0))),
                      ("s_vs_exact", s, effects), ("s_vs_atp", s, atp)):  # fmt: skip
        if key == "atp_star_vs_abs_exact":  # |the resample's mean effect|
            rhos = [spearmanr(star[row].mean(0), np.abs(effects[row].mean(0))).statistic for row in idx]
            want = list(np.percentile(rhos, [5, 95]))
            assert want != list(np.percentile(rhos, [2.5, 97.5]))
        else:
            want = _boot_spearman(a, b, idx, 0.9)
            assert want != _boot_spearman(a, b, idx, 0.95), "the two confidences differ on these data"
        assert sp[key]["ci"] == pytest.approx(want), key


def test_exact_rank_puts_a_head_without_effect_last_and_keeps_ties_in_order():
    shape = (4, 5)
    heads = [((layer, head), "all") for layer in range(4) for head in range(5)]
    effects = [0.5, 0.2, 0.5, np.nan, 0.2] * 4  # ties across 20 heads (numpy's default sort is unstable there)
    effects[7] = -0.5
    states = []
    for i in range(2):
        st = _State(PatchItem(f"i{i}", [], "p1", "p2"), None, None, 1, 2, -2.0, -1.0, np.zeros(shape), None,
                    np.zeros(shape, dtype=bool))  # fmt: skip
        st.results = {"switch": (1.0, True), "heads": [(e, None) for e in effects], "sets": []}
        states.append(st)
    data = summarize(states, skipped=[], refused=[], switch=[(0, 0)], heads=heads, sets=[], set_info={}, shape=shape,
                     scores=None, position=-1, cost={}, n_boot=10, seed=0, confidence=0.95, atp_star=False,
                     mode="all", top_k=0)  # fmt: skip
    ranks = [r["rank_exact"] for r in data["per_head"]]
    by_effect = sorted(range(20), key=lambda j: -np.nan_to_num(effects[j], nan=-np.inf))
    assert ranks == [by_effect.index(j) + 1 for j in range(20)]
    assert ranks[0] == 1 and ranks[2] == 2 and ranks[7] == 16 and {ranks[j] for j in (3, 8, 13, 18)} == {17, 18, 19, 20}
    assert data["exact"][0][3] is None and data["exact"][0][2] == 0.5, "a head without effect: null in the map"
