"""``ambi import``, ``ambi data``: local copies of the benchmarks (``ambi import <benchmark>``: the importer its
registry entry declares, with its own options)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def _importers() -> dict:
    """{benchmark: its :class:`ambi_plugin.benchmarks.commands.Importer`} of every entry that has one."""
    from ambi_plugin.benchmarks.registry import entries

    return {name: entry.importer for name, entry in entries().items() if entry.importer is not None}


def _cmd_import(args: argparse.Namespace) -> int:
    counts = _importers()[args.benchmark].run(Path(args.jsonl), Path(args.images), Path(args.out), args)
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


COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "import": ("convert a released JSONL + image folder into a local copy in the canonical schema", _cmd_import),
    "data": ("which benchmarks are available here (local copy, HF cache) and how to fetch the missing ones", _cmd_data),
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
    importers = _importers()
    im.add_argument("benchmark", choices=tuple(importers), help="the benchmark the release is of")
    im.add_argument("--jsonl", required=True, help="the released questions (see hf_dataset_cards/<benchmark>.md)")
    im.add_argument("--images", required=True, help="folder holding the images the JSONL names")
    im.add_argument("--out", required=True, help="folder to write the canonical records and images to")
    for name, importer in importers.items():  # each importer's own options
        if importer.arguments is None:
            continue
        try:
            importer.arguments(im)
        except argparse.ArgumentError as exc:
            raise ValueError(
                f"the importer of the benchmark {name!r} declares an option of 'ambi import' another already has "
                f"({exc}); rename it in its entry's Importer.arguments"
            ) from None
