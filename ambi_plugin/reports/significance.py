"""The per-item scores every report statistic reads, and the significance protocol of a benchmark that names one on
its registry entry (``significance``: AmbiBench A.6, Tables 10 and 11).

:func:`item_scores` is the per-item score of a metric that is a mean over items (1/0 for accuracy-type metrics,
the graded score for ``desc_score``); :func:`binary_scores` says whether such a mean is a proportion (Wilson
intervals, McNemar's test) or not (bootstrap).

The A.6 protocol, as the paper runs it: the samples of a cell are the per-run values when a model has two or more
runs (seeds, temperatures), otherwise the per-item scores of its logged samples. Welch's t-test by default
(PROTOCOL), paired as an option. Bonferroni over the comparisons of one block, uncapped as the paper prints it and
capped at 1 beside it. The report uses it where it reproduces the paper's tables: category against category
within a model (Table 10) and model against model over repeated runs (Table 11); models of one run each are
compared on the same items by :mod:`ambi_plugin.reports.paired` instead (McNemar's exact test, no t-test on 0/1
outcomes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ambi_plugin.core.scoring import slug
from ambi_plugin.reports.runs import Run, group_runs
from ambi_plugin.reports.stats import compare

ITEM_BASES = ("acc", "exact_match", "hit_rate", "desc_score", "desc_score_llm", "acc_llm", "acc_match", "acc_judge")
# VIA-Bench: the item key of each protocol's decision (None on items without a known answer: not counted)
VIA_KEYS = {"acc_match": "correct_match", "acc_judge": "correct_judge"}
# bases whose item score is a graded score (0/1/2), read from a score field: their mean is never a proportion,
# even in a run whose items all scored 0 or 1
GRADED_BASES = ("desc_score", "desc_score_llm")


def metric_base(metric: str) -> str | None:
    """The item-score base of ``metric`` (``acc`` for ``acc_hybrid`` ...), None when it is not a mean of item scores."""
    return next((b for b in sorted(ITEM_BASES, key=len, reverse=True) if metric == b or metric.startswith(b + "_")),
                None)  # fmt: skip


def binary_scores(metric: str, values) -> bool:
    """Whether the mean of these item scores of ``metric`` is a proportion: there is at least one, every one is 0
    or 1, and the metric's item score is a 0/1 decision, not a graded score."""
    values = list(values)
    return bool(values) and metric_base(metric) not in GRADED_BASES and all(v in (0.0, 1.0) for v in values)


def item_scores(metric: str, items: list[dict]) -> dict[str, float] | None:
    """{record id: score} of the items ``metric`` averages over, or None when the metric is not a mean of
    per-item scores (AP, FP ratio ...)."""
    base = metric_base(metric)
    if base is None:
        return None
    rest = metric[len(base) + 1 :] if metric != base else ""
    out: dict[str, float] = {}
    for i, it in enumerate(items):
        rid = str(it.get("id", i))
        if base in VIA_KEYS:  # <protocol> or <protocol>_<category>, as viabench.scoring aggregates them
            if it.get(VIA_KEYS[base]) is not None and (not rest or slug(it.get("category")) == rest):
                out[rid] = 1.0 if it[VIA_KEYS[base]] else 0.0
            continue
        if rest and rest in (it.get("views") or {}):
            out[rid] = 1.0 if it["views"][rest] else 0.0
            continue
        if rest and not any(slug(v) == rest for v in (it.get("breakdown") or {}).values()):
            continue
        if base.startswith("desc_score"):
            out[rid] = float(it.get("score_llm" if base.endswith("llm") else "score") or 0.0)
        elif base == "acc_llm":
            out[rid] = 1.0 if it.get("correct_llm") else 0.0
        elif base == "hit_rate":
            out[rid] = 1.0 if it.get("hit") else 0.0
        else:
            out[rid] = 1.0 if it.get("correct") else 0.0
    return out


@dataclass
class Samples:
    values: list[float]
    by_id: dict[str, float] | None  # item scores by record id (None for per-run values)
    source: str  # "runs" | "items"


