"""Statistics against SciPy and against values computed by hand."""

from __future__ import annotations

import itertools
import math
import random
import statistics
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as sps

from ambi_plugin.reports import stats as S

A = [63.68, 70.1, 55.2, 71.9, 58.3]
B = [26.32, 30.5, 22.0, 28.8, 27.1, 25.0]


def test_mean_std_is_the_sample_std():
    m, s = S.mean_std(A)
    assert m == pytest.approx(statistics.mean(A)) and s == pytest.approx(statistics.stdev(A))
    assert S.mean_std([0.5]) == (0.5, pytest.approx(math.nan, nan_ok=True))
    assert S.mean_std([1.0, float("nan"), 3.0]) == (2.0, pytest.approx(math.sqrt(2)))


def test_mean_std_of_one_value_is_nan_and_of_two_the_sample_std():
    """The standard deviation of a single value is undefined: NaN (not 0.0); two values give the sample std."""
    m, s = S.mean_std([0.4])
    assert m == 0.4 and math.isnan(s)
    m, s = S.mean_std([0.2, 0.6])
    assert m == pytest.approx(0.4) and s == pytest.approx(statistics.stdev([0.2, 0.6]))


def test_repeated_viabench_runs_use_the_reports_mean_std():
    """``ambi viabench runs`` takes its mean +- std from :func:`ambi_plugin.reports.stats.mean_std`: one run, std NaN."""
    from ambi_plugin.benchmarks.viabench.repeated import _cell
    from ambi_plugin.reports.repeated_runs import aggregate_runs

    one = aggregate_runs([{"ambi_viabench_ci": {"acc_match": 0.5}}])["ambi_viabench_ci"]["acc_match"]
    assert one["mean"] == 0.5 and math.isnan(one["std"]) and one["n"] == 1.0
    assert _cell(one) == "50.00"  # no "± 0.00" for a single run
    two = aggregate_runs([{"ambi_viabench_ci": {"acc_match": v}} for v in (0.2, 0.6)])["ambi_viabench_ci"]["acc_match"]
    assert two["std"] == pytest.approx(statistics.stdev([0.2, 0.6])) and two["n"] == 2.0


def test_welch_matches_scipy():
    got = S.welch_t_test(A, B)
    ref = sps.ttest_ind(A, B, equal_var=False)
    assert got.statistic == pytest.approx(ref.statistic) and got.p_value == pytest.approx(ref.pvalue)
    assert got.df == pytest.approx(ref.df)


def test_paired_matches_scipy():
    a, b = A, [x - d for x, d in zip(A, [3.0, 1.5, 4.2, -0.5, 2.2])]
    got = S.paired_t_test(a, b)
    ref = sps.ttest_rel(a, b)
    assert got.statistic == pytest.approx(ref.statistic) and got.p_value == pytest.approx(ref.pvalue)
    with pytest.raises(ValueError, match="same length"):
        S.paired_t_test([1.0, 2.0], [1.0])


@pytest.mark.parametrize(("t", "df"), [(0.3, 2.0), (2.5, 4.0), (-7.1, 3.7), (1.96, 1000.0), (12.0, 1.0)])
def test_t_distribution_fallback_matches_scipy(t, df):
    assert S._betainc(df / 2, 0.5, df / (df + t * t)) == pytest.approx(2 * sps.t.sf(abs(t), df), rel=1e-9)


