"""The ``ambi`` command: one thin subcommand per library function.

Run ``ambi --help`` for the list, ``ambi <command> --help`` for each.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def _cmd_tasks_path(args: argparse.Namespace) -> int:
    from ambi_plugin.paths import tasks_dir

    print(tasks_dir())
    return 0


def _cmd_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.taskindex import index

    idx = index()
    rows = [("name", "kind", "benchmark", "category", "task type")]
    for info in sorted(idx.values(), key=lambda i: (i.kind != "group", i.benchmark, i.name)):
        rows.append(
            (info.name, info.kind, info.benchmark, info.category or "-", info.task_type or f"{len(info.members)} tasks")
        )
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from ambi_plugin.data.synth import build_suite

    out = build_suite(Path(args.out), seed=args.seed, n=args.n, progress=True)
    manifest = json.loads((out / "manifest.json").read_text())
    print(f"wrote {sum(manifest['tasks'].values())} records in {len(manifest['tasks'])} tasks to {out}")
    return 0


def _cmd_make_tiny_model(args: argparse.Namespace) -> int:
    from ambi_plugin.models.tiny_qwen import make_tiny_qwen2_5_vl

    out = make_tiny_qwen2_5_vl(Path(args.dir), seed=args.seed)
    from ambi_plugin.demo import TINY_MODEL_ARGS

    print(f"wrote a RANDOM-WEIGHT tiny Qwen2.5-VL to {out} (it proves the pipeline, not a score)")
    print(
        f"use it with: lmms-eval --model qwen2_5_vl --model_args pretrained={out},{TINY_MODEL_ARGS} --batch_size 1 ..."
    )
    return 0


def _cmd_replay_file(args: argparse.Namespace) -> int:
    from ambi_plugin.replayfile import write_reference_predictions

    n = write_reference_predictions(Path(args.out), tasks=args.tasks, mode=args.mode, data_dir=args.data_dir)
    print(f"wrote {n} {args.mode} responses to {args.out}")
    return 0


def _cmd_validate_tasks(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.validate import validate_tasks

    problems = validate_tasks(load=not args.no_load)
    for p in problems:
        print(f"- {p}", file=sys.stderr)
    print("all task YAMLs valid" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from ambi_plugin.demo import run_demo

    return run_demo(output=Path(args.output) if args.output else None, limit=args.limit)


def _cmd_lmms_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.discovery import install_hooks

    install_hooks()
    from lmms_eval.cli.dispatch import main as lmms_main

    sys.argv = ["lmms-eval", *args.rest]
    lmms_main()
    return 0


def _cmd_results_table(args: argparse.Namespace) -> int:
    from ambi_plugin.report import find_results_json, format_results_table

    path = find_results_json(Path(args.path))
    print(format_results_table(json.loads(path.read_text())))
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "demo": (
        "run the offline demo: lmms-eval on ambi_synth_all with a tiny random model, then print the table",
        _cmd_demo,
    ),
    "tasks": ("list our tasks and groups with benchmark, category and task type", _cmd_tasks),
    "tasks-path": ("print the folder of our task YAMLs (for lmms-eval --include_path)", _cmd_tasks_path),
    "synth": ("build the procedurally generated suite (exact ground truth) into a folder", _cmd_synth),
    "make-tiny-model": (
        "write a tiny RANDOM-WEIGHT Qwen2.5-VL that lmms-eval's qwen2_5_vl loads on CPU",
        _cmd_make_tiny_model,
    ),
    "replay-file": ("write gold / wrong / garbage responses for tasks, for the ambi_replay model", _cmd_replay_file),
    "validate-tasks": (
        "check every task YAML: lmms-eval's own loader, name clashes, metric lists",
        _cmd_validate_tasks,
    ),
    "results": ("print the table of an lmms-eval results JSON (a file or an output folder)", _cmd_results_table),
    "lmms-eval": ("run lmms-eval's CLI with our hooks installed (also covers 'tasks list')", _cmd_lmms_eval),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ambi",
        description="ambi-plugin: perception benchmarks for vision-language models, for lmms-eval.",
    )
    sub = parser.add_subparsers(dest="command", metavar="<command>")
    p = {name: sub.add_parser(name, help=desc, description=desc) for name, (desc, _) in COMMANDS.items()}

    p["synth"].add_argument("--out", required=True, help="folder to write (replaced atomically)")
    p["synth"].add_argument("--seed", type=int, default=0)
    p["synth"].add_argument("--n", type=int, default=None, help="items per task (default: the suite's default)")
    p["make-tiny-model"].add_argument("dir", help="folder to write the model into")
    p["make-tiny-model"].add_argument("--seed", type=int, default=0)
    p["replay-file"].add_argument("--out", required=True, help="JSONL file to write")
    p["replay-file"].add_argument("--tasks", default="ambi_synth_all", help="comma-separated tasks or groups of ours")
    p["replay-file"].add_argument("--mode", choices=("gold", "wrong", "garbage"), default="gold")
    p["replay-file"].add_argument(
        "--data-dir", default=None, help="read records from this folder instead of the synth suite"
    )
    p["validate-tasks"].add_argument("--no-load", action="store_true", help="skip building each task through lmms-eval")
    p["demo"].add_argument("--output", default=None, help="lmms-eval output folder (default: a folder in the cache)")
    p["demo"].add_argument("--limit", type=int, default=None, help="items per task (default: all)")
    p["results"].add_argument("path", help="results JSON or lmms-eval output folder")
    p["lmms-eval"].add_argument("rest", nargs=argparse.REMAINDER, help="arguments passed to lmms-eval")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 0
    if args.command == "synth" and args.n is None:
        from ambi_plugin.data.synth import DEFAULT_N

        args.n = DEFAULT_N
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        return COMMANDS[args.command][1](args)
    except (ValueError, FileNotFoundError, OSError, KeyError) as exc:
        print(f"ambi {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
