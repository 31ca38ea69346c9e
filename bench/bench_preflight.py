"""Preflight cost: every task of the five benchmarks checked on full-size local copies, before a model would load.

Writes canonical local copies with the releases' item counts (AmbiBench 2,723 QA pairs; IllusionBench 1,051 images
with T/F, MC and description questions; IllusionVQA 435 + 1,000; VIA-Bench 1,000; RCID at the paper's scale, 19,000
images asked in 5 prompt variants = 95,000 rows), each record naming its own image file, then times
:func:`ambi_plugin.lmms.preflight.run_preflight` on every task of ours: cold (the harness copies are written: records
read, validated, every image checked to exist) and warm (a rerun: what a second ``ambi eval`` pays). Counts image
decodes (``PIL.Image.open``), which must be 0.

    python bench/bench_preflight.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROWS = {"ambibench": 2723, "illusionbench": 1051 * 3, "illusionvqa": 1435, "viabench": 1000, "rcid": 95000}


def write_copies(root: Path, scale: float) -> dict[str, int]:
    from PIL import Image

    from ambi_plugin.runtime.new_category import example_record
    from ambi_plugin.runtime.taskindex import index

    by_bench: dict[str, dict[str, str]] = defaultdict(dict)  # benchmark -> records name -> task type
    for info in index().values():
        path = str(info.config.get("dataset_path", ""))
        if info.kind == "task" and path.startswith("ambi://") and path[7:] in ROWS:
            by_bench[path[7:]].setdefault(str(info.config["dataset_name"]), info.task_type or "choice")
    written = {}
    for bench, names in by_bench.items():
        folder = root / bench
        (folder / "images").mkdir(parents=True)
        seed = folder / "images" / "seed.png"
        Image.new("RGB", (8, 8), (90, 120, 30)).save(seed)
        png = seed.read_bytes()
        per = max(1, int(ROWS[bench] * scale) // len(names))
        k = 0
        for name, ttype in names.items():
            base = example_record(bench, name, ttype if ttype != "open" else "open", [])
            with (folder / f"{name}.jsonl").open("w") as fh:
                for i in range(per):
                    image = f"images/{k}.png"
                    (folder / image).write_bytes(png)
                    fh.write(json.dumps({**base, "id": f"{name}-{i}", "image": image}) + "\n")
                    k += 1
        written[bench] = k
        os.environ[f"AMBI_{bench.upper()}_DIR"] = str(folder)
    return written


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="fraction of the releases' row counts (default 1)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ambi-bench-preflight-"))
    os.environ["AMBI_CACHE"] = str(tmp / "cache")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    t0 = time.perf_counter()
    rows = write_copies(tmp / "copies", args.scale)
    print(f"wrote copies: {rows} rows ({sum(rows.values())} in all) in {time.perf_counter() - t0:.1f} s")

    import PIL.Image

    from ambi_plugin.lmms.preflight import run_preflight

    opened = []
    real_open = PIL.Image.open
    PIL.Image.open = lambda *a, **k: (opened.append(a[0]), real_open(*a, **k))[1]
    groups = ["ambibench_all", "ambi_illusionbench_all", "ambi_illusionvqa_all", "ambi_viabench_all", "ambi_rcid_all"]
    for label in ("cold (harness copies written)", "warm (a rerun)"):
        t = time.perf_counter()
        result = run_preflight(groups)
        took = time.perf_counter() - t
        print(
            f"preflight {label}: {len(result.checked)} tasks, {len(result.problems)} problem(s), {took:.2f} s, "
            f"{len(opened)} image(s) decoded"
        )
        for p in result.problems:
            print(f"  problem: {p.what} ({len(p.tasks)} tasks)")
    PIL.Image.open = real_open
    return 0 if not opened else 1


if __name__ == "__main__":
    sys.exit(main())
