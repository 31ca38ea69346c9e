"""``ambi demo``, ``ambi lmms-eval``, ``ambi eval``: runs of lmms-eval."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ambi_plugin.cli.common import harness_ready as _harness_ready

PASSTHROUGH = ("lmms-eval", "eval")  # subcommands whose arguments all belong to lmms-eval


def _cmd_demo(args: argparse.Namespace) -> int:
    from ambi_plugin.cli.demo import run_demo

    if not _harness_ready("lmms-eval"):
        return 2
    return run_demo(output=Path(args.output) if args.output else None, limit=args.limit)


def _cmd_lmms_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.cli_run import lmms_eval_cli

    return lmms_eval_cli(args.rest)


def _cmd_eval(args: argparse.Namespace) -> int:
    from ambi_plugin.lmms.eval_run import run_eval

    if not args.rest:  # nothing to run is a mistake: the help (the parser hands its subparsers in), a non-zero exit
        sub = (getattr(args, "_subparsers", None) or {}).get("eval")
        if sub is not None:
            print(sub.format_help(), file=sys.stderr)
        print("ambi eval: error: no arguments (at least --model and --tasks)", file=sys.stderr)
        return 2
    if not _harness_ready("lmms-eval"):
        return 2
    return run_eval(args.rest, echo=lambda msg: print(msg, file=sys.stderr))


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "demo": (
        "run the offline demo: lmms-eval on ambi_synth_all with a tiny random model, then print the table",
        _cmd_demo,
    ),
    "lmms-eval": (
        "run lmms-eval's CLI with our hooks installed; every argument is lmms-eval's (e.g. 'ambi lmms-eval "
        "--model ... --tasks ...', 'ambi lmms-eval tasks list')",
        _cmd_lmms_eval,
    ),
    "eval": (
        "run an lmms-eval evaluation (same arguments as lmms-eval) and exit non-zero when the run failed or a "
        "requested task has no results (lmms-eval itself exits 0 then)",
        _cmd_eval,
    ),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["demo"].add_argument("--output", default=None, help="lmms-eval output folder (default: a folder in the cache)")
    p["demo"].add_argument("--limit", type=int, default=None, help="items per task (default: all)")
    for name in PASSTHROUGH:
        p[name].add_argument("rest", nargs=argparse.REMAINDER, help="lmms-eval's own arguments, passed unchanged")
