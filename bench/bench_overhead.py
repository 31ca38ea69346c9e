"""Benchmark: the plugin's per-item overhead through the lmms-eval CLI, against a built-in task.

    python bench/bench_overhead.py [--sizes 1000 10000 100000] [--baseline 10]

For each size N, in the same invocation and alternating, two real ``lmms-eval`` runs in fresh
processes over N items written to a temporary folder:

* ours: a task YAML (temporary include path) over ``ambi://local`` that includes our ``_choice``
  template (our loader/validator, prompt building, parsing, scoring, aggregation), answered by
  ``ambi_replay`` from a predictions file;
* theirs: lmms-eval's built-in ``illusionvqa`` task configuration (its own ``utils`` prompt and
  regex filter, ``exact_match``) pointed at a local JSONL of the same N items, answered by lmms-eval's
  ``dummy`` model.

No image is decoded (neither model reads visuals) and no judge is involved. The per-item cost at
size N is the slope from the previous size, ``(wall(N) - wall(prev)) / (N - prev)`` (the first size
against a ``--baseline``-item run): the fixed start-up (imports, task index) cancels out. On a busy
machine start-up varies by several seconds, so only the largest sizes give a meaningful slope.
Peak memory is the child's maximum resident set size (``os.wait4``). Each run's results JSON is read
back to check that it scored all N items. Prints a Markdown table for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS, THEIRS = "ambi_bench_overhead", "lmms_bench_overhead"
PROMPT = "{question}\n{options}\nAnswer with the option's letter from the given choices directly."


def _builtin_yaml() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("lmms_eval")
    return Path(spec.origin).parent / "tasks" / "illusionvqa" / "illusionvqa.yaml"


def write_inputs(folder: Path, n: int) -> dict[str, Path]:
    """Both tasks' data, YAMLs and the replay predictions for n items."""
    from PIL import Image

    data, ours, theirs = folder / "data", folder / "ours", folder / "theirs"
    for d in (data, ours, theirs):
        d.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), "white").save(data / "img.png")
    letters = "ABCD"
    with (
        (data / "bench_choice.jsonl").open("w") as recs,
        (data / "builtin.jsonl").open("w") as builtin,
        (folder / "predictions.jsonl").open("w") as preds,
    ):
        for i in range(n):
            options = [f"option {k} of item {i}" for k in range(4)]
            gold = i % 4
            question = f"Question {i}: which option is right?"
            rec = {"id": f"b{i}", "benchmark": "bench", "category": "bench", "task_type": "choice",
                   "image": "img.png", "question": question, "options": options, "answer_index": gold}  # fmt: skip
            recs.write(json.dumps(rec) + "\n")
            builtin.write(json.dumps({"question": question, "options": options, "answer": options[gold],
                                      "image": str(data / "img.png")}) + "\n")  # fmt: skip
            answer = letters[gold] if i % 3 else letters[(gold + 1) % 4]  # two thirds right
            preds.write(json.dumps({"task": OURS, "id": f"b{i}", "response": answer}) + "\n")
    (ours / f"{OURS}.yaml").write_text(
        f"include: {ROOT / 'task_yamls' / '_templates' / '_choice'}\ntask: {OURS}\n"
        f"dataset_path: ambi://local\ndataset_name: bench_choice\n"
        f"lmms_eval_specific_kwargs:\n  default:\n    prompt: {json.dumps(PROMPT)}\n"
    )
    (theirs / f"{THEIRS}.yaml").write_text(
        f"include: {_builtin_yaml()}\ntask: {THEIRS}\ndataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data / 'builtin.jsonl'}\nfewshot_split: test\n"
    )
    return {"data": data, "ours": ours, "theirs": theirs, "predictions": folder / "predictions.jsonl"}


def run_cli(args: list[str], env: dict[str, str], out: Path) -> tuple[float, float, dict | None, str]:
    """Run lmms-eval; returns wall seconds, peak RSS in MB, the results JSON (or None) and stderr's tail."""
    from ambi_plugin.lmms.cli_run import lmms_eval_argv
    from ambi_plugin.report import find_results_json

    cmd = [*lmms_eval_argv(), *args, "--batch_size", "1", "--output_path", str(out)]
    log = out.with_suffix(".log")
    t0 = time.perf_counter()
    with log.open("w") as fh:
        proc = subprocess.Popen(cmd, env=env, stdout=fh, stderr=subprocess.STDOUT)
        _, _status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = 0  # reaped by wait4
    try:
        results = json.loads(find_results_json(out).read_text())
    except FileNotFoundError:
        results = None
    return wall, usage.ru_maxrss / 1024, results, log.read_text()[-3000:]


def measure(n: int, tmp: Path) -> dict[str, tuple[float, float]]:
    """Both runs over n items: {'ours': (seconds, MB), 'theirs': (seconds, MB)}."""
    folder = tmp / f"n{n}"
    paths = write_inputs(folder, n)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "AMBI_DATA_DIR": str(paths["data"]), "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
    runs = {
        "ours": (
            [
                "--model",
                "ambi_replay",
                "--model_args",
                f"predictions={paths['predictions']}",
                "--tasks",
                OURS,
                "--include_path",
                str(paths["ours"]),
            ],
            OURS,
        ),  # fmt: skip
        "theirs": (["--model", "dummy", "--tasks", THEIRS, "--include_path", str(paths["theirs"])], THEIRS),
    }
    out: dict[str, tuple[float, float]] = {}
    for side, (args, task) in runs.items():
        # a cold cache for both: our harness copy and the datasets Arrow cache are rebuilt in every run
        run_env = {**env, "AMBI_CACHE": str(folder / f"cache-{side}"), "HF_DATASETS_CACHE": str(folder / f"hf-{side}")}
        wall, mb, results, tail = run_cli(args, run_env, folder / f"out-{side}")
        scored = ((results or {}).get("n-samples") or {}).get(task, {}).get("effective")
        if scored != n:
            sys.exit(f"{side} run over {n} items scored {scored} items; lmms-eval said:\n{tail}")
        out[side] = (wall, mb)
        print(f"  n={n:>7} {side:>6}: {wall:8.1f} s, peak {mb:7.0f} MB", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000], help="item counts to measure")
    ap.add_argument("--baseline", type=int, default=10, help="item count of the start-up run subtracted")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ambi-bench-overhead-") as tmp:
        base = measure(args.baseline, Path(tmp))
        rows = [(n, measure(n, Path(tmp))) for n in args.sizes]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"start-up ({args.baseline} items): ours {base['ours'][0]:.1f} s, theirs {base['theirs'][0]:.1f} s")
    print("| items | ours: wall / peak RSS | ours: ms per item | theirs: wall / peak RSS | theirs: ms per item |")
    print("|---|---|---|---|---|")
    prev = (args.baseline, base)
    for n, r in rows:
        cells = []
        for side in ("ours", "theirs"):
            wall, mb = r[side]
            # the slope from the previous size: start-up cancels, and so does most of the noise of a busy machine
            per = (wall - prev[1][side][0]) / (n - prev[0]) * 1000
            cells += [f"{wall:.1f} s / {mb:,.0f} MB", f"{per:.3f}"]
        print(f"| {n:,} | " + " | ".join(cells) + " |")
        prev = (n, r)


if __name__ == "__main__":
    main()
