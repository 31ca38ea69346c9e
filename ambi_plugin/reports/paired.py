"""Models compared on the same items: McNemar's exact test for 0/1 outcomes, the paired bootstrap for graded scores.

For every task that the first model and another model (one run each) both logged with ``--log_samples``, and for
every overall item-mean metric both results report (``acc``, ``exact_match``, ``hit_rate``, ``desc_score``, VIA-Bench's
``acc_match`` / ``acc_judge`` ...), the items are matched by record id, never by position: an item without an id, an
id logged twice, or an id only one model logged is left out and counted (``only_a`` / ``only_b``, ``no_id``,
``duplicate_ids``). On the matched items:

* 0/1 outcomes (:func:`ambi_plugin.reports.significance.binary_scores` on both sides): McNemar's exact test, a
  two-sided binomial test of the discordant pairs (``b``: only A right, ``c``: only B right) against 1/2;
* graded scores (``desc_score``): the paired bootstrap of the mean difference (its percentile interval and the
  null-centred p-value).

The p-values of one table are adjusted together by Holm's step-down method (family-wise error rate; every row says
the family size ``m``). Models with repeated runs are compared by the AmbiBench A.6 protocol instead
(:mod:`ambi_plugin.reports.significance`); a pair that neither covers is named in the notes.
"""

from __future__ import annotations

from collections import Counter

from ambi_plugin.reports.runs import Run, group_runs
from ambi_plugin.reports.significance import GRADED_BASES, ITEM_BASES, binary_scores, item_scores, metric_base
from ambi_plugin.reports.stats import holm, interval_label, mcnemar_exact, paired_bootstrap

PAIRED = "paired items"  # the ``protocol`` of these rows
MCNEMAR, PAIRED_BOOTSTRAP = "McNemar exact", "paired bootstrap"
CORRECTION = "holm"
PAIRED_COLUMNS = ("comparison", "task", "metric", "test", "matched", "only_a", "only_b", "mean_a", "mean_b", "diff",
                  "b", "c", "diff_ci", "p", "p_holm")  # fmt: skip


def note(rows: list[dict], *, confidence: float = 0.95) -> str:
    """The table's note: what was tested, how items were matched, the correction and its family size."""
    m = sum(1 for r in rows if r.get("p") is not None)
    boot = next((r["n_resamples"] for r in rows if r.get("n_resamples")), None)
    return (f"Models of one run each, on the items both logged, matched by record id (matched / only_a / only_b: "
            f"items in both, only in A's samples, only in B's). 0/1 outcomes: {MCNEMAR} test (two-sided binomial "
            "test of the discordant items: b = only A right, c = only B right). Graded scores: "
            f"{PAIRED_BOOTSTRAP} of the mean difference A - B"
            + (f" ({boot} resamples; diff_ci = its {interval_label('bootstrap', confidence)} interval)" if boot
               else "")
            + (" (not tested: --bootstrap 0)" if any(r["test"] == PAIRED_BOOTSTRAP and r.get("p") is None
                                                     and r.get("matched") for r in rows) else "")
            + f". mean_a, mean_b, diff: % for 0/1 outcomes, the score otherwise. p_holm: Holm's step-down "
            f"adjustment over the m = {m} comparisons of this table (family-wise error rate).")  # fmt: skip


def _by_id(metric: str, items: list[dict]) -> tuple[dict[str, float], int, set[str]]:
    """({id: score} of the items with exactly one logged score, items without an id, ids logged twice or more)."""
    with_id = [it for it in items if it.get("id") not in (None, "")]
    counts = Counter(str(it["id"]) for it in with_id)
    dup = {i for i, n in counts.items() if n > 1}
    scores = item_scores(metric, [it for it in with_id if str(it["id"]) not in dup]) or {}
    return scores, len(items) - len(with_id), dup


def compare_pair(
    metric: str, items_a: list[dict], items_b: list[dict], *, n_boot: int = 1000, seed: int = 0
) -> dict | None:
    """One comparison row of ``metric`` between two models' logged items (None when neither has a scored item)."""
    sa, no_id_a, dup_a = _by_id(metric, items_a)
    sb, no_id_b, dup_b = _by_id(metric, items_b)
    if not sa and not sb:
        return None
    ids = sorted(set(sa) & set(sb))
    row: dict = {"metric": metric, "matched": len(ids), "only_a": len(set(sa) - set(sb)),
                 "only_b": len(set(sb) - set(sa)), "no_id": no_id_a + no_id_b,
                 "duplicate_ids": len(dup_a) + len(dup_b)}  # fmt: skip
    a, b = [sa[i] for i in ids], [sb[i] for i in ids]
    binary = binary_scores(metric, a + b) if ids else metric_base(metric) not in GRADED_BASES
    scale = 100.0 if binary else 1.0
    row.update(test=MCNEMAR if binary else PAIRED_BOOTSTRAP, mean_a=None, mean_b=None, diff=None, b=None, c=None,
               diff_ci=None, p=None)  # fmt: skip
    if not ids:
        return row
    row["mean_a"], row["mean_b"] = scale * sum(a) / len(a), scale * sum(b) / len(b)
    row["diff"] = row["mean_a"] - row["mean_b"]
    if binary:
        row["b"] = sum(1 for x, y in zip(a, b) if x == 1.0 and y == 0.0)
        row["c"] = sum(1 for x, y in zip(a, b) if x == 0.0 and y == 1.0)
        row["p"] = mcnemar_exact(row["b"], row["c"])
    elif n_boot > 0:
        res = paired_bootstrap(a, b, n_resamples=n_boot, seed=seed)
        row.update(diff_ci=[res.low, res.high], p=res.p_value, n_resamples=n_boot)
    return row


def paired_model_tests(runs: list[Run], *, n_boot: int = 1000, seed: int = 0) -> tuple[list[dict], list[str]]:
    """(rows, notes): the first model against each other model of one run each, every shared task and overall
    item-mean metric; Holm over every row of the table. Notes name the pairs not compared here and why."""
    groups = group_runs(runs)
    names = list(groups)
    rows: list[dict] = []
    notes: list[str] = []
    for other in names[1:]:
        ga, gb = groups[names[0]], groups[other]
        if len(ga) > 1 or len(gb) > 1:
            if len(ga) == 1 or len(gb) == 1:
                notes.append(f"{names[0]} ({len(ga)} run(s)) vs {other} ({len(gb)} run(s)): not compared; items are "
                             "paired between single runs and repeated runs are compared with repeated runs")  # fmt: skip
            continue
        ra, rb = ga[0], gb[0]
        shared = sorted(set(ra.samples) & set(rb.samples))
        if not shared:
            notes.append(f"{names[0]} vs {other}: no task logged by both (--log_samples), no item comparison")
        for task in shared:
            ma, mb = ra.metrics.get(task, {}), rb.metrics.get(task, {})
            metrics = [m for m in ITEM_BASES if m in ma and m in mb]
            if not metrics:
                continue
            items_a, items_b = ra.items(task), rb.items(task)
            for metric in metrics:
                row = compare_pair(metric, items_a, items_b, n_boot=n_boot, seed=seed)
                if row is not None:
                    rows.append({"comparison": f"{names[0]} vs {other}", "task": task, **row})
    adjusted = holm([r["p"] for r in rows])
    m = sum(1 for p in adjusted if p is not None)
    for row, p in zip(rows, adjusted):
        row.update(p_holm=p, protocol=PAIRED, correction=CORRECTION, family_size=m)
    return rows, notes
