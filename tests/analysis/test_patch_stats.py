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


def test_spearman_edges_two_entries_constant_sides_and_shapes():
    assert spearman([1.0, 2.0], [5.0, 3.0]) == pytest.approx(-1.0), "two heads are enough for a rank correlation"
    assert math.isnan(spearman([1.0, 2.0, np.nan], [5.0, np.inf, 3.0])), "one head finite in both: no correlation"
    assert math.isnan(spearman([1.0, 2.0, 3.0], [4.0, 4.0, 4.0])), "a constant side has no ranking"
    assert spearman([[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0, 3.0, 4.0]) == pytest.approx(1.0), "maps are flattened"
    with pytest.raises(ValueError, match=r"maps differ in shape: \(3,\) vs \(2,\)"):
        spearman([1.0, 2.0, 3.0], [1.0, 2.0])
    # ties share their average rank: ranks (1, 2.5, 2.5, 4) against (1, 2, 3, 4): r = 4.5 / sqrt(4.5 * 5)
    assert spearman([1.0, 2.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]) == pytest.approx(4.5 / math.sqrt(4.5 * 5))
    np.testing.assert_array_equal(ranks(np.array([3.0, 1.0, 2.0, 1.0])), [4.0, 1.5, 3.0, 1.5])


def test_bootstrap_resamples_are_seeded_draws_of_the_images():
    idx = bootstrap_indices(3, 500, seed=7)
    assert idx.shape == (500, 3) and idx.min() == 0 and idx.max() == 2, "every image can be drawn"
    np.testing.assert_array_equal(idx, np.random.default_rng(7).integers(0, 3, size=(500, 3)))
    assert bootstrap_indices(2, 1, seed=0).shape == (1, 2)
    assert bootstrap_indices(1, 100, seed=0).shape == (0, 1) and bootstrap_indices(5, 0, seed=0).shape == (0, 5)


def test_an_interval_needs_most_resamples_to_have_a_value():
    """A resample that drew only images without a value has no mean: the interval is over the others, and there is
    none when they are fewer than half the resamples."""
    x = np.array([1.0, np.nan])  # each resample of two images misses image 0 with chance 1/4
    idx = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    got = mean_ci(x, idx, confidence=0.5)
    assert got["mean"] == 1.0 and got["ci"] == [1.0, 1.0] and got["n"] == 1 and got["n_nonfinite"] == 1
    half = mean_ci(x, np.array([[0, 0], [1, 1]]))
    assert half["ci"] == [1.0, 1.0], "half the resamples with a value are enough"
    assert mean_ci(x, np.array([[0, 1], [1, 1], [1, 1]]))["ci"] is None, "one resample of three: no interval"
    assert (
        mean_ci(np.array([np.nan, np.nan]), idx)["ci"] is None and mean_ci(np.array([np.nan]), idx[:0])["mean"] is None
    )
    # the interval is the central `confidence` share of the resampled means
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
    idx = bootstrap_indices(len(y), 1000, seed=2)
    boot = y[idx].mean(1)
    for conf in (0.5, 0.8, 0.99):
        assert mean_ci(y, idx, conf)["ci"] == pytest.approx(
            list(np.percentile(boot, [50 * (1 - conf), 50 * (1 + conf)]))
        )
    cols = mean_ci(np.array([[1.0, np.nan], [3.0, np.nan], [np.inf, 2.0]]), idx[:, :3] % 3)
    assert cols["mean"] == [2.0, 2.0] and cols["n"] == [2, 1] and cols["n_nonfinite"] == [1, 2]
    assert cols["ci"][1] == [2.0, 2.0], "most resamples draw image 2 (1 - (2/3)^3), the only one with a value"
    assert mean_ci(np.array([[1.0, 2.0]]), idx[:0])["ci"] == [None, None], "one image: no interval per column"


def test_spearman_interval_ranks_each_resample_and_the_size_of_b_when_asked():
    idx = np.array([[0, 0, 1], [2, 2, 2], [0, 1, 2]])
    a = np.array([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [3.0, 2.0, 1.0]])  # 3 images x 3 heads
    b = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    got = spearman_ci(a, b, idx, confidence=1.0)
    per_resample = [spearman(a[row].mean(0), b[row].mean(0)) for row in idx]
    assert got["rho"] == pytest.approx(spearman(a.mean(0), b.mean(0)))
    assert got["ci"] == pytest.approx([min(per_resample), max(per_resample)]) and got["n_heads"] == 3
    signed = np.array([[-3.0, 1.0, 2.0]] * 3)
    fixed = np.array([3.0, 1.0, 2.0])
    assert spearman_ci(fixed, signed, idx)["rho"] == pytest.approx(-0.5)
    assert spearman_ci(fixed, signed, idx, absolute_b=True)["rho"] == pytest.approx(1.0)
    assert spearman_ci(fixed, signed, idx, absolute_b=True)["ci"] == [1.0, 1.0], "the resamples rank |b| too"
    none = spearman_ci(a, b, idx[:0])
    assert none["ci"] is None and none["rho"] == pytest.approx(spearman(a.mean(0), b.mean(0)))
    nan_head = b.copy()
    nan_head[:, 1] = np.nan
    assert spearman_ci(a, nan_head, idx)["n_heads"] == 2


def test_layer_matched_sets_edges():
    sets, info = layer_matched_sets([], (2, 4), draws=10, seed=0)
    assert sets == [] and info == {"exact": False, "n_possible": 0, "reason": "no switch heads"}
    # exactly as many possible sets as draws: every one, exact
    sets, info = layer_matched_sets([(0, 1)], (2, 4), draws=3, seed=0)
    assert info == {"exact": True, "n_possible": 3} and sets == [[(0, 0)], [(0, 2)], [(0, 3)]]
    sets, info = layer_matched_sets([(0, 1)], (2, 4), draws=2, seed=0)
    assert info == {"exact": False, "n_possible": 3} and len(sets) == 2 and all(s[0] != (0, 1) for s in sets)
    # as many other heads in the layer as switch heads: one set, exact
    sets, info = layer_matched_sets([(1, 0), (1, 1), (1, 2)], (2, 6), draws=1, seed=0)
    assert info == {"exact": True, "n_possible": 1} and sets == [[(1, 3), (1, 4), (1, 5)]]
    _, info = layer_matched_sets([(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)], (2, 4), draws=5, seed=0)
    assert info["reason"] == "too few other heads in layer 1: 3 switch heads, 1 others"
    assert layer_matched_sets([(0, 0), (0, 0)], (1, 2), draws=5, seed=0)[0] == [[(0, 1)]], (
        "a head named twice counts once"
    )


def test_values_read_back_from_the_json_with_nulls(recwarn):
    """The table's JSON writes a missing value as null: the p-value, a mean and a rank agreement recomputed from those
    lists read null as a missing value (counted against the switch set, left out of a mean)."""
    assert permutation_p(0.5, [0.1, None, 0.7]) == {"p": 3 / 4, "k": 2, "n": 3}
    got = mean_ci([0.5, None, 1.0], bootstrap_indices(3, 50, seed=0))
    assert got["mean"] == 0.75 and got["n"] == 2 and got["n_nonfinite"] == 1
    rho = spearman_ci([3.0, 1.0, 2.0], [[0.3, None, 0.2], [0.5, 0.1, 0.4]], bootstrap_indices(2, 20, seed=0))
    assert rho["rho"] == pytest.approx(1.0) and rho["n_heads"] == 3
    back = spearman_ci([[0.3, None, 0.2], [0.5, 0.1, 0.4]], [3.0, 1.0, 2.0], bootstrap_indices(2, 20, seed=0))
    assert back["rho"] == pytest.approx(1.0) and back["n_heads"] == 3, "null on either side"
    cols = mean_ci([[1.0, np.nan], [2.0, np.nan]], bootstrap_indices(2, 50, seed=0))
    assert cols["mean"] == [1.5, None] and cols["ci"][1] is None, "a head with no value on any image"
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], "quietly: no numpy warning"