def test_incomplete_beta_by_hand_and_against_scipy():
    """I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 - (1 - x)^b, I_1/2(a, a) = 1/2; x = 1/2 is the symmetry
    threshold (a + 1) / (a + b + 2) for a = b, and for (1, 3) the point just past it."""
    from scipy.special import betainc

    for x in (0.1, 0.25, 0.5, 0.75, 0.9):
        assert S._betainc(1.0, 1.0, x) == pytest.approx(x, rel=1e-12)
        assert S._betainc(2.5, 1.0, x) == pytest.approx(x**2.5, rel=1e-12)
        assert S._betainc(1.0, 3.0, x) == pytest.approx(1 - (1 - x) ** 3, rel=1e-12)
    for a in (0.5, 2.0, 7.0, 40.0):
        assert S._betainc(a, a, 0.5) == pytest.approx(0.5, rel=1e-12)
    assert S._betainc(2.0, 0.5, 0.0) == 0.0 and S._betainc(2.0, 0.5, 1.0) == 1.0
    for a, b in ((0.5, 0.5), (1.0, 3.0), (3.0, 50.0), (50.0, 3.0), (200.0, 300.0)):
        for x in (0.05, (a + 1) / (a + b + 2), (a + 1.5) / (a + b + 2), 0.5, 0.95):
            assert S._betainc(a, b, x) == pytest.approx(float(betainc(a, b, x)), rel=1e-9), (a, b, x)


def test_bonferroni_uncapped_and_capped_by_hand():
    # AmbiBench Table 11 prints 1.865 for GPT5 / Mix: 0.373 x 5 comparisons, uncapped
    got = S.bonferroni([0.373, 0.0002, 0.00113], n_comparisons=5)
    assert got[0] == (pytest.approx(1.865), 1.0)
    assert got[1] == (pytest.approx(0.001), pytest.approx(0.001))
    assert S.bonferroni([0.2, 0.3]) == [
        (pytest.approx(0.4), pytest.approx(0.4)),
        (pytest.approx(0.6), pytest.approx(0.6)),
    ]


def test_compare_rows_carry_both_bonferroni_columns():
    rows = S.compare({"x": A, "y": B, "z": A}, [("x", "y"), ("x", "z")])
    p = sps.ttest_ind(A, B, equal_var=False).pvalue
    assert rows[0]["p_bonferroni"] == pytest.approx(2 * p) and rows[0]["p_bonferroni_capped"] == pytest.approx(
        min(1, 2 * p)
    )
    # identical samples: t = 0, p = 1; Bonferroni uncapped 2, capped 1
    assert (rows[1]["t"], rows[1]["p"], rows[1]["p_bonferroni"], rows[1]["p_bonferroni_capped"]) == (0.0, 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="one of"):
        S.compare({"x": A}, [], test="student")


def test_quantile_is_numpy_linear():
    rng = random.Random(3)  # one generator: a new Random(3) per value would give 37 equal values
    vals = sorted(rng.random() for _ in range(37))
    assert len(set(vals)) == 37
    for q in (0.0, 0.025, 0.5, 0.975, 1.0):
        assert S._quantile(vals, q) == pytest.approx(np.percentile(vals, 100 * q))


def test_bootstrap_interval_by_hand():
    assert S.bootstrap_ci([1.0] * 10, lambda xs: sum(xs) / len(xs)) == (1.0, 1.0)
    assert S.bootstrap_ci([], lambda xs: 0.0) == (pytest.approx(math.nan, nan_ok=True),) * 2
    # a mean of 0/1 items: the percentile interval is close to the normal one, p +- 1.96 sqrt(p(1-p)/n)
    items = [1.0] * 300 + [0.0] * 200
    lo, hi = S.bootstrap_ci(items, lambda xs: sum(xs) / len(xs), n_resamples=2000, seed=1)
    half = 1.96 * math.sqrt(0.6 * 0.4 / 500)
    assert lo == pytest.approx(0.6 - half, abs=0.01) and hi == pytest.approx(0.6 + half, abs=0.01)
    assert S.bootstrap_ci(items, lambda xs: sum(xs) / len(xs), seed=1) == S.bootstrap_ci(
        items, lambda xs: sum(xs) / len(xs), seed=1
    )


def test_vectorized_mean_bootstrap_agrees_with_the_normal_interval():
    items = [1.0] * 300 + [0.0] * 200
    lo, hi = S.bootstrap_mean_ci(items, n_resamples=4000, seed=2)
    half = 1.96 * math.sqrt(0.6 * 0.4 / 500)
    assert lo == pytest.approx(0.6 - half, abs=0.01) and hi == pytest.approx(0.6 + half, abs=0.01)
    assert S.bootstrap_mean_ci([0.5] * 7) == (0.5, 0.5)
    plain = S.bootstrap_ci(items, lambda xs: sum(xs) / len(xs), n_resamples=4000, seed=2)
    assert lo == pytest.approx(plain[0], abs=0.01) and hi == pytest.approx(plain[1], abs=0.01)


