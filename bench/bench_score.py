"""Benchmark: scoring 100,000 saved predictions with the rule-based metrics, as ``ambi score`` does.

    python bench/bench_score.py [--n 100000]

Builds records of the rule-scored task types (choice with 2-8 options, true/false, yes/no, multi-label
choice) with category and difficulty breakdowns, writes 100,000 answers (gold, wrong, verbose and
unreadable) as an ``{id, response}`` JSONL and the records as canonical JSONL, then times

1. the internals, in this process: reading the answers, ``score_item`` on each, aggregating every metric
   (overall and per breakdown value) and one bootstrap interval;
2. the command end to end, in a fresh process: ``ambi score --task ambi_synth_geometric_mc --answers ...
   --records ... --json ...`` (start-up and imports, the task index, reading and validating the records,
   scoring, the table and the JSON), checking that it reports the same accuracy.

Target (issue 14): under 10 s on 2 cores. Prints Markdown rows for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CATS = ("classic", "real_scene", "trap", "no_illusion")
LEVELS = ("easy", "neutral", "hard")
TASK = "ambi_synth_geometric_mc"  # its metric list: acc, unparsed_rate and acc per category and difficulty


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


def ambi_command() -> list[str]:
    """The ``ambi`` console script of this interpreter's environment (else the same entry point via -c)."""
    exe = Path(sys.executable).with_name("ambi")
    if exe.is_file():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from ambi_plugin.cli import main; sys.exit(main())"]


def time_command(answers: Path, records: Path, out: Path) -> tuple[float, float, dict]:
    """(wall time, CPU time) of ``ambi score`` in a fresh process, and the metric values it wrote. The CPU time
    (user + system of the child) is what the wall time would be on an otherwise idle machine."""
    import resource

    cmd = [*ambi_command(), "score", "--task", TASK, "--answers", str(answers), "--records", str(records),
           "--json", str(out)]  # fmt: skip
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"ambi score failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, json.loads(out.read_text())["values"]["answers"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    args = ap.parse_args()
    from ambi_plugin.core.schema import validate_record
    from ambi_plugin.core.scoring import aggregate, metric_names, score_item
    from ambi_plugin.reports.answers import answer_columns, read_rows
    from ambi_plugin.reports.rescore import aggregate_all
    from ambi_plugin.reports.stats import bootstrap_ci

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
        records = Path(tmp) / "records.jsonl"
        records.write_text("".join(json.dumps(r) + "\n" for r in recs))
        took, cpu, got = time_command(path, records, Path(tmp) / "values.json")
    # a metric is aggregated over the items that report it, as lmms-eval does and so ambi score (Task.evaluate):
    # multi-label choice items report exact_match, not acc
    acc = aggregate("acc", [it for rec, it in zip(recs, items) if "acc" in metric_names(rec)])
    if abs(got["acc"] - acc) > 1e-12:
        raise SystemExit(f"ambi score reported acc {got['acc']} but the internals give {acc}")
    print(f"{args.n:,} predictions: read {t1 - t0:.2f} s, score_item {t2 - t1:.2f} s, "
          f"{len(values)} aggregates {t3 - t2:.2f} s, total {t3 - t0:.2f} s "
          f"({args.n / (t3 - t0):,.0f}/s); acc {acc:.4f}; bootstrap 20 resamples {t4 - t3:.2f} s [{lo:.4f}, {hi:.4f}]")  # fmt: skip
    print(f"`ambi score` end to end: {took:.2f} s wall, {cpu:.2f} s CPU, {len(got)} metrics, acc {got['acc']:.4f} "
          f"(same as the internals); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    print(f"| {args.n:,} rule-scored predictions (read + score + {len(values)} aggregates) | {t3 - t0:.1f} s | "
          f"{args.n / (t3 - t0):,.0f}/s |")  # fmt: skip
    print(f"| `ambi score` command on {args.n:,} saved predictions, end to end (fresh process; CPU {cpu:.1f} s) | "
          f"{took:.1f} s | {args.n / took:,.0f}/s |")  # fmt: skip


if __name__ == "__main__":
    main()