def test_resamples_are_integer_indices_even_when_there_are_none():
    x = np.array([0.7])
    for idx in (bootstrap_indices(1, 10, seed=0), bootstrap_indices(4, 0, seed=0)):
        assert idx.dtype.kind == "i" and x[idx[:, :1]].shape == (0, 1)


def test_no_p_value_without_an_observed_effect_or_sets():
    assert permutation_p(float("nan"), [0.1, 0.2]) == {"p": None, "k": None, "n": 2}
    assert permutation_p(0.4, []) == {"p": None, "k": None, "n": 0}
    _, info = layer_matched_sets([(0, 0), (0, 1), (1, 0), (1, 1)], (2, 3), draws=5, seed=0)
    assert info["reason"] == (
        "too few other heads in layer 0: 2 switch heads, 1 others; layer 1: 2 switch heads, 1 others"
    ), "every short layer named"


def test_rank_agreement_of_maps_read_back_from_the_json(recwarn):
    """The JSON's maps (AtP, exact effects) hold null for a head without a value: Spearman leaves it out."""
    atp = [[0.3, None, 0.1], [0.9, 0.2, None]]
    exact = [[0.5, 0.4, 0.0], [1.0, None, 0.7]]
    assert spearman(atp, exact) == pytest.approx(1.0) and spearman(exact, atp) == pytest.approx(1.0)
    assert math.isnan(spearman([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)], "a constant side: quietly NaN"
    np.testing.assert_array_equal(ranks([10, 30, 20, 30, 10]), [1.5, 4.5, 3.0, 4.5, 1.5])
    np.testing.assert_array_equal(ranks(np.array([0.5])), [1.0])
