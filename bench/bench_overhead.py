"""Benchmark: the plugin's per-item overhead through the lmms-eval CLI, against a built-in task.

    python bench/bench_overhead.py                                  # 1k, 10k, 100k items, 3 repeats
    python bench/bench_overhead.py --sizes 200 2000 --repeats 1     # a quick look
    python bench/bench_overhead.py --profile ours --profile-size 10000   # where the time goes (cProfile)

For each size N, two real ``lmms-eval`` runs in fresh processes over the same N items, written once to a
temporary folder:

* ours: a task YAML (temporary include path) over ``ambi://local`` that includes our ``_choice`` template
  (our loader/validator, prompt building, parsing, scoring, aggregation);
* theirs: lmms-eval's built-in ``illusionvqa`` task configuration (its own ``utils`` prompt, regex filter and
  ``exact_match``) pointed at a local JSONL of the same N items.

Both are answered by lmms-eval's own ``dummy`` model (it answers "A" at once and reads no image), so the model
costs the same on both sides and no judge is involved: what differs is the tasks' own work, the plugin's overhead
as the issue defines it (model and judge excluded). ``--ours-model ambi_replay`` answers our side with our replay
model from a predictions file instead (two thirds right), to see that model's own cost. Every size is
run ``--repeats`` times; the runs alternate (sizes in turn, and which side goes first flips every repeat), and
each run starts with cold caches (our harness copy and the datasets Arrow cache are rebuilt). Each run's results
JSON is read back to check that it scored all N items. Reported per size: the median wall time, the median CPU
time (user + system of every thread, from ``os.wait4``: it moves far less than wall time when other work shares
the cores) and the median peak resident memory (the child's ``ru_maxrss``); per step between consecutive sizes:
the per-item cost ``(median CPU(N2) - median CPU(N1)) / (N2 - N1)`` (the fixed start-up, imports and the task
index, cancels), the same from wall time, and the memory per item. Linear growth shows as the same per-item
figures at every step. Prints Markdown tables for docs/performance.md and exits non-zero if ours costs more CPU
per item than theirs, or 2 ms or more, at any step.

``--profile SIDE`` instead runs one side once at ``--profile-size`` items under cProfile (lmms-eval's scoring
threads made one, so that cProfile sees them) and prints the task-side functions (ours: ``ambi_plugin``;
theirs: ``lmms_eval/tasks`` and the filters) by cumulative time, in microseconds per item.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS, THEIRS = "ambi_bench_overhead", "lmms_bench_overhead"
SIDES = ("ours", "theirs")
PROMPT = "{question}\n{options}\nAnswer with the option's letter from the given choices directly."
LIMIT_MS = 2.0

PROFILED = """
import cProfile, sys
import lmms_eval.evaluator as ev
threaded = ev._thread_map_ordered
ev._thread_map_ordered = lambda function, items, max_workers, on_complete=None: threaded(function, items, 1, on_complete)
from lmms_eval.cli.dispatch import main
out = sys.argv.pop(1)
sys.argv[0] = "lmms-eval"
cProfile.run("main()", out)
"""


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


OURS_MODEL = "dummy"  # set from --ours-model


def side_args(side: str, paths: dict[str, Path]) -> list[str]:
    if side == "ours" and OURS_MODEL == "ambi_replay":
        return ["--model", "ambi_replay", "--model_args", f"predictions={paths['predictions']}",
                "--tasks", OURS, "--include_path", str(paths["ours"])]  # fmt: skip
    if side == "ours":
        return ["--model", "dummy", "--tasks", OURS, "--include_path", str(paths["ours"])]
    return ["--model", "dummy", "--tasks", THEIRS, "--include_path", str(paths["theirs"])]


def side_env(folder: Path, paths: dict[str, Path], run: str) -> dict[str, str]:
    """The run's environment: offline, our package first, and cold caches of its own."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "AMBI_DATA_DIR": str(paths["data"]), "AMBI_CACHE": str(folder / f"cache-{run}"),
            "HF_DATASETS_CACHE": str(folder / f"hf-{run}"),
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip


def run_cli(cmd: list[str], env: dict[str, str], out: Path) -> tuple[float, float, float, dict | None, str]:
    """Run one lmms-eval command: wall seconds, CPU seconds (user + system, every thread), peak RSS in MB, the
    results JSON (or None) and the log's tail."""
    from ambi_plugin.reports.results import find_results_json

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
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, results, log.read_text()[-3000:]


def measure(side: str, n: int, folder: Path, paths: dict[str, Path], run: str) -> tuple[float, float, float]:
    """One run of one side over n items: (wall s, CPU s, peak MB). Exits when the run did not score all n items."""
    from ambi_plugin.lmms.cli_run import lmms_eval_argv

    task = OURS if side == "ours" else THEIRS
    out = folder / f"out-{run}"
    cmd = [*lmms_eval_argv(), *side_args(side, paths), "--batch_size", "1", "--output_path", str(out)]
    wall, cpu, mb, results, tail = run_cli(cmd, side_env(folder, paths, run), out)
    scored = ((results or {}).get("n-samples") or {}).get(task, {}).get("effective")
    if scored != n:
        sys.exit(f"{side} run over {n} items scored {scored} items; lmms-eval said:\n{tail}")
    for leftover in (out, folder / f"cache-{run}", folder / f"hf-{run}"):
        shutil.rmtree(leftover, ignore_errors=True)
    return wall, cpu, mb


Runs = dict[tuple[str, int], list[tuple[float, float, float]]]


