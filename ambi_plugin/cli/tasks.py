"""``ambi tasks``, ``tasks-path``, ``synth``, ``make-tiny-model``, ``replay-file``, ``validate-tasks``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path


def _cmd_tasks_path(args: argparse.Namespace) -> int:
    from ambi_plugin.paths import tasks_dir

    print(tasks_dir())
    return 0


def _cmd_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.runtime.taskindex import benchmark_of, index, members_summary

    idx = index()
    rows = [("name", "kind", "benchmark", "category", "task type", "members")]
    for info in sorted(idx.values(), key=lambda i: (i.kind != "group", benchmark_of(idx, i.name), i.name)):
        group = info.kind == "group"
        rows.append(
            (
                info.name,
                info.kind,
                benchmark_of(idx, info.name),
                info.category or "-",
                info.task_type or "-",
                members_summary(idx, info.name) if group else "-",
            )
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from ambi_plugin.synth import build_suite

    out = build_suite(Path(args.out), seed=args.seed, n=args.n, progress=True)
    manifest = json.loads((out / "manifest.json").read_text())
    print(f"wrote {sum(manifest['tasks'].values())} records in {len(manifest['tasks'])} tasks to {out}")
    return 0


def _cmd_make_tiny_model(args: argparse.Namespace) -> int:
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    out = make_tiny_qwen2_5_vl(Path(args.dir), seed=args.seed)
    from ambi_plugin.cli.demo import TINY_MODEL_ARGS

    print(f"wrote a RANDOM-WEIGHT tiny Qwen2.5-VL to {out} (it proves the pipeline, not a score)")
    print(
        f"use it with: lmms-eval --model qwen2_5_vl --model_args pretrained={out},{TINY_MODEL_ARGS} --batch_size 1 ..."
    )
    return 0


def _cmd_replay_file(args: argparse.Namespace) -> int:
    from ambi_plugin.data.replayfiles import write_reference_predictions

    without: dict[str, str] = {}
    n = write_reference_predictions(
        Path(args.out), tasks=args.tasks, mode=args.mode, data_dir=args.data_dir, without=without
    )
    print(f"wrote {n} {args.mode} responses to {args.out}")
    for task, reason in without.items():
        print(f"  no rows for {task} (an lmms-eval run reports it NaN): {reason}")
    return 0


def _cmd_validate_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.validate import check_keys

    skipped: list[str] = []
    if args.paths:  # a user's include path: every YAML read, every top-level key checked against lmms-eval's fields
        problems = [p for path in args.paths for p in check_keys(Path(path))]
    else:
        from ambi_plugin.lmms.validate import validate_tasks

        problems = check_keys() + validate_tasks(load=not args.no_load, skipped=skipped)
    for p in problems:  # one line each; the whole text with --verbose
        text = str(p).strip()
        print(f"- {text if args.verbose else (text.splitlines() or [''])[0]}", file=sys.stderr)
    for s in skipped:
        print(f"- skipped (data not available here) {s}", file=sys.stderr)
    summary = "all task YAMLs valid" if not problems else f"{len(problems)} problem(s)"
    if skipped:
        summary += f"; {len(skipped)} task(s) not loaded (their data is not available here)"
    if problems and not args.verbose:
        summary += " (details: --verbose)"
    print(summary)
    return 1 if problems else 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "tasks": ("list our tasks and groups with benchmark, category and task type", _cmd_tasks),
    "tasks-path": ("print the folder of our task YAMLs (for lmms-eval --include_path)", _cmd_tasks_path),
    "synth": ("build the procedurally generated suite (exact ground truth) into a folder", _cmd_synth),
    "make-tiny-model": (
        "write a tiny RANDOM-WEIGHT Qwen2.5-VL that lmms-eval's qwen2_5_vl loads on CPU",
        _cmd_make_tiny_model,
    ),
    "replay-file": ("write gold / wrong / garbage responses for tasks, for the ambi_replay model", _cmd_replay_file),
    "validate-tasks": (
        "check every task YAML: keys lmms-eval accepts, lmms-eval's own loader, name clashes, metric lists",
        _cmd_validate_tasks,
    ),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["synth"].add_argument("--out", required=True, help="folder to write (replaced atomically)")
    p["synth"].add_argument("--seed", type=int, default=0, help="random seed: same seed and n, same suite (default 0)")
    p["synth"].add_argument("--n", type=int, default=None, help="items per task (default: the suite's default)")
    p["make-tiny-model"].add_argument("dir", help="folder to write the model into")
    p["make-tiny-model"].add_argument("--seed", type=int, default=0, help="seed of the random weights (default 0)")
    p["replay-file"].add_argument("--out", required=True, help="JSONL file to write")
    p["replay-file"].add_argument("--tasks", default="ambi_synth_all", help="comma-separated tasks or groups of ours")
    p["replay-file"].add_argument(
        "--mode",
        choices=("gold", "wrong", "garbage"),
        default="gold",
        help="gold: the correct answers; wrong: deliberately wrong ones; garbage: unparseable text (default gold)",
    )
    p["replay-file"].add_argument(
        "--data-dir", default=None, help="read records from this folder instead of the synth suite"
    )
    p["validate-tasks"].add_argument(
        "paths",
        nargs="*",
        help="task YAML folders or files to check instead of ours (e.g. your --include_path): each YAML is read and "
        "its top-level keys checked against lmms-eval's, naming file, task and key",
    )
    p["validate-tasks"].add_argument("--no-load", action="store_true", help="skip building each task through lmms-eval")
    p["validate-tasks"].add_argument("--verbose", action="store_true", help="each problem in full (default: one line)")
