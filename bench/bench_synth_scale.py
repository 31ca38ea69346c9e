"""Benchmark: the synthetic generator at scale, one family at a time (items per second, peak memory).

    python bench/bench_synth_scale.py                          # 1k, 10k, 100k items of every family
    python bench/bench_synth_scale.py --sizes 100,1000 --families contrast,navon --seed 3

Each (family, size) runs in a fresh process through the suite's own checked, streaming writer (records
validated and written as they come; images written to a scratch folder that is emptied every 1,000 items so
the disk does not fill). Per run: items/s (items = images of the family; each feeds one record per task of
the family), the process's peak resident memory (``ru_maxrss``, imports included) once the first 1,000 items
are built and at the end, and the JSONL written. A peak that is the same after 1,000 items as after 100,000
shows that memory is bounded and independent of n (the glyph and font caches are bounded and full after a
few hundred items); a run that finishes shows that no draw fails. Progress goes to stderr every 10% of a
run. Prints a Markdown table for docs/performance.md. 100,000 items of every family take many hours on 2
cores (geometric, drawn by pyllusion, about 4-5 hours alone); pass smaller --sizes for a quick look.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRATCH_EVERY = 1000
EARLY = 1000  # the peak memory is also read after this many items


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_family(family_name: str, n: int, seed: int) -> dict:
    """Generate ``n`` items of one family (in this process); return figures."""
    from ambi_plugin.synth.common import BuildContext
    from ambi_plugin.synth.suite import FAMILIES, _write_family

    family = next(f for f in FAMILIES if f.name == family_name)
    early = {"peak_mb": None}
    with tempfile.TemporaryDirectory(prefix="ambi-synth-bench-") as tmp:
        out = Path(tmp)
        images = out / "images"
        images.mkdir()
        done = 0

        def tick() -> None:  # the records are checked before the next item ticks, so the images can go
            nonlocal done
            done += 1
            if done == min(EARLY, n):
                early["peak_mb"] = _peak_mb()
            if done % SCRATCH_EVERY == 0:
                shutil.rmtree(images)
                images.mkdir()
            if n >= 10 and done % (n // 10) == 0:
                print(f"    {family_name}: {done:,}/{n:,} items", file=sys.stderr, flush=True)

        ctx = BuildContext(out, seed, n, tick=tick)
        counts = dict.fromkeys(family.tasks, 0)
        start = time.perf_counter()
        with ExitStack() as stack:
            files = {t: stack.enter_context((out / f"{t}.jsonl").open("w", encoding="utf-8")) for t in family.tasks}
            _write_family(ctx, family, files, counts)
        seconds = time.perf_counter() - start
        jsonl_mb = sum((out / f"{t}.jsonl").stat().st_size for t in family.tasks) / 1e6
    return {"family": family_name, "n": n, "records": sum(counts.values()), "seconds": seconds,
            "early_peak_mb": early["peak_mb"], "peak_mb": _peak_mb(), "jsonl_mb": jsonl_mb}  # fmt: skip


def main() -> None:
    from ambi_plugin.synth.suite import FAMILIES

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
    unknown = sorted(set(names) - {f.name for f in FAMILIES})
    if unknown:
        sys.exit(f"unknown families {unknown}; choose from {', '.join(f.name for f in FAMILIES)}")
    sizes = [int(s) for s in args.sizes.split(",")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; seed {args.seed}"
    )
    print(f"| family | items | records | seconds | items/s | peak RSS after {EARLY:,} items | peak RSS at the end "
          "| JSONL written |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    failed = False
    for name in names:
        for n in sizes:
            cmd = [sys.executable, __file__, "--child", name, str(n), str(args.seed)]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)  # stderr (progress) passes through
            if proc.returncode != 0:
                failed = True
                print(f"| {name} | {n:,} | FAILED (exit {proc.returncode}, see stderr) | | | | | |", flush=True)
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"| {name} | {n:,} | {r['records']:,} | {r['seconds']:.1f} | {n / r['seconds']:,.0f} "
                  f"| {r['early_peak_mb']:.0f} MB | {r['peak_mb']:.0f} MB | {r['jsonl_mb']:.1f} MB |", flush=True)  # fmt: skip
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
