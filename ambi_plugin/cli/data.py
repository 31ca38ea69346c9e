"""``ambi import``, ``ambi data``, ``ambi viabench``, ``ambi rcid-copy``: local copies of the benchmarks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def _cmd_import(args: argparse.Namespace) -> int:
    import importlib

    module = importlib.import_module(f"ambi_plugin.benchmarks.{args.benchmark}")
    kwargs = {"shuffle_seed": args.shuffle_seed} if args.benchmark == "illusionbench" else {"task": args.task}
    if args.benchmark == "ambibench":
        kwargs = {"layout": args.layout}
    if args.benchmark == "illusionvqa":
        kwargs.update(fewshot_jsonl=args.fewshot_jsonl, fewshot_images=args.fewshot_images)
    counts = module.import_jsonl(Path(args.jsonl), Path(args.images), Path(args.out), **kwargs)
    print(f"wrote {sum(counts.values())} records to {args.out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _cmd_data(args: argparse.Namespace) -> int:
    from ambi_plugin.data.status import GROUPS, report_lines

    wanted = args.check or None
    unknown = [b for b in wanted or [] if b not in GROUPS]
    if unknown:
        print(
            f"ambi data: error: unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(GROUPS)}", file=sys.stderr
        )
        return 2
    verdicts: dict[str, bool] = {}
    print("\n".join(report_lines(wanted, verdicts)))
    if wanted is None:
        return 0
    bad = [b for b in wanted if not verdicts.get(b)]
    if bad:
        print(f"ambi data: not usable here: {', '.join(bad)}", file=sys.stderr)
    return 1 if bad else 0


def _cmd_viabench(args: argparse.Namespace) -> int:
    from ambi_plugin.cli.viabench import main as viabench_main

    return viabench_main(args.rest)


def _cmd_rcid_copy(args: argparse.Namespace) -> int:
    from ambi_plugin.benchmarks.hub import DataUnavailableError
    from ambi_plugin.cli.rcid_copy import write_rcid_copy

    try:
        manifest = write_rcid_copy(
            Path(args.out), hub=args.hub, seed=args.seed, n=args.n, default_type=args.type, human=args.human
        )
    except DataUnavailableError as exc:
        print(f"ambi rcid-copy: {exc}", file=sys.stderr)
        return 2
    print(f"wrote an RCID copy to {args.out}: {manifest['counts']}; skipped rows: {manifest['n_skipped']}")
    return 0


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "import": ("convert a released JSONL + image folder into a local copy in the canonical schema", _cmd_import),
    "data": ("which benchmarks are available here (local copy, HF cache) and how to fetch the missing ones", _cmd_data),
    "viabench": (
        "VIA-Bench: import the challenge layout, random baseline, repeated runs (ambi viabench -h)",
        _cmd_viabench,
    ),
    "rcid-copy": (
        "write a local RCID copy: generated offline, or read from a Hub-layout folder / Hub id",
        _cmd_rcid_copy,
    ),
}


def add_arguments(p: dict[str, argparse.ArgumentParser]) -> None:
    p["data"].add_argument(
        "--check",
        nargs="+",
        metavar="BENCHMARK",
        default=None,
        help="only these benchmarks; exit 0 when every one is usable here, 1 otherwise",
    )
    im = p["import"]
    im.add_argument(
        "benchmark", choices=("illusionbench", "illusionvqa", "ambibench"), help="the benchmark the release is of"
    )
    im.add_argument("--jsonl", required=True, help="the released questions (see hf_dataset_cards/<benchmark>.md)")
    im.add_argument("--images", required=True, help="folder holding the images the JSONL names")
    im.add_argument("--out", required=True, help="folder to write the canonical records and images to")
    im.add_argument("--shuffle-seed", type=int, default=0, help="illusionbench: seed of the MC option shuffle")
    im.add_argument(
        "--task",
        choices=("comprehension", "soft_localization"),
        default="comprehension",
        help="illusionvqa: which of its two releases the JSONL is (default comprehension)",
    )
    im.add_argument("--fewshot-jsonl", default=None, help="illusionvqa: the 4 few-shot examples (train split)")
    im.add_argument("--fewshot-images", default=None, help="illusionvqa: their image folder (default: --images)")
    im.add_argument(
        "--layout",
        choices=("release", "visual_anagrams"),
        default="release",
        help="ambibench: 'release' is our own annotation layout (--jsonl a file or folder of JSONL, --images the "
        "folder media paths are relative to; see docs/ambibench.md), 'visual_anagrams' the gallery as multi-view items "
        "(--jsonl labels.json). The authors' published BLNL/AmbiBench needs no import: point AMBI_AMBIBENCH_DIR at it",
    )
    p["viabench"].add_argument("rest", nargs=argparse.REMAINDER, help="import | baseline | runs, and their arguments")
    rc = p["rcid-copy"]
    rc.add_argument("--out", required=True, help="folder to write (then: export AMBI_RCID_DIR=<out>)")
    rc.add_argument(
        "--hub",
        default=None,
        help="a Hub id (mao1207/RCID), a folder laid out like it, or a folder of data built with the authors' code "
        "(questions.json / train_results.json); default: generate",
    )
    rc.add_argument("--human", default=None, help="the authors' data: a file of human answers (docs/rcid.md)")
    rc.add_argument("--n", type=int, default=8, help="generated images per illusion type (at least 8)")
    rc.add_argument("--seed", type=int, default=0, help="seed of the generated copy")
    rc.add_argument("--type", default=None, choices=("contrast", "stripe", "filter"), help="--hub: type of every row")