# -- labels, Wilson's ends, McNemar at large n


def test_interval_labels_name_the_level_and_the_method():
    assert S.interval_label("wilson") == "95% Wilson score"
    assert S.interval_label("bootstrap", 0.9) == "90% percentile bootstrap"
    assert S.interval_label("bca", 0.99) == "99% bca"  # a method without a long name is printed as given


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.99])
@pytest.mark.parametrize(("k", "n"), [(0, 8), (3, 8), (8, 8), (1, 1), (17, 40)])
def test_wilson_at_other_levels_matches_scipy(k, n, confidence):
    ci = sps.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert S.wilson_ci(k, n, confidence=confidence) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_ends_are_exact_and_inside_0_1():
    # the formula gives 2.8e-17 for 0 of 5 and 0.9999999999999999 for 13 of 13: the ends are set, not computed
    assert S.wilson_ci(0, 5)[0] == 0.0 and S.wilson_ci(13, 13)[1] == 1.0
    # rounding can carry the formula past 1 when k < n (1.0000000000000002 here): the interval stays inside [0, 1]
    n = 7_032_544_747_509_994
    assert S.wilson_ci(n - 1, n)[1] == 1.0
    for k, n in ((-1, 5), (6, 5)):
        with pytest.raises(ValueError, match=rf"Expected 0 <= k <= n for a proportion but got k={k}, n={n}"):
            S.wilson_ci(k, n)
    assert all(math.isnan(x) for x in S.wilson_ci(0, -1))


def test_mcnemar_exact_at_large_discordant_counts_matches_scipy():
    """Over a thousand discordant items: 2**n is past the float range, the tail is summed exactly in integers."""
    assert S.mcnemar_exact(560, 500) == pytest.approx(sps.binomtest(560, 1060, 0.5).pvalue, rel=1e-9)
    assert S.mcnemar_exact(0, 5) == 2 / 32 and S.mcnemar_exact(5, 0) == 2 / 32  # 2 P(X = 0), X ~ Bin(5, 1/2)
    with pytest.raises(ValueError, match="Expected non-negative discordant counts but got b=2, c=-1"):
        S.mcnemar_exact(2, -1)


def test_holm_leaves_nan_out_of_the_count():
    # m = 3: 0.01 * 3, then max(0.03, 0.03 * 2), then max(0.06, 0.04 * 1)
    assert S.holm([0.01, math.nan, 0.04, 0.03]) == [pytest.approx(0.03), None, pytest.approx(0.06), pytest.approx(0.06)]


# -- the bootstraps: the exact bootstrap distribution of a mean of 0/1 values is Binomial(n, p)/n


HALF = [1.0] * 25 + [0.0] * 25  # 50 values, p = 1/2: the resampled mean is Binomial(50, 1/2) / 50
HALF_ENDS = (sps.binom.ppf(0.025, 50, 0.5) / 50, sps.binom.ppf(0.975, 50, 0.5) / 50)  # (18/50, 32/50)


def test_the_bootstrap_intervals_are_the_binomial_quantiles_of_a_mean_of_0_1_values():
    assert HALF_ENDS == (0.36, 0.64)
    # 10 000 resamples: the 2.5% and 97.5% points fall well inside the probability mass of 18 and 32 of 50
    assert S.bootstrap_ci(HALF, statistics.fmean, n_resamples=10_000) == pytest.approx(HALF_ENDS)
    assert S.bootstrap_mean_ci(HALF, n_resamples=10_000) == pytest.approx(HALF_ENDS)
    res = S.paired_bootstrap(HALF, [0.0] * 50, n_resamples=10_000)
    assert (res.diff, res.n_resamples) == (0.5, 10_000) and (res.low, res.high) == pytest.approx(HALF_ENDS)
    # at 90%: the 5% and 95% points of Binomial(50, 1/2), 19 and 31 (P(X <= 18) = 0.032, P(X <= 19) = 0.059)
    ends = (sps.binom.ppf(0.05, 50, 0.5) / 50, sps.binom.ppf(0.95, 50, 0.5) / 50)
    assert ends == (0.38, 0.62)
    assert S.bootstrap_mean_ci(HALF, n_resamples=10_000, confidence=0.9) == pytest.approx(ends)
    assert S.bootstrap_ci(HALF, statistics.fmean, n_resamples=10_000, confidence=0.9) == pytest.approx(ends)
    res = S.paired_bootstrap(HALF, [0.0] * 50, n_resamples=10_000, confidence=0.9)
    assert (res.low, res.high) == pytest.approx(ends)


