"""``ambi viabench``: VIA-Bench's own command (import the challenge layout, the random baseline, repeated runs),
declared on its registry entry (:class:`ambi_plugin.benchmarks.commands.Command`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.benchmarks.commands import Command, CommandTools

HELP = "VIA-Bench: import the challenge layout, random baseline, repeated runs (ambi viabench -h)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ambi viabench", description="VIA-Bench: data and repeated runs")
    sub = parser.add_subparsers(dest="command")
    im = sub.add_parser("import", help="the public challenge layout (val.json + images/) -> a local copy")
    im.add_argument("--json", required=True, help="val.json: a list of {image_name, Question, option}")
    im.add_argument("--images", required=True, help="the folder holding the images it names")
    im.add_argument("--out", required=True, help="folder for the canonical records (then AMBI_VIABENCH_DIR=it)")
    im.add_argument("--answers", default=None, help="optional answer key: {image_name|id, answer, category} lines")
    bl = sub.add_parser("baseline", help="the exact random-choice baseline of a release (challenge layout)")
    bl.add_argument("--json", required=True, help="val.json")
    ru = sub.add_parser("runs", help="N lmms-eval results JSONs -> mean and std per category (Match, Judge)")
    ru.add_argument("results", nargs="+", help="results JSONs or lmms-eval output folders, one per run")
    ru.add_argument("--json", default=None, help="also write the aggregate to this JSON file")
    return parser


def main(argv: Sequence[str], tools: CommandTools) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "import":
            from ambi_plugin.benchmarks.viabench.release import import_challenge

            counts, report = import_challenge(Path(args.json), Path(args.images), Path(args.out), answers=args.answers)
            print(report.summary())
            print(f"wrote {args.out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        elif args.command == "baseline":
            from ambi_plugin.benchmarks.viabench.release import read_challenge_json
            from ambi_plugin.benchmarks.viabench.scoring import random_baseline

            report = read_challenge_json(Path(args.json))
            print(report.summary())
            print(f"random-choice baseline: {100 * random_baseline(report.records):.2f}% over {len(report.records)}")
        elif args.command == "runs":
            out = tools.repeated_runs(args.results)
            print(f"{out['runs']} run(s)\n{out['text']}")
            if args.json:
                Path(args.json).write_text(json.dumps({k: v for k, v in out.items() if k != "text"}, indent=1) + "\n")
        else:
            parser.print_help()
        return 0
    except (ValueError, FileNotFoundError, OSError, KeyError) as exc:
        print(f"ambi viabench {args.command}: error: {exc}", file=sys.stderr)
        return 2


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="import | baseline | runs, and their arguments")


COMMAND = Command("viabench", HELP, _arguments, lambda args, tools: main(args.rest, tools))
