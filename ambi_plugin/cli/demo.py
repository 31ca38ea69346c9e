"""``ambi demo``: the whole pipeline, offline, in a few minutes on a CPU.

1. builds the embedded synthetic suite (cached after the first run);
2. writes a tiny RANDOM-WEIGHT Qwen2.5-VL (cached) — it proves the pipeline, not a score;
3. runs the real ``lmms-eval`` CLI with its own ``qwen2_5_vl`` backend on ``ambi_synth_all``;
4. reads the results JSON (lmms-eval exits 0 even on failure) and prints a summary, one row per task and a legend;
   every metric of every task goes to ``results_table.md`` in the output folder (``ambi results`` prints it too).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ambi_plugin.paths import cache_dir

# Small images keep the tiny model fast on CPU; 28x28 patches are Qwen2.5-VL's unit.
TINY_MODEL_ARGS = "device=cpu,device_map=cpu,min_pixels=3136,max_pixels=12544"
DEMO_GEN_KWARGS = "max_new_tokens=24"


def tiny_model_dir() -> Path:
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    out = cache_dir() / "tiny-qwen2_5_vl-random"
    if not (out / "config.json").is_file():
        make_tiny_qwen2_5_vl(out)
    return out


def lmms_eval_args(
    *,
    model: str,
    model_args: str,
    tasks: str,
    limit: int | None = None,
    gen_kwargs: str | None = None,
    log_samples: bool = True,
) -> list[str]:
    """lmms-eval arguments (without the program and --output_path)."""
    args = ["--model", model, "--model_args", model_args, "--tasks", tasks, "--batch_size", "1"]
    if limit is not None:
        args += ["--limit", str(limit)]
    if gen_kwargs:
        args += ["--gen_kwargs", gen_kwargs]
    if log_samples:
        args.append("--log_samples")
    return args


def offline_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
        }
    )
    return env


def run_demo(*, output: Path | None = None, limit: int | None = None) -> int:
    from ambi_plugin.lmms.cli_run import lmms_eval_argv, run_lmms_eval
    from ambi_plugin.synth import DEFAULT_N, ensure_suite

    t0 = time.time()
    print("[1/3] synthetic suite:", ensure_suite(seed=0, n=DEFAULT_N), flush=True)
    model_dir = tiny_model_dir()
    print(
        f"[2/3] tiny RANDOM-WEIGHT Qwen2.5-VL: {model_dir} (scores are meaningless; the run proves the pipeline)",
        flush=True,
    )
    output = output or (cache_dir() / "demo-results" / time.strftime("%Y%m%d-%H%M%S"))
    args = lmms_eval_args(
        model="qwen2_5_vl",
        model_args=f"pretrained={model_dir},{TINY_MODEL_ARGS}",
        tasks="ambi_synth_all",
        limit=limit,
        gen_kwargs=DEMO_GEN_KWARGS,
    )
    cmd = [*lmms_eval_argv(), *args, "--output_path", str(output)]
    print("[3/3] running:", " ".join(cmd), flush=True)
    output.mkdir(parents=True, exist_ok=True)
    log_path = output / "lmms-eval.log"
    # lmms-eval's own tables go to the log (secrets masked); its progress bars stay on stderr
    run = run_lmms_eval(args, output=output, env=offline_env(), timeout=None, capture=False, log=log_path)
    print(f"      lmms-eval log: {log_path}", flush=True)
    if run.results_path is None:
        print(
            f"ambi demo: lmms-eval wrote no results (exit code {run.returncode}); see its log: {log_path}",
            file=sys.stderr,
        )
        return 1
    text, missing = demo_report(run.results_path, output=output, log_path=log_path)
    print(text)
    print(f"took {time.time() - t0:.0f} s")
    if missing:
        print(f"ambi demo: tasks without results: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


def demo_report(path: Path, *, output: Path, log_path: Path) -> tuple[str, list[str]]:
    """(what the demo prints after the run, the tasks of ``ambi_synth_all`` without results): a summary first, one
    row per task, a legend; every metric of every task is written to ``<output>/results_table.md``."""
    import json

    from ambi_plugin.reports import overview
    from ambi_plugin.reports.results import task_metrics
    from ambi_plugin.runtime.taskindex import index

    results = json.loads(Path(path).read_text(encoding="utf-8"))
    expected = sorted(index()["ambi_synth_all"].members)
    full = overview.write_full_table(results, Path(output) / "results_table.md")
    samples = sorted(Path(path).parent.glob(Path(path).name.replace("_results.json", "_samples_*.jsonl")))
    files = {
        "results JSON": str(path),
        "per-item answers": f"{len(samples)} file(s) {Path(path).parent}/*_samples_<task>.jsonl" if samples else "none",
        "lmms-eval log": str(log_path),
    }
    text = "\n".join([
        "\nambi_synth_all with a tiny RANDOM-WEIGHT model: the numbers show the pipeline works, not a score\n",
        overview.summary(results, expected=expected, files=files),
        "",
        overview.task_rows(results),
        "\nlegend:\n  " + overview.legend(results).replace("\n", "\n  "),
        f"\nevery metric of every task: {full} (or `ambi results {output}`)",
    ])  # fmt: skip
    return text, sorted(set(expected) - set(task_metrics(results)))
