"""Statistics over repeated runs and over logged samples (AmbiBench A.6, VIA-Bench's 5 runs).

* :func:`mean_std` - mean and sample standard deviation (ddof=1) over runs: "mean and variant" in the
  papers means mean +- std.
* :func:`wilson_ci` - Wilson score interval of a proportion k/n (the interval of a metric that is the mean of
  0/1 item scores): never degenerate (0/8 gives [0, 0.324] at 95%, 1/1 gives [0.207, 1]), inside [0, 1].
* :func:`bootstrap_ci` - percentile bootstrap interval of any metric over items (resampling items with
  replacement, seeded), from the per-item scores lmms-eval logs with ``--log_samples``: kept for metrics that
  are not proportions (graded 0/1/2 scores, AP, rates that are not item means).
* :func:`mcnemar_exact` - McNemar's exact test of two models' 0/1 outcomes on the same items (a two-sided
  binomial test on the discordant pairs); :func:`paired_bootstrap` - the paired bootstrap of a mean difference
  on the same items (graded scores); :func:`holm` - Holm's step-down adjustment over one table's comparisons.
* The AmbiBench A.6 protocol: :func:`welch_t_test` (default, PROTOCOL: the paper says only "t-test") and
  :func:`paired_t_test` (option) between two models or two categories over repeated runs; :func:`bonferroni`
  multiplies by the number of comparisons and keeps the product uncapped as AmbiBench Table 11 prints it
  (p = 1.865), with a capped column beside it.

Pure functions on lists of floats; the t distribution comes from :mod:`scipy.stats` when installed and
otherwise from a regularized incomplete beta function implemented here (the same p-values to ~1e-9 relative,
1e-11 up to 10^4 degrees of freedom); the normal quantile from :class:`statistics.NormalDist`; the binomial tail
of McNemar's test is summed exactly in integers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from ambi_plugin.core.metrics import mean_std  # the one mean +- std (core): std NaN for fewer than two values

WILSON, BOOTSTRAP = "wilson", "bootstrap"  # a cell interval's method, as the JSON and CSV name it
METHOD_NAMES = {WILSON: "Wilson score", BOOTSTRAP: "percentile bootstrap"}


def interval_label(method: str, confidence: float = 0.95) -> str:
    """The label printed with an interval: ``"95% Wilson score"``, ``"95% percentile bootstrap"``."""
    return f"{100 * confidence:g}% {METHOD_NAMES.get(method, method)}"


def wilson_ci(k: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the proportion ``k / n`` (Wilson 1927): the p whose score test at level
    ``1 - confidence`` does not reject k of n. NaN for n = 0. The end at 0 (k = 0) and at 1 (k = n) is exact."""
    if n <= 0:
        return math.nan, math.nan
    if not 0 <= k <= n:
        raise ValueError(f"Expected 0 <= k <= n for a proportion but got k={k}, n={n}")
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    p, z2 = k / n, z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, center - half)
    hi = 1.0 if k == n else min(1.0, center + half)
    return lo, hi