def test_the_paired_bootstrap_p_value_by_hand():
    # d = (1, 1, -1), observed 1/3; a resample has k ~ Bin(3, 1/3) copies of -1 and mean (3 - 2k)/3, so
    # |mean - 1/3| >= 1/3 for k = 0, 2, 3: (8 + 6 + 1) / 27
    res = S.paired_bootstrap([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], n_resamples=20_000, seed=3)
    assert res.diff == pytest.approx(1 / 3) and res.p_value == pytest.approx(15 / 27, abs=0.015)
    # d = (1, 0): the resampled means 0, 1/2, 1; |mean - 1/2| >= 1/2 for 0 and 1 (ties count): 1/2
    res = S.paired_bootstrap([1.0, 0.0], [0.0, 0.0], n_resamples=20_000)
    assert res.p_value == pytest.approx(0.5, abs=0.015) and (res.low, res.high) == (0.0, 1.0)
    # no difference at all: every resample ties with it, p = 1 exactly; one pair: no resample reaches it
    same = S.paired_bootstrap([0.2, 0.7, 1.0], [0.2, 0.7, 1.0], n_resamples=99)
    assert (same.diff, same.low, same.high, same.p_value) == (0.0, 0.0, 0.0, 1.0)
    one = S.paired_bootstrap([1.0], [0.25], n_resamples=99)
    assert (one.diff, one.low, one.high, one.p_value, one.n_resamples) == (0.75, 0.75, 0.75, 1 / 100, 99)
    # a single resample is a bootstrap too: (1 + 0) / (1 + 1)
    once = S.paired_bootstrap([0.5, 0.5], [0.0, 0.0], n_resamples=1)
    assert (once.diff, once.low, once.high, once.p_value, once.n_resamples) == (0.5, 0.5, 0.5, 0.5, 1)


def test_the_paired_bootstrap_p_value_does_not_depend_on_the_unit():
    """Differences in units of 1e-9 or 1e6 (a fraction, a percentage, a count) give the same p-value from the same
    resamples: a tie is a tie at any scale, and only rounding-sized gaps count as ties."""
    for d, p in ((["1", "0"], None), (["0.1", "0.2", "-0.1"], None), (["1", "0.000001"], 0)):
        ref = S.paired_bootstrap([float(x) for x in d], [0.0] * len(d), n_resamples=500, seed=8).p_value
        for unit in ("1e-9", "0.01", "100", "1e6"):
            scaled = [float(Fraction(x) * Fraction(unit)) for x in d]
            assert S.paired_bootstrap(scaled, [0.0] * len(d), n_resamples=500, seed=8).p_value == ref, (d, unit)
        if p is not None:
            # (1, 0.000001): the resamples (1, 1) and (10^-6, 10^-6) fall 10^-6 short of the observed 0.5000005: no
            # resample reaches it (the exact p is 0), so the bootstrap's is 1 / (1 + 500)
            assert _exact_bootstrap_p(d) == p and ref == 1 / 501


def _exact_bootstrap_p(d: list[str]) -> Fraction:
    """The paired bootstrap p-value over every one of the n**n equally likely resamples, in exact fractions."""
    d_ = [Fraction(x) for x in d]
    obs = sum(d_) / len(d_)
    resamples = list(itertools.product(d_, repeat=len(d_)))
    return Fraction(sum(abs(sum(r) / len(r) - obs) >= abs(obs) for r in resamples), len(resamples))


