"""Benchmark: ``ambi build`` of an RCID-scale set (19,000 images) streams with flat memory.

    python bench/bench_build.py [--images 19000] [--workdir DIR] [--keep]

The source is a canonical folder of 19,000 distinct image files with one pixel-prompt record each, made once in
``--workdir`` from the synthetic generator's contrast and stripe items (RCID section 3.1's procedure): 200
generated items, scaled to 384 x 384 and stamped with their index (the generator alone would need about 0.3 s per
item on these 2 cores). The build runs in a fresh process;
its peak resident memory (``ru_maxrss``) and its throughput in images per second are printed as a Markdown row
for docs/performance.md. Target (issue 13): peak memory under 2 GB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHUNK = 100
POOL = 200  # generated items; the generator needs about 0.3 s per item here, too slow for 19,000
SIDE = 384  # pixels of each image of the set (RCID-like scale; the generator draws small images)


def _pool(root: Path) -> list[dict]:
    """Generated contrast and stripe items, half each (a chunk whose seed the generator rejects is redrawn)."""
    from ambi_plugin.data.synth.color import generate_contrast, generate_stripe
    from ambi_plugin.data.synth.common import BuildContext

    rows, seed = [], 0
    for family, generate in (("contrast", generate_contrast), ("stripe", generate_stripe)):
        want = POOL // 2
        while want > 0:
            n = min(CHUNK, want)
            sub = root / "pool" / f"{family}_{seed}"
            try:
                recs = next(iter(generate(BuildContext(sub, seed, n)).values()))  # the pixel-prompt task
            except RuntimeError:
                shutil.rmtree(sub, ignore_errors=True)
                seed += 1
                continue
            rows += [{**r, "image": str(sub / r["image"])} for r in recs]
            want, seed = want - n, seed + 1
    return rows


def make_source(root: Path, images: int) -> int:
    """A canonical folder of ``images`` distinct image files and one record each: the pool's items in turn,
    scaled to SIDE x SIDE (nearest neighbour, so the regions keep their colours) and stamped with their index in
    the top-left row of pixels (so every file differs)."""
    import numpy as np
    from PIL import Image

    if (root / "done.json").is_file() and json.loads((root / "done.json").read_text())["images"] == images:
        return images
    shutil.rmtree(root, ignore_errors=True)
    (root / "images").mkdir(parents=True)
    pool = _pool(root)
    with (root / "perception.jsonl").open("w", encoding="utf-8") as fh:
        for i in range(images):
            base = pool[i % len(pool)]
            with Image.open(base["image"]) as im:
                arr = np.array(im.convert("RGB").resize((SIDE, SIDE), Image.Resampling.NEAREST))
            arr[0, :32, :] = [[255 * ((i >> b) & 1)] * 3 for b in range(32)]
            rel = f"images/{i // 1000:03d}/{i:06d}.png"
            (root / rel).parent.mkdir(exist_ok=True)
            Image.fromarray(arr).save(root / rel, compress_level=1)
            fh.write(json.dumps({**base, "id": f"item_{i:06d}", "image": rel}) + "\n")
            if i % 1000 == 999:
                print(f"  {i + 1} images", file=sys.stderr, flush=True)
    (root / "done.json").write_text(json.dumps({"images": images}))
    return images


BUILD = """
import json, resource, sys, time
from ambi_plugin.data.hub import build
t0 = time.perf_counter()
r = build("ambi_synth", sys.argv[1], sys.argv[2])
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "images": r.images, "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=19000)
    ap.add_argument("--workdir", default=None, help="where the source is made once (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the built folder")
    args = ap.parse_args(argv)
    work = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="ambi-bench-build-"))
    t0 = time.perf_counter()
    n = make_source(work / "source", args.images)
    print(f"source: {n} images in {work / 'source'} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    out = work / "built"
    proc = subprocess.run([sys.executable, "-c", BUILD, str(work / "source"), str(out)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    size = sum(p.stat().st_size for p in out.rglob("*.parquet")) / 2**20
    shards = len(list(out.rglob("*.parquet")))
    print("| images | build time | images/s | peak RSS | parquet | shards |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {res['images']} | {res['seconds']:.0f} s | {res['images'] / res['seconds']:.0f} | "
        f"{res['maxrss_kb'] / 1024:.0f} MB | {size:.0f} MB | {shards} |"
    )
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
