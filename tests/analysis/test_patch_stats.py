"""The patching statistics on known inputs: layer-matched sets, the permutation p-value, bootstrap intervals over
images, Spearman with its interval, ranks with ties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ambi_plugin.analysis.patch_stats import (
    bootstrap_indices,
    layer_matched_sets,
    mean_ci,
    permutation_p,
    ranks,
    spearman,
    spearman_ci,
)


def test_ranks_match_scipy_with_ties():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=40).astype(float)
    np.testing.assert_array_equal(ranks(x), rankdata(x))
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)


def test_layer_matched_sets_exact_when_few_and_drawn_when_many():
    switch = [(1, 0), (1, 1), (3, 2)]
    sets, info = layer_matched_sets(switch, (4, 4), draws=100, seed=0)
    assert info == {"exact": True, "n_possible": math.comb(2, 2) * math.comb(3, 1)}
    assert sorted(map(tuple, sets)) == [((1, 2), (1, 3), (3, h)) for h in (0, 1, 3)], "every set, once"
    sets, info = layer_matched_sets(switch, (4, 16), draws=50, seed=3)
    assert not info["exact"] and info["n_possible"] == math.comb(14, 2) * 15 and len(sets) == 50
    for s in sets:
        assert [h[0] for h in s] == [1, 1, 3] and not set(s) & set(switch) and len(set(s)) == 3
    assert sets == layer_matched_sets(switch, (4, 16), draws=50, seed=3)[0], "seeded"
    assert sets != layer_matched_sets(switch, (4, 16), draws=50, seed=4)[0]
    none, info = layer_matched_sets([(0, 0), (0, 1), (0, 2)], (2, 4), draws=10, seed=0)
    assert none == [] and "too few other heads in layer 0: 3 switch heads, 1 others" in info["reason"]


def test_permutation_p_is_k_plus_one_over_n_plus_one():
    assert permutation_p(0.5, [0.1, 0.2, 0.5, 0.7]) == {"p": 3 / 5, "k": 2, "n": 4}, "ties count against"
    assert permutation_p(0.9, [0.1] * 19)["p"] == pytest.approx(1 / 20)
    assert permutation_p(0.9, [0.1, np.nan])["k"] == 1, "a set without a value counts against the switch set"
    assert permutation_p(float("nan"), [0.1])["p"] is None and permutation_p(0.3, [])["p"] is None


def test_bootstrap_mean_interval_over_images():
    x = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    idx = bootstrap_indices(len(x), 4000, seed=0)
    got = mean_ci(x, idx)
    assert got["mean"] == pytest.approx(3.2) and got["n"] == 5 and got["n_nonfinite"] == 0
    boot = x[idx].mean(1)
    assert got["ci"] == pytest.approx(list(np.percentile(boot, [2.5, 97.5])))
    assert got["ci"][0] < 3.2 < got["ci"][1] and got["ci"][0] >= 0.0 and got["ci"][1] <= 10.0
    with_nan = mean_ci(np.array([1.0, np.nan, 3.0]), bootstrap_indices(3, 200, seed=0))
    assert with_nan["mean"] == 2.0 and with_nan["n"] == 2 and with_nan["n_nonfinite"] == 1
    one = mean_ci(np.array([0.7]), bootstrap_indices(1, 200, seed=0))
    assert one["mean"] == 0.7 and one["ci"] is None, "one image: no interval"
    cols = mean_ci(np.array([[1.0, 5.0], [3.0, 5.0]]), bootstrap_indices(2, 300, seed=1))
    assert cols["mean"] == [2.0, 5.0] and cols["ci"][1] == [5.0, 5.0] and cols["ci"][0][0] >= 1.0


def test_spearman_interval_from_the_same_image_resamples():
    rng = np.random.default_rng(0)
    truth = np.arange(6, dtype=float)
    exact = truth + rng.normal(scale=0.05, size=(8, 6))  # 8 images, 6 heads
    atp = 2 * truth + rng.normal(scale=0.05, size=(8, 6))
    idx = bootstrap_indices(8, 300, seed=0)
    got = spearman_ci(atp, exact, idx)
    assert got["rho"] == pytest.approx(1.0) and got["ci"] == [1.0, 1.0] and got["n_heads"] == 6
    noisy = spearman_ci(rng.normal(size=(8, 6)), exact, idx)
    assert noisy["ci"][1] - noisy["ci"][0] > 0.2, "an uninformative ranking gets a wide interval"
    fixed = spearman_ci(-truth, exact, idx)  # s: one value per head, fixed across images
    assert fixed["rho"] == pytest.approx(-1.0)