def test_a_tie_that_rounding_breaks_still_counts_in_the_paired_p_value():
    """d = (0.1, 0.2, -0.1), observed 1/15: the resamples holding 0.1, 0.1 and 0.2 (3 orders) have a mean of exactly
    2/15, a tie (|mean - obs| = |obs|), which floats put 3e-17 below it. Counted, p is 14/27 (0.52); left out, 11/27."""
    d = ["0.1", "0.2", "-0.1"]
    exact = _exact_bootstrap_p(d)
    assert exact == Fraction(14, 27)
    res = S.paired_bootstrap([float(x) for x in d], [0.0] * 3, n_resamples=20_000, seed=7)
    assert res.p_value == pytest.approx(float(exact), abs=0.015)
    assert _exact_bootstrap_p(["1", "1", "-1"]) == Fraction(15, 27)  # the hand count of the test above


def test_the_paired_bootstrap_without_data_or_resamples_is_nan():
    for a, b, n in (([], [], 1000), ([1.0, 0.0], [0.0, 0.0], 0)):
        res = S.paired_bootstrap(a, b, n_resamples=n)
        assert all(math.isnan(x) for x in (res.diff, res.low, res.high, res.p_value)) and res.n_resamples == n
    with pytest.raises(ValueError) as err:
        S.paired_bootstrap([1.0, 0.0], [1.0])
    assert str(err.value) == "Expected two sequences of the same length for a paired test but got 2 and 1"
    # scores as 0/1 integers or booleans are the same numbers
    assert S.paired_bootstrap([True, False, True], [0, 0, 1]) == S.paired_bootstrap([1.0, 0.0, 1.0], [0.0, 0.0, 1.0])


def test_the_mean_bootstrap_leaves_missing_values_out():
    vals = [1.0, 0.0, 1.0, 1.0, 0.0, 0.5]
    assert S.bootstrap_mean_ci([None, *vals[:3], math.nan, *vals[3:]]) == S.bootstrap_mean_ci(vals)
    assert S.bootstrap_mean_ci([0.5]) == (0.5, 0.5)  # one value: every resample is it
    assert S.bootstrap_mean_ci([0.5, 0.5], n_resamples=1) == (0.5, 0.5)
    for values, n in (([], 1000), ([None, math.nan], 1000), (vals, 0)):
        assert all(math.isnan(x) for x in S.bootstrap_mean_ci(values, n_resamples=n))


def test_a_statistic_undefined_on_a_resample_leaves_that_resample_out():
    """Precision of the items marked predicted: undefined (None, or NaN) on a resample without any."""
    items = [(True, 1.0), (False, 0.0), (False, 1.0), (True, 0.0), (False, 0.0)]

    def precision(xs, undefined):
        hits = [y for pred, y in xs if pred]
        return sum(hits) / len(hits) if hits else undefined

    with_none = S.bootstrap_ci(items, lambda xs: precision(xs, None), n_resamples=500, seed=4)
    with_nan = S.bootstrap_ci(items, lambda xs: precision(xs, math.nan), n_resamples=500, seed=4)
    assert with_none == with_nan == (0.0, 1.0)
    assert all(math.isnan(x) for x in S.bootstrap_ci(items, lambda xs: None))  # never defined: no interval


