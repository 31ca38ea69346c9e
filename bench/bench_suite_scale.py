"""Benchmark: synthetic suite build throughput (items/s) and peak memory at 1k / 10k / 100k items.

    python bench/bench_suite_scale.py                       # 1,000, 10,000 and 100,000 items in all
    python bench/bench_suite_scale.py --items 200 2000      # a quick look

An item is one record (one line of a task's JSONL); a suite of ``n`` items per task has ``18 n`` of them over
``11 n`` images (contrast, stripe and filter images serve two tasks, geometric images five). Each size
``--items N`` builds the whole suite with ``n = ceil(N / 18)`` items per task through the public
``build_suite(out, seed=..., n=n)``, in a fresh process, into a temporary folder (deleted afterwards; 100,000
items need about 1 GB of disk while they exist). The time is measured inside that process around
``build_suite`` (interpreter start-up and imports excluded); peak memory is the process's maximum resident
set size (``os.wait4``), imports included. A build that streams has the same peak at every size. Prints a
Markdown table for docs/performance.md. 100,000 items take about half an hour on 2 cores (the geometric
family, drawn by pyllusion, is most of it; ``bench/bench_synth_scale.py`` times each family).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, time
from pathlib import Path
from ambi_plugin.synth import build_suite
t0 = time.perf_counter()
root = build_suite(Path(sys.argv[1]), seed=int(sys.argv[2]), n=int(sys.argv[3]))
seconds = time.perf_counter() - t0
records = sum(1 for p in root.glob("*.jsonl") for line in p.open(encoding="utf-8") if line.strip())
images = sum(1 for _ in (root / "images").iterdir())
print(json.dumps({"records": records, "images": images, "seconds": seconds}))
"""


def build_once(n: int, seed: int, tmp: Path) -> dict:
    """Figures of one build of ``n`` items per task in a fresh process (records, images, seconds, peak_mb)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    log = tmp / f"build-{n}.log"
    with log.open("w") as fh:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, str(tmp / f"suite-{n}"), str(seed), str(n)], env=env,
                                stdout=fh, stderr=subprocess.STDOUT)  # fmt: skip
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text()
    if proc.returncode != 0:
        sys.exit(f"build of n={n} per task failed:\n{text[-3000:]}")
    return {**json.loads(text.strip().splitlines()[-1]), "peak_mb": usage.ru_maxrss / 1024}


def main() -> None:
    from ambi_plugin.synth import SYNTH_TASKS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, nargs="+", default=[1000, 10000, 100000],
                    help="items (records over all tasks) per build; n per task = ceil(items / tasks)")  # fmt: skip
    ap.add_argument("--seed", type=int, default=0, help="suite seed (default 0)")
    args = ap.parse_args()
    rows = []
    for items in args.items:
        n = math.ceil(items / len(SYNTH_TASKS))
        with tempfile.TemporaryDirectory(prefix="ambi-bench-suite-") as tmp:
            r = build_once(n, args.seed, Path(tmp))
        rows.append((n, r))
        print(f"  n={n} per task: {r['records']} items, {r['images']} images in {r['seconds']:.1f} s, "
              f"peak {r['peak_mb']:.0f} MB", file=sys.stderr, flush=True)  # fmt: skip
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; seed {args.seed}"
    )
    print("| n per task | items (records) | images | build time | items/s | images/s | peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n, r in rows:
        print(f"| {n:,} | {r['records']:,} | {r['images']:,} | {r['seconds']:.1f} s | {r['records'] / r['seconds']:,.0f} "
              f"| {r['images'] / r['seconds']:,.0f} | {r['peak_mb']:,.0f} MB |")  # fmt: skip


if __name__ == "__main__":
    main()
