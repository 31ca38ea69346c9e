"""Benchmark: time to build the default synthetic suite, and scoring throughput.

    python bench/bench_synth.py [--n N] [--repeats R]

Targets (the foundation issue): the default suite builds in under 60 s on 2 cores.
Prints a Markdown table to paste into docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def time_build(n: int, repeats: int) -> list[float]:
    from ambi_plugin.synth import build_suite

    times = []
    for r in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            build_suite(Path(tmp) / "suite", seed=r, n=n)
            times.append(time.perf_counter() - t0)
    return times


def time_scoring(n: int) -> tuple[int, float]:
    from ambi_plugin.core.answers import reference_response
    from ambi_plugin.core.schema import read_records
    from ambi_plugin.core.scoring import score_item
    from ambi_plugin.synth import build_suite

    with tempfile.TemporaryDirectory() as tmp:
        root = build_suite(Path(tmp) / "suite", seed=0, n=n)
        recs = [r for p in sorted(root.glob("*.jsonl")) for r in read_records(p)]
        pairs = [(r, reference_response(r, m)) for r in recs for m in ("gold", "wrong", "garbage")]
        for rec, resp in pairs:  # warm-up pass: the lexicon and the offline judge's embedding model load once
            score_item(rec, resp)
        t0 = time.perf_counter()
        for rec, resp in pairs:
            score_item(rec, resp)
        return len(pairs), time.perf_counter() - t0


def main() -> None:
    from ambi_plugin.synth import DEFAULT_N

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=DEFAULT_N)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    builds = time_build(args.n, args.repeats)
    n_items, secs = time_scoring(args.n)
    print(f"machine: {os.cpu_count()} cores")
    print("| benchmark | figure |")
    print("|---|---|")
    print(
        f"| build default suite (n={args.n}/task), best of {args.repeats} | {min(builds):.2f} s (max {max(builds):.2f} s) |"
    )
    print(f"| score_item throughput, warm ({n_items} responses) | {n_items / secs:,.0f} responses/s |")


if __name__ == "__main__":
    main()