def test_bootstraps_are_seeded_with_the_reports_defaults():
    """1000 resamples and seed 0 unless told (``ambi report``'s --n-boot and --seed defaults): a call without them
    reproduces the report's intervals; the same seed gives the same interval, another seed another one."""
    rng = random.Random(5)
    a, b = [rng.random() for _ in range(40)], [rng.random() for _ in range(40)]
    default = S.paired_bootstrap(a, b)
    assert default == S.paired_bootstrap(a, b, n_resamples=1000, confidence=0.95, seed=0)
    assert default.n_resamples == 1000 and S.paired_bootstrap(a, b, seed=1) != default
    assert S.bootstrap_mean_ci(a) == S.bootstrap_mean_ci(a, n_resamples=1000, confidence=0.95, seed=0)
    assert S.bootstrap_mean_ci(a, seed=1) != S.bootstrap_mean_ci(a)
    assert S.bootstrap_ci(a, statistics.fmean) == S.bootstrap_ci(a, statistics.fmean, n_resamples=1000, seed=0)
    assert S.bootstrap_ci(a, statistics.fmean, seed=1) != S.bootstrap_ci(a, statistics.fmean)
    # the paired interval is the mean bootstrap's of the differences (the same resamples of the same values)
    assert (default.low, default.high) == S.bootstrap_mean_ci([x - y for x, y in zip(a, b)])
    from ambi_plugin.reports.paired import paired_model_tests

    report_defaults = paired_model_tests.__kwdefaults__
    assert (report_defaults["n_boot"], report_defaults["seed"]) == (1000, 0)


def test_resampling_in_chunks_gives_the_same_numbers(monkeypatch):
    """The resamples are drawn a bounded number of index cells at a time (memory); how they are split does not change
    a number: chunks of one resample, of three, and all at once agree."""
    rng = random.Random(6)
    a, b = [rng.random() for _ in range(30)], [rng.random() for _ in range(30)]
    whole = (S.paired_bootstrap(a, b, n_resamples=200), S.bootstrap_mean_ci(a, n_resamples=200))
    for cells in (1, 90, 100):  # 1 and 3 resamples per chunk (the last chunk shorter with 100 cells)
        monkeypatch.setattr(S, "_CELLS", cells)
        assert (S.paired_bootstrap(a, b, n_resamples=200), S.bootstrap_mean_ci(a, n_resamples=200)) == whole


# -- the t-tests, with SciPy and with the fallback used where SciPy is not installed


T_GRID = [(t, df) for t in (0.0, 0.3, -2.5, 7.1, 40.0) for df in (0.5, 1.0, 3.7, 30.0, 1000.0, 1e4)]


def test_t_p_values_with_and_without_scipy(monkeypatch):
    ref = [float(2 * sps.t.sf(abs(t), df)) for t, df in T_GRID]
    assert [S.t_two_sided_p(t, df) for t, df in T_GRID] == pytest.approx(ref, rel=1e-12)
    monkeypatch.setitem(sys.modules, "scipy", None)  # `from scipy import stats` now raises ImportError
    with pytest.raises(ImportError):
        from scipy import stats  # noqa: F401
    assert [S.t_two_sided_p(t, df) for t, df in T_GRID] == pytest.approx(ref, rel=1e-9)
    for t in (0.0, -0.0):
        assert S.t_two_sided_p(t, 4.0) == 1.0
    for t in (math.inf, -math.inf):
        assert S.t_two_sided_p(t, 4.0) == 0.0
    for t, df in ((2.0, 0.0), (2.0, -1.0), (2.0, math.nan), (math.nan, 4.0)):
        assert math.isnan(S.t_two_sided_p(t, df)), (t, df)


@pytest.mark.parametrize(("t", "df"), [(2.0, 0.0), (2.0, -1.0), (2.0, math.nan), (math.nan, 4.0)])
def test_t_p_value_is_nan_without_degrees_of_freedom(t, df):
    assert math.isnan(S.t_two_sided_p(t, df))
    assert S.t_two_sided_p(math.inf, 4.0) == 0.0 and S.t_two_sided_p(0.0, 4.0) == 1.0


def _nan_test(res, kind):
    return res.kind == kind and all(math.isnan(x) for x in (res.statistic, res.df, res.p_value))


