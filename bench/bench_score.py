"""Benchmark: scoring 100,000 saved predictions with the rule-based metrics, as ``ambi score`` does.

    python bench/bench_score.py [--n 100000] [--out FOLDER]

Builds records of the rule-scored task types (choice with 2-8 options, true/false, yes/no, multi-label
choice) with category and difficulty breakdowns, writes 100,000 answers (gold, wrong, verbose and
unreadable) as an ``{id, response}`` JSONL and as canonical records, then times: reading the answers,
``score_item`` on each, aggregating every metric (overall and per breakdown value) and one bootstrap
interval. Target (issue 14): under 10 s on 2 cores. Prints a Markdown row for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path

CATS = ("classic", "real_scene", "trap", "no_illusion")
LEVELS = ("easy", "neutral", "hard")


def make_records(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        kind = ("choice", "true_false", "yes_no", "multi_choice")[i % 4]
        rec = {"id": str(i), "benchmark": "bench", "category": CATS[i % 4], "task_type": kind, "question": "q",
               "images": [], "breakdown": {"category": CATS[i % 4], "difficulty": LEVELS[i % 3]}}  # fmt: skip
        if kind in ("choice", "multi_choice"):
            k = rng.randint(3, 8)
            rec.update(options=[f"option {j}" for j in range(k)], option_style="letter")
            if kind == "multi_choice":
                rec["options"][-1], rec["none_index"] = "none of the above", k - 1
                k -= 1
            if kind == "choice":
                rec["answer_index"] = rng.randrange(k)
            else:
                rec["answer_indices"] = sorted(rng.sample(range(k), rng.randint(1, min(2, k))))
        else:
            rec["answer_bool"] = rng.random() < 0.5
        out.append(rec)
    return out


def make_response(rec: dict, rng: random.Random) -> str:
    from ambi_plugin.core.answers import reference_response

    roll = rng.random()
    if roll < 0.6:
        return reference_response(rec, "gold")
    if roll < 0.85:
        return reference_response(rec, "wrong")
    if roll < 0.95:
        return f"Let me look carefully. The answer is {reference_response(rec, 'gold')}."
    return "I cannot tell from this image."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    args = ap.parse_args()
    from ambi_plugin.core.schema import validate_record
    from ambi_plugin.core.scoring import aggregate, metric_names, score_item
    from ambi_plugin.reports.stats import bootstrap_ci
    from ambi_plugin.scorefile import aggregate_all, answer_columns, read_rows

    recs = make_records(args.n)
    for rec in recs[:50]:
        validate_record(rec)
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "answers.jsonl"
        path.write_text("".join(json.dumps({"id": r["id"], "response": make_response(r, rng)}) + "\n" for r in recs))
        score_item(recs[0], "a")  # imports and the parsers' lexicon load once, outside the timing
        t0 = time.perf_counter()
        table = answer_columns(read_rows(path), task="bench", name="answers")["answers"]
        t1 = time.perf_counter()
        items = [score_item(rec, table[rec["id"]]) for rec in recs]
        t2 = time.perf_counter()
        names = sorted({n for rec in recs[:8] for n in metric_names(rec, by=("category", "difficulty"))})
        by_type: dict[str, list[dict]] = {}
        for it in items:
            by_type.setdefault(it["task_type"], []).append(it)
        values = {(t, n): v for t, its in by_type.items() for n, v in aggregate_all(names, its).items()}
        t3 = time.perf_counter()
        lo, hi = bootstrap_ci(items, lambda xs: aggregate("acc", xs), n_resamples=20, seed=0)
        t4 = time.perf_counter()
    acc = aggregate("acc", items)
    print(f"{args.n:,} predictions: read {t1 - t0:.2f} s, score_item {t2 - t1:.2f} s, "
          f"{len(values)} aggregates {t3 - t2:.2f} s, total {t3 - t0:.2f} s "
          f"({args.n / (t3 - t0):,.0f}/s); acc {acc:.4f}; bootstrap 20 resamples {t4 - t3:.2f} s [{lo:.4f}, {hi:.4f}]")  # fmt: skip
    print(f"| {args.n:,} rule-scored predictions (read + score + {len(values)} aggregates) | {t3 - t0:.1f} s | "
          f"{args.n / (t3 - t0):,.0f}/s |")  # fmt: skip


if __name__ == "__main__":
    main()
