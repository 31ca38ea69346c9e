"""Benchmark: ``ambi build rcid`` of an RCID-scale release (19,000 images) streams with flat memory.

    python bench/bench_build.py [--images 19000] [--workdir DIR] [--keep]

The source is laid out as the RCID Hub repo is (``mao1207/RCID``, an imagefolder: ``<split>/<type>/<class>/<file>``)
with the paper's three splits in its proportions (train / dev / test = 2 : 1 : 1, i.e. 9,500 / 4,750 / 4,750 of
19,000). It is made once in ``--workdir`` from the synthetic generator's contrast and stripe items (RCID section
3.1's procedure): 200 generated items, reused in turn (generating 19,000 would only slow the setup down), scaled
to 384 x 384 and stamped with their index so that every file differs, each filed under the class its answers give
(``look_like_different`` / ``look_like_same`` for illusions, ``same`` / ``different`` for controls).

``ambi build rcid --source DIR`` then runs in a fresh process, in its two stages, timed apart: the Hub loader
(``datasets`` reads the imagefolder; every image becomes records of the three prompt families and two 3-shot
composites) and the build proper (every record checked, every image decoded, typed rows streamed to parquet in
batches). The peak resident memory of that process (``ru_maxrss``), its CPU time and the throughput are printed
as a Markdown row for docs/performance.md (wall times depend on what else runs on the machine; CPU time less). Target (issue 13): peak memory under 2 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POOL = 200  # generated items, reused in turn (each stamped with its index)
SIDE = 384  # pixels of each image of the set (the generator draws small images)
SPLITS = (("train", 2), ("dev", 1), ("test", 1))  # the paper's 9,500 / 4,750 / 4,750
SAME = 2  # the "They are exactly same" option of the generator's perception items


def _pool() -> list[tuple[str, str, object]]:
    """(type, RCID class, image array) of the generator's pixel-prompt contrast and stripe items, half each."""
    import numpy as np
    from PIL import Image

    from ambi_plugin.synth.color import generate_contrast, generate_stripe
    from ambi_plugin.synth.common import BuildContext

    out: list[tuple[str, str, object]] = []
    with tempfile.TemporaryDirectory(prefix="ambi-bench-pool-") as tmp:
        for family, generate in (("contrast", generate_contrast), ("stripe", generate_stripe)):
            ctx = BuildContext(Path(tmp) / family, seed=0, n=POOL // 2)
            for task, rec in generate(ctx):
                if not task.endswith("_pixel"):
                    continue
                same = rec["pixel_answer_index"] == SAME
                label = ("look_like_different" if same else "look_like_same") if rec["is_illusion"] else (
                    "same" if same else "different")  # fmt: skip
                with Image.open(ctx.out_dir / rec["image"]) as im:
                    arr = np.array(im.convert("RGB").resize((SIDE, SIDE), Image.Resampling.NEAREST))
                out.append((family, label, arr))
    return out


def make_source(root: Path, images: int) -> int:
    """``images`` distinct PNG files laid out like the RCID Hub repo (made once; reused when complete)."""
    from PIL import Image

    done = root / "done.json"
    if done.is_file() and json.loads(done.read_text())["images"] == images:
        return images
    shutil.rmtree(root, ignore_errors=True)
    pool = _pool()
    weights = sum(w for _, w in SPLITS)
    bounds, start = [], 0
    for split, w in SPLITS:
        bounds.append((split, start, start + images * w // weights))
        start = bounds[-1][2]
    bounds[-1] = (bounds[-1][0], bounds[-1][1], images)
    for split, lo, hi in bounds:
        for i in range(lo, hi):
            family, label, base = pool[i % len(pool)]
            arr = base.copy()  # type: ignore[union-attr]
            arr[0, :32, :] = [[255 * ((i >> b) & 1)] * 3 for b in range(32)]
            path = root / split / family / label / f"{i:06d}.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(arr).save(path, compress_level=1)
            if i % 1000 == 999:
                print(f"  {i + 1} images", file=sys.stderr, flush=True)
    done.write_text(json.dumps({"images": images}))
    return images


STAGES = """
import json, resource, sys, time
from ambi_plugin.data.hub import build
from ambi_plugin.benchmarks.registry import get
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu = lambda: (lambda u: u.ru_utime + u.ru_stime)(resource.getrusage(resource.RUSAGE_SELF))
t0 = time.perf_counter()
canonical = get("rcid").read_source(sys.argv[1])  # the Hub loader: imagefolder -> canonical records (cached)
t1 = time.perf_counter()
rss_import = peak()
r = build("rcid", sys.argv[1], sys.argv[2])  # reads the cached canonical copy, checks, writes parquet
t2 = time.perf_counter()
rows = sum(n for splits in r.counts.values() for n in splits.values())
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "cpu_s": cpu(), "rows": rows, "row_images": r.images,
                  "splits": sorted({s for c in r.counts.values() for s in c}),
                  "rss_import_kb": rss_import, "rss_kb": peak()}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=19000)
    ap.add_argument("--workdir", default=None, help="where the source is made once (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the built folder and the caches")
    args = ap.parse_args(argv)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="ambi-bench-build-"))
    t0 = time.perf_counter()
    n = make_source(work / "source", args.images)
    print(f"source: {n} images in {work / 'source'} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    out, caches = work / "built", work / "caches"
    shutil.rmtree(caches, ignore_errors=True)  # a cold run: the loader's conversion is not cached yet
    env = {
        **os.environ,
        "AMBI_CACHE": str(caches / "ambi"),
        "HF_DATASETS_CACHE": str(caches / "datasets"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-c", STAGES, str(work / "source"), str(out)], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    size = sum(p.stat().st_size for p in out.rglob("*.parquet")) / 2**20
    shards = len(list(out.rglob("*.parquet")))
    total = res["import_s"] + res["build_s"]
    print(
        f"splits: {', '.join(res['splits'])}; rows: {res['rows']}; images in rows: {res['row_images']}", file=sys.stderr
    )
    print("| images | rows | loader | build | total (CPU) | images/s | rows/s (build) | peak RSS | parquet | shards |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {n:,} | {res['rows']:,} | {res['import_s']:.0f} s | {res['build_s']:.0f} s | {total:.0f} s "
        f"({res['cpu_s']:.0f} s) | {n / total:.1f} | {res['rows'] / res['build_s']:.0f} | "
        f"{res['rss_kb'] / 1024:.0f} MB | {size:.0f} MB | {shards} |"
    )
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(caches, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