def mcnemar_exact(b: int, c: int) -> float:
    """McNemar's exact test (two-sided): ``b`` items only model A got right, ``c`` only model B; under the null
    each discordant item is A's with probability 1/2, so p = min(1, 2 P(X <= min(b, c))), X ~ Bin(b + c, 1/2).
    No discordant item: p = 1. The tail is summed in integers, so it is exact before the one final division."""
    if b < 0 or c < 0:
        raise ValueError(f"Expected non-negative discordant counts but got b={b}, c={c}")
    n = b + c
    term, tail = 1, 1  # C(n, 0); no discordant item: 2 * 1 / 2**0, capped at 1
    for i in range(min(b, c)):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / 2**n)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (Holm 1979; family-wise error controlled at any level): the i-th
    smallest of the m p-values becomes max over j <= i of min(1, (m - j + 1) p_(j)). A missing p (None, NaN)
    stays missing and is not counted in m."""
    idx = [i for i, p in enumerate(p_values) if p is not None and not math.isnan(p)]
    order = sorted(idx, key=lambda i: p_values[i])
    m = len(order)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * float(p_values[i])))
        out[i] = running
    return out


@dataclass(frozen=True)
class PairedBootstrap:
    """The mean of the paired differences a_i - b_i, its percentile interval, and the two-sided p-value of the
    null-centred bootstrap (the differences shifted to mean 0, Efron & Tibshirani 1993, 16.4)."""

    diff: float
    low: float
    high: float
    p_value: float
    n_resamples: int


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> PairedBootstrap:
    """Resample the pairs (a_i, b_i) with replacement: a percentile interval of mean(a - b) and a p-value
    (1 + #{|mean of the centred resample| >= |observed|}) / (1 + n_resamples)."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"Expected two sequences of the same length for a paired test but got {len(a)} and {len(b)}")
    d = np.array([float(x) - float(y) for x, y in zip(a, b)])
    if d.size == 0 or n_resamples <= 0:
        return PairedBootstrap(math.nan, math.nan, math.nan, math.nan, n_resamples)
    obs = float(d.mean())
    means = _resampled_means(d, n_resamples, seed)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    centred = np.abs(means - obs)  # the resampled means of d - mean(d)
    # a tie counts, also one that rounding broke ((0.1 + 0.1 + 0.2) / 3 is twice (0.1 + 0.2 - 0.1) / 3, not in
    # floats): within 1e-12 of the largest difference, so that the unit of the scores changes nothing
    tie = np.isclose(centred, abs(obs), rtol=0.0, atol=1e-12 * float(np.abs(d).max()))
    extreme = int(((centred >= abs(obs)) | tie).sum())
    return PairedBootstrap(obs, float(lo), float(hi), (1 + extreme) / (1 + n_resamples), n_resamples)


def bootstrap_ci(
    items: Sequence,
    statistic: Callable[[list], float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic(items)``: resample the items with replacement
    ``n_resamples`` times (seeded) and take the (1-c)/2 and (1+c)/2 quantiles of the finite values."""
    items = list(items)
    if not items:
        return math.nan, math.nan
    rng = random.Random(seed)
    n = len(items)
    stats = []
    for _ in range(n_resamples):
        val = statistic([items[rng.randrange(n)] for _ in range(n)])
        if val is not None and not math.isnan(val):
            stats.append(float(val))
    if not stats:
        return math.nan, math.nan
    stats.sort()
    alpha = (1.0 - confidence) / 2.0
    return _quantile(stats, alpha), _quantile(stats, 1.0 - alpha)


def bootstrap_mean_ci(
    values: Sequence[float], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """:func:`bootstrap_ci` of the mean of per-item values, vectorized with NumPy (the same percentile method;
    the resamples differ from the pure-Python ones)."""
    import numpy as np

    arr = np.array(_finite(values))
    if arr.size == 0 or n_resamples <= 0:
        return math.nan, math.nan
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(_resampled_means(arr, n_resamples, seed), [alpha, 1.0 - alpha])
    return float(lo), float(hi)


_CELLS = 2_000_000  # resample indices drawn at once, at most (bounds the index matrix's memory: 16 MB)


def _resampled_means(values, n_resamples: int, seed: int):
    """The means of ``n_resamples`` resamples of the 1-D array ``values`` with replacement, from
    ``numpy.random.default_rng(seed)``, drawn ``_CELLS // len(values)`` resamples at a time: the Generator hands
    out the same indices in the same order however the draws are split, so the means do not depend on it."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = max(1, _CELLS // values.size)
    draws = (min(rows, n_resamples - start) for start in range(0, n_resamples, rows))
    return np.concatenate([values[rng.integers(values.size, size=(k, values.size))].mean(axis=1) for k in draws])


def _quantile(sorted_vals: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (NumPy's default 'linear' method)."""
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


@dataclass(frozen=True)
class TTest:
    """A two-sided t-test: statistic, degrees of freedom, p-value; kind "welch" or "paired"."""

    kind: str
    statistic: float
    df: float
    p_value: float


def _betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) by Lentz's continued fraction (Numerical Recipes 6.4)."""
    if x <= 0.0:
        return 0.0
    if x > (a + 1.0) / (a + b + 2.0):  # x >= 1 too (a, b > 0): 1 - I_0(b, a) = 1
        return 1.0 - _betainc(b, a, 1.0 - x)
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    tiny = 1e-300
    # x <= (a + 1) / (a + b + 2) here, so the first denominator is >= 2 / (a + b + 2): never near 0
    c, d = 1.0, 1.0 / (1.0 - (a + b) * x / (a + 1.0))
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for num in (
            m * (b - m) * x / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return math.exp(lbeta) * h / a


def t_two_sided_p(t: float, df: float) -> float:
    """Two-sided p-value of Student's t with ``df`` degrees of freedom."""
    if not df > 0:  # NaN too; a NaN t gives NaN below, an infinite one 0 (x = 0 in the fallback)
        return math.nan
    try:
        from scipy import stats as sps

        return float(2.0 * sps.t.sf(abs(t), df))
    except ImportError:  # pragma: no cover - exercised in tests by calling the fallback directly
        return _betainc(df / 2.0, 0.5, df / (df + t * t))


def _finite(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


def welch_t_test(a: Sequence[float], b: Sequence[float]) -> TTest:
    """Welch's unequal-variance t-test (two-sided); NaN when a side has fewer than two values or both
    sides have zero variance (each side one value repeated, as repeated greedy runs give)."""
    a, b = _finite(a), _finite(b)
    # equal values are tested as such: the float mean of [0.7, 0.7, 0.7] is not 0.7, and the std 1e-16 it leaves
    # would make t ~ 1e15 (p ~ 1e-31) from no variance at all
    if len(a) < 2 or len(b) < 2 or (len(set(a)) == 1 and len(set(b)) == 1):
        return TTest("welch", math.nan, math.nan, math.nan)
    ma, sa = mean_std(a)
    mb, sb = mean_std(b)
    va, vb = sa * sa / len(a), sb * sb / len(b)
    if va + vb == 0.0:  # differences below ~1e-154: their squares underflow
        return TTest("welch", math.nan, math.nan, math.nan)
    t = (ma - mb) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return TTest("welch", t, df, t_two_sided_p(t, df))


def paired_t_test(a: Sequence[float], b: Sequence[float]) -> TTest:
    """Paired t-test on the differences a_i - b_i (two-sided); pairs with a NaN side are dropped; NaN when fewer
    than two pairs are left or the differences are all the same."""
    if len(a) != len(b):
        raise ValueError(f"Expected two sequences of the same length for a paired test but got {len(a)} and {len(b)}")
    diffs = [x - y for x, y in zip(a, b) if not (math.isnan(x) or math.isnan(y))]
    if len(diffs) < 2:
        return TTest("paired", math.nan, math.nan, math.nan)
    m, s = mean_std(diffs)
    if s == 0.0 or len(set(diffs)) == 1:  # the same difference throughout: no variance (see welch_t_test)
        return TTest("paired", math.nan, math.nan, math.nan)
    t = m / (s / math.sqrt(len(diffs)))
    df = float(len(diffs) - 1)
    return TTest("paired", t, df, t_two_sided_p(t, df))


def bonferroni(p_values: Sequence[float], n_comparisons: int | None = None) -> list[tuple[float, float]]:
    """(uncapped, capped at 1) Bonferroni-corrected p-values: p * m, m = ``n_comparisons`` or len(p)."""
    m = n_comparisons if n_comparisons is not None else len(p_values)
    return [(p * m, min(1.0, p * m)) for p in p_values]


def compare(groups: dict[str, Sequence[float]], pairs: Sequence[tuple[str, str]], *, test: str = "welch") -> list[dict]:
    """One row per pair: means, t, df, p, Bonferroni p uncapped and capped (m = number of pairs)."""
    if test not in ("welch", "paired"):
        raise ValueError(f"Expected argument `test` to be one of ('welch', 'paired') but got {test!r}")
    fn = welch_t_test if test == "welch" else paired_t_test
    rows = []
    for a, b in pairs:
        res = fn(groups[a], groups[b])
        rows.append({"a": a, "b": b, "mean_a": mean_std(groups[a])[0], "mean_b": mean_std(groups[b])[0],
                     "test": res.kind, "t": res.statistic, "df": res.df, "p": res.p_value})  # fmt: skip
    for row, (unc, cap) in zip(rows, bonferroni([r["p"] for r in rows])):
        row["p_bonferroni"] = unc
        row["p_bonferroni_capped"] = cap
    return rows