def cell_samples(group: list[Run], task: str, metric: str, scale: float) -> Samples | None:
    if len(group) >= 2:
        vals = [r.value(task, metric) for r in group]
        vals = [v * scale for v in vals if v is not None]
        return Samples(vals, None, "runs") if len(vals) >= 2 else None
    items = group[0].items(task)
    scores = item_scores(metric, items) if items else None
    if not scores:
        return None
    return Samples([v * scale for v in scores.values()], {k: v * scale for k, v in scores.items()}, "items")


def _source(col: tuple[str, str, str]) -> tuple[str, str]:
    return col[1], col[2]


def _significance() -> list:
    from ambi_plugin.benchmarks.registry import entries

    return [e.significance for e in entries().values() if e.significance is not None]


def model_tests(
    runs: list[Run], *, test: str = "welch", columns=None, samples: str | None = None, protocol: str = "t-test"
) -> list[dict]:
    """Table 11: the first model against each other model, per column; Bonferroni over the columns (``columns``:
    (label, task, metric); default the registry's). ``samples="runs"``: only the columns where both models have
    repeated runs (the paper's protocol)."""
    if columns is None:
        return [
            row
            for sig in _significance()
            for row in model_tests(runs, test=test, columns=sig.columns, samples=samples, protocol=sig.protocol)
        ]
    groups = group_runs(runs)
    names = list(groups)
    out: list[dict] = []
    for other in names[1:]:
        block = []
        for col in columns:
            task, metric = _source(col)
            a = cell_samples(groups[names[0]], task, metric, 100.0)
            b = cell_samples(groups[other], task, metric, 100.0)
            if a is None or b is None or (samples is not None and not a.source == b.source == samples):
                continue
            if test == "paired":
                if a.by_id is None or b.by_id is None:
                    continue  # pairing needs the same items
                ids = sorted(set(a.by_id) & set(b.by_id))
                sa, sb = [a.by_id[i] for i in ids], [b.by_id[i] for i in ids]
            else:
                sa, sb = a.values, b.values
            block.append((col[0], sa, sb, a.source))
        if not block:
            continue
        samples = {}
        pairs = []
        for label, sa, sb, _ in block:
            samples[f"{names[0]}|{label}"], samples[f"{other}|{label}"] = sa, sb
            pairs.append((f"{names[0]}|{label}", f"{other}|{label}"))
        for (label, _, _, src), row in zip(block, compare(samples, pairs, test=test)):
            out.append({"comparison": f"{names[0]} vs {other}", "column": label, "samples": src, **_clean(row),
                        "protocol": protocol, "correction": "bonferroni", "family_size": len(block)})  # fmt: skip
    return out


def category_tests(
    runs: list[Run], *, test: str = "welch", pairs=None, columns=(), protocol: str = "t-test"
) -> list[dict]:
    """Table 10: within each model, category against category (Welch; unpaired: different items); ``pairs`` of
    column labels of ``columns`` (default the registry's)."""
    if pairs is None:
        return [row for sig in _significance() for row in category_tests(runs, test=test, pairs=sig.pairs,
                                                                           columns=sig.columns, protocol=sig.protocol)]  # fmt: skip
    cols = {c[0]: c for c in columns}
    out = []
    for name, group in group_runs(runs).items():
        samples, done = {}, []
        for a, b in pairs:
            sa = cell_samples(group, *_source(cols[a]), 100.0)
            sb = cell_samples(group, *_source(cols[b]), 100.0)
            if sa is None or sb is None:
                continue
            samples[a], samples[b] = sa.values, sb.values
            done.append((a, b, sa.source))
        if not done:
            continue
        rows = compare(samples, [(a, b) for a, b, _ in done], test="welch" if test == "paired" else test)
        for (a, b, src), row in zip(done, rows):
            out.append({"comparison": name, "column": f"{a} vs {b}", "samples": src, **_clean(row),
                        "protocol": protocol, "correction": "bonferroni", "family_size": len(done)})  # fmt: skip
    return out


def _clean(row: dict) -> dict:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items() if k not in ("a", "b")}
