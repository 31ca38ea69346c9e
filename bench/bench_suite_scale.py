"""Benchmark: synthetic suite build throughput (items/s) and peak memory at growing sizes.

    python bench/bench_suite_scale.py [--sizes 1000 10000 100000] [--seed 0]

Each size is built by ``ambi_plugin.data.synth.build_suite(out, seed=seed, n=N)`` in a fresh process
(peak memory = that process' maximum resident set size, from ``os.wait4``), into a temporary folder.
Items = records written over every task. Peak memory must not grow with N (the generator streams).
Prints a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import sys
from pathlib import Path
from ambi_plugin.data.synth import build_suite
root = build_suite(Path(sys.argv[1]), seed=int(sys.argv[2]), n=int(sys.argv[3]))
print(sum(1 for p in Path(root).glob("*.jsonl") for line in p.open() if line.strip()))
"""


def build_once(n: int, seed: int, tmp: Path) -> tuple[int, float, float]:
    """(items written, seconds, peak RSS in MB) of one build in a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    log = tmp / f"build-{n}.log"
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp / f"suite-{n}"), str(seed), str(n)], env=env,
                                stdout=fh, stderr=subprocess.STDOUT)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text()
    if proc.returncode != 0:
        sys.exit(f"build of n={n} failed:\n{text[-3000:]}")
    return int(text.strip().splitlines()[-1]), secs, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="items per task (build_suite's n)")
    ap.add_argument("--seed", type=int, default=0, help="suite seed")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="ambi-bench-suite-") as tmp:
        for n in args.sizes:
            items, secs, mb = build_once(n, args.seed, Path(tmp))
            rows.append((n, items, secs, mb))
            print(f"  n={n}: {items} items in {secs:.1f} s, peak {mb:.0f} MB", file=sys.stderr, flush=True)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print("| n per task | items written | wall | items/s | peak RSS |")
    print("|---|---|---|---|---|")
    for n, items, secs, mb in rows:
        print(f"| {n:,} | {items:,} | {secs:.1f} s | {items / secs:,.0f} | {mb:,.0f} MB |")


if __name__ == "__main__":
    main()
