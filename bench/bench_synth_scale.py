"""Benchmark: the synthetic suite at scale, one family at a time (items per second, peak memory).

    python bench/bench_synth_scale.py                          # 1k, 10k, 100k items of every family
    python bench/bench_synth_scale.py --sizes 100,1000 --families contrast,navon --seed 3

Each (family, size) runs in a fresh process through the suite's own streaming writer (records checked and
written as they come, images written to a scratch folder and deleted every 1,000 items so the disk does not
fill), and reports items/s and the process's peak resident memory. Peak memory that stays flat from one size
to the next is the check that a build streams; a run that finishes is the check that no draw fails.
Prints a Markdown table. 100,000 items of every family take hours on 2 cores (geometric, drawn by
pyllusion, is the slowest); pass smaller --sizes for a quick look.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

SCRATCH_EVERY = 1000


def run_family(family_name: str, n: int, seed: int) -> dict:
    """Generate ``n`` items of one family (in this process); return figures."""
    from ambi_plugin.data.synth.common import BuildContext
    from ambi_plugin.data.synth.suite import FAMILIES, _write_family

    family = next(f for f in FAMILIES if f.name == family_name)
    with tempfile.TemporaryDirectory(prefix="ambi-synth-bench-") as tmp:
        out = Path(tmp)
        images = out / "images"
        images.mkdir()
        done = 0

        def tick() -> None:  # the records are checked before the next item ticks, so the images can go
            nonlocal done
            done += 1
            if done % SCRATCH_EVERY == 0:
                shutil.rmtree(images)
                images.mkdir()

        ctx = BuildContext(out, seed, n, tick=tick)
        counts = dict.fromkeys(family.tasks, 0)
        start = time.perf_counter()
        with ExitStack() as stack:
            files = {t: stack.enter_context((out / f"{t}.jsonl").open("w", encoding="utf-8")) for t in family.tasks}
            _write_family(ctx, family, files, counts)
        seconds = time.perf_counter() - start
        jsonl_mb = sum((out / f"{t}.jsonl").stat().st_size for t in family.tasks) / 1e6
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"family": family_name, "n": n, "seconds": seconds, "peak_mb": peak_mb, "jsonl_mb": jsonl_mb}


def main() -> None:
    from ambi_plugin.data.synth.suite import FAMILIES

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000", help="comma-separated items per family")
    ap.add_argument("--families", default="all", help="comma-separated family names (default: all)")
    ap.add_argument("--seed", type=int, default=0, help="suite seed (default 0)")
    ap.add_argument("--child", nargs=3, metavar=("FAMILY", "N", "SEED"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        family, n, seed = args.child
        print(json.dumps(run_family(family, int(n), int(seed))))
        return
    names = [f.name for f in FAMILIES] if args.families == "all" else args.families.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; seed {args.seed}")
    print("| family | items | seconds | items/s | peak RSS (MB) | JSONL written (MB) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        for n in sizes:
            cmd = [sys.executable, __file__, "--child", name, str(n), str(args.seed)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"| {name} | {n} | FAILED: {proc.stderr.strip().splitlines()[-1:]} | | | |", flush=True)
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"| {name} | {n:,} | {r['seconds']:.1f} | {n / r['seconds']:,.0f} | {r['peak_mb']:.0f} | "
                f"{r['jsonl_mb']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