def run_all(sizes: list[int], repeats: int, tmp: Path) -> Runs:
    """Every (side, size) run ``repeats`` times, alternating; {(side, n): [(wall s, CPU s, MB), ...]}."""
    paths = {n: write_inputs(tmp / f"n{n}", n) for n in sizes}
    runs: Runs = {}
    for r in range(repeats):
        for n in sizes:
            for side in SIDES if r % 2 == 0 else SIDES[::-1]:
                wall, cpu, mb = measure(side, n, tmp / f"n{n}", paths[n], f"{side}-{r}")
                runs.setdefault((side, n), []).append((wall, cpu, mb))
                print(f"  repeat {r + 1}/{repeats} n={n:>7} {side:>6}: {wall:7.1f} s wall, {cpu:7.1f} s CPU, peak {mb:6.0f} MB",
                      file=sys.stderr, flush=True)  # fmt: skip
    return runs


def report(sizes: list[int], runs: Runs, repeats: int) -> bool:
    """Print the Markdown tables; True when ours <= theirs and < LIMIT_MS per item (CPU time) at every step."""
    from importlib.metadata import version

    med = {key: tuple(statistics.median(r[k] for r in v) for k in range(3)) for key, v in runs.items()}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"lmms-eval {version('lmms_eval')}; median of {repeats} alternating run(s) per cell; "
          f"models: ours {OURS_MODEL}, theirs dummy")  # fmt: skip
    print()
    print("| items | ours: wall | ours: CPU | ours: peak RSS | theirs: wall | theirs: CPU | theirs: peak RSS |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        (ow, oc, om), (tw, tc, tm) = med[("ours", n)], med[("theirs", n)]
        print(f"| {n:,} | {ow:.1f} s | {oc:.1f} s | {om:,.0f} MB | {tw:.1f} s | {tc:.1f} s | {tm:,.0f} MB |")
    print()
    print("| step | ours: ms/item CPU (wall) | theirs: ms/item CPU (wall) | ours: KB/item | theirs: KB/item |")
    print("|---|---:|---:|---:|---:|")
    ok = True
    for a, b in zip(sizes, sizes[1:]):
        per = {}
        cells = []
        for side in SIDES:
            (wa, ca, ma), (wb, cb, mb) = med[(side, a)], med[(side, b)]
            per[side] = (cb - ca) / (b - a) * 1000
            cells.append(f"{per[side]:.3f} ({(wb - wa) / (b - a) * 1000:.3f})")
            cells.append(f"{(mb - ma) * 1024 / (b - a):.2f}")
        ok &= per["ours"] <= per["theirs"] and per["ours"] < LIMIT_MS
        print(f"| {a:,} -> {b:,} | {cells[0]} | {cells[2]} | {cells[1]} | {cells[3]} |")
    print()
    print(f"ours <= theirs and < {LIMIT_MS} ms per item (CPU time) at every step: {'yes' if ok else 'NO'}")
    return ok


def profile(side: str, n: int, tmp: Path, top: int) -> None:
    """One run of ``side`` over n items under cProfile; print the task-side functions by cumulative time."""
    import pstats

    folder = tmp / f"profile-{side}-{n}"
    paths = write_inputs(folder, n)
    stats_file = folder / "run.prof"
    out = folder / "out"
    cmd = [sys.executable, "-c", PROFILED, str(stats_file), *side_args(side, paths), "--batch_size", "1",
           "--output_path", str(out)]  # fmt: skip
    wall, _cpu, mb, results, tail = run_cli(cmd, side_env(folder, paths, "profile"), out)
    if results is None or not stats_file.is_file():
        sys.exit(f"the profiled run wrote no results; lmms-eval said:\n{tail}")
    st = pstats.Stats(str(stats_file))
    marks = ("ambi_plugin",) if side == "ours" else ("lmms_eval/tasks", "lmms_eval/filters", "lmms_eval/api/metrics")
    rows = [(ct, tt, nc, f"{Path(fn).name}:{line}({name})") for (fn, line, name), (_cc, nc, tt, ct, _callers)
            in st.stats.items() if any(m in fn for m in marks)]  # fmt: skip
    rows.sort(reverse=True)
    print(f"{side}, {n:,} items under cProfile: {wall:.1f} s wall, peak {mb:,.0f} MB (profiling slows every call)")
    print("| function | calls | cumulative us/item | own us/item |")
    print("|---|---:|---:|---:|")
    for ct, tt, nc, label in rows[:top]:
        print(f"| `{label}` | {nc:,} | {ct / n * 1e6:,.1f} | {tt / n * 1e6:,.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000], help="item counts to measure")
    ap.add_argument("--repeats", type=int, default=3, help="runs of every (side, size), alternating (default 3)")
    ap.add_argument("--profile", choices=SIDES, default=None, help="profile one side instead of timing both")
    ap.add_argument("--profile-size", type=int, default=10000, help="items of the profiled run (default 10000)")
    ap.add_argument("--top", type=int, default=25, help="rows of the profile table (default 25)")
    ap.add_argument("--ours-model", choices=("dummy", "ambi_replay"), default="dummy",
                    help="the model answering our side (default: lmms-eval's dummy, as on their side)")  # fmt: skip
    args = ap.parse_args()
    global OURS_MODEL
    OURS_MODEL = args.ours_model
    with tempfile.TemporaryDirectory(prefix="ambi-bench-overhead-") as tmp:
        if args.profile:
            profile(args.profile, args.profile_size, Path(tmp), args.top)
            return
        sizes = sorted(set(args.sizes))
        runs = run_all(sizes, args.repeats, Path(tmp))
    sys.exit(0 if report(sizes, runs, args.repeats) else 1)


if __name__ == "__main__":
    main()