def test_welch_with_two_values_a_side_and_missing_values():
    got, ref = S.welch_t_test([1.0, 2.5], [0.2, 0.4]), sps.ttest_ind([1.0, 2.5], [0.2, 0.4], equal_var=False)
    assert got.kind == "welch" and (got.statistic, got.df, got.p_value) == pytest.approx(
        (ref.statistic, ref.df, ref.pvalue)
    )
    assert S.welch_t_test([None, *A, math.nan], [math.nan, *B]) == S.welch_t_test(A, B)
    for a, b in (([1.0], B), (A, [1.0]), ([], []), ([1.0, math.nan], B)):  # a side with fewer than two values
        assert _nan_test(S.welch_t_test(a, b), "welch"), (a, b)
    # no variance on either side (repeated greedy runs): NaN. The float mean of three 0.7s is not 0.7; the std is
    # still exactly 0 (core/metrics.py takes the deviations from the first value; it was 1e-16, so t was -2.5e15
    # and p 1.5e-31 before the test below had its own guard)
    assert S.mean_std([0.7] * 3)[1] == 0.0
    assert _nan_test(S.welch_t_test([0.5, 0.5], [0.7, 0.7, 0.7]), "welch")
    assert _nan_test(S.welch_t_test([0.0, 1e-170], [0.0, 1e-170]), "welch")  # variances that underflow to 0
    # one side without variance: the other side's alone, t = (0.5 - m_b) / (s_b / sqrt(3)) with n_b - 1 = 2 df
    one = S.welch_t_test([0.5, 0.5, 0.5], [0.7, 0.6, 0.4])
    t = (0.5 - statistics.mean([0.7, 0.6, 0.4])) / (statistics.stdev([0.7, 0.6, 0.4]) / math.sqrt(3))
    assert (one.statistic, one.df, one.p_value) == pytest.approx((t, 2.0, 2 * sps.t.sf(abs(t), 2.0)))


def test_paired_drops_a_pair_with_a_missing_side():
    a, b = [1.0, math.nan, 3.0, 4.0, 2.0], [0.0, 5.0, 1.0, 1.5, math.nan]
    got, ref = S.paired_t_test(a, b), sps.ttest_rel([1.0, 3.0, 4.0], [0.0, 1.0, 1.5])
    assert got.kind == "paired" and got.df == 2.0
    assert (got.statistic, got.p_value) == pytest.approx((ref.statistic, ref.pvalue))
    two, ref = S.paired_t_test([1.0, 3.0], [0.0, 1.5]), sps.ttest_rel([1.0, 3.0], [0.0, 1.5])
    assert (two.kind, two.statistic, two.df, two.p_value) == ("paired", pytest.approx(ref.statistic), 1.0,
                                                               pytest.approx(ref.pvalue))  # fmt: skip
    assert _nan_test(S.paired_t_test([1.0, math.nan], [0.0, 1.0]), "paired")  # one pair left
    assert _nan_test(S.paired_t_test([1.0, 2.0, 3.0], [0.5, 1.5, 2.5]), "paired")  # the same difference throughout
    assert _nan_test(S.paired_t_test([0.7] * 3, [0.0] * 3), "paired")  # also where the float std of it is 1e-16
    assert _nan_test(S.paired_t_test([0.0, 1e-170, 0.0], [0.0, 0.0, 0.0]), "paired")  # squares that underflow


def test_compare_paired_rows_by_hand():
    groups = {"x": [0.61, 0.64, 0.58, 0.66], "y": [0.55, 0.60, 0.57, 0.59], "z": [0.50, 0.71, 0.52, 0.60]}
    rows = S.compare(groups, [("x", "y"), ("x", "z")], test="paired")
    for row, (a, b) in zip(rows, [("x", "y"), ("x", "z")]):
        ref = sps.ttest_rel(groups[a], groups[b])
        assert row == {
            "a": a, "b": b, "mean_a": pytest.approx(statistics.mean(groups[a])),
            "mean_b": pytest.approx(statistics.mean(groups[b])), "test": "paired",
            "t": pytest.approx(ref.statistic), "df": 3.0, "p": pytest.approx(ref.pvalue),
            "p_bonferroni": pytest.approx(2 * ref.pvalue), "p_bonferroni_capped": pytest.approx(min(1.0, 2 * ref.pvalue)),
        }  # fmt: skip
    welch = S.compare(groups, [("x", "y")])[0]
    assert welch["test"] == "welch" and welch["df"] == pytest.approx(sps.ttest_ind(groups["x"], groups["y"],
                                                                                   equal_var=False).df)  # fmt: skip
