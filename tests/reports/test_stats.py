"""Statistics against SciPy and against values computed by hand."""

from __future__ import annotations

import math
import random
import statistics

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
    vals = sorted(random.Random(3).random() for _ in range(37))
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
