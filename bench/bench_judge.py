"""Benchmark: judge throughput against the loopback chat server answering after 50 ms.

    python bench/bench_judge.py [--latency 0.05] [--seconds 4]

Measures ``set_match`` judgements per second through the ``openai`` backend at concurrency 1, 8 and 32
(as many caller threads as the concurrency bound), IllusionBench's 5-round T/F judgement at
concurrency 8, and a warm-cache rerun of the concurrency-32 items (which must send zero requests).
Prints a Markdown table to paste into docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def _judge(url: str, cache: Path, concurrency: int):
    from ambi_plugin.judge import JudgeSettings, make_judge

    return make_judge(
        JudgeSettings(backend="openai", model="bench", base_url=url, cache_path=str(cache), max_concurrency=concurrency)
    )


def _timed(fn, items, workers: int) -> float:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(fn, items))
    return time.perf_counter() - t0


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support: the loopback server
    from support.chat_server import LoopbackChatServer

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--latency", type=float, default=0.05, help="server reply delay in seconds")
    ap.add_argument("--seconds", type=float, default=4.0, help="approximate duration of each measurement")
    args = ap.parse_args()
    rows = []
    with LoopbackChatServer(latency=args.latency) as srv, tempfile.TemporaryDirectory() as tmp:
        for conc in (1, 8, 32):
            n = max(20, int(args.seconds * conc / args.latency))
            items = [([f"gold {conc} {i}"], [f"pred {conc} {i}"]) for i in range(n)]
            cache = Path(tmp) / f"c{conc}.sqlite"
            judge = _judge(srv.url, cache, conc)
            srv.reset_counters()
            secs = _timed(lambda it: judge.set_match(*it), items, conc)  # noqa: B023
            rows.append(
                (f"set_match, concurrency {conc} ({n} items, cold cache)", n / secs, srv.requests, srv.max_inflight)
            )
            if conc == 32:
                warm = _judge(srv.url, cache, conc)
                srv.reset_counters()
                secs = _timed(lambda it: warm.set_match(*it), items, conc)  # noqa: B023
                rows.append((f"set_match, warm-cache rerun of the {n} items", n / secs, srv.requests, srv.max_inflight))
        n = max(20, int(args.seconds * 8 / args.latency / 5))
        tf = [(f"statement {i}", "True", "True") for i in range(n)]
        judge = _judge(srv.url, Path(tmp) / "tf.sqlite", 8)
        srv.reset_counters()
        secs = _timed(lambda it: judge.correct_true_false(*it, rounds=5), tf, 8)
        rows.append((f"5-round T/F judgement, concurrency 8 ({n} items)", n / secs, srv.requests, srv.max_inflight))
    print(f"machine: {os.cpu_count()} cores; server latency {args.latency * 1000:.0f} ms")
    print("| measurement | judgements/s | requests sent | most in flight |")
    print("|---|---|---|---|")
    for name, rate, reqs, inflight in rows:
        print(f"| {name} | {rate:,.1f} | {reqs} | {inflight} |")


if __name__ == "__main__":
    main()
