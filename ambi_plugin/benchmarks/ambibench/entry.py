"""AmbiBench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ambi_plugin.benchmarks.ambibench.release_rows import HUB_REPO  # the authors' release
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, Importer, Significance, SwitchHeads, register

HUB_ENV = "AMBI_AMBIBENCH_HUB"


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import ambibench as AB

    if source is not None and Path(source).expanduser().exists():
        return AB.materialize_local(Path(source).expanduser())
    return AB.materialize_from_hub(source)


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.ambibench import materialize_local

    return materialize_local(path)


def _from_hub(source: str | None = None) -> Path:
    from ambi_plugin.benchmarks.ambibench import materialize_from_hub

    return materialize_from_hub(source)


def _categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.ambibench import TASKS

    return tuple(dict.fromkeys(t.category for t in TASKS))


def _layouts() -> tuple:
    from ambi_plugin.benchmarks.ambibench.tables import LAYOUTS

    return LAYOUTS


def _reference() -> dict:
    from ambi_plugin.benchmarks.ambibench.tables import reference

    return reference()


def _results_tables(metrics) -> str:
    from ambi_plugin.benchmarks.ambibench.tables import format_tables

    return format_tables(metrics)  # the paper's columns and AVG, when AmbiBench tasks ran


def _significance() -> Significance:
    from ambi_plugin.benchmarks.ambibench.tables import PAPER_TEST_TABLES, TABLE9_COLUMNS, TABLE10_PAIRS

    return Significance(TABLE9_COLUMNS, TABLE10_PAIRS, PAPER_TEST_TABLES, protocol="AmbiBench A.6")


def _import_arguments(im: argparse.ArgumentParser) -> None:
    im.add_argument(
        "--layout",
        choices=("release", "visual_anagrams"),
        default="release",
        help="ambibench: 'release' is our own annotation layout (--jsonl a file or folder of JSONL, --images the "
        "folder media paths are relative to; see docs/ambibench.md), 'visual_anagrams' the gallery as multi-view items "
        "(--jsonl labels.json). The authors' published BLNL/AmbiBench needs no import: point AMBI_AMBIBENCH_DIR at it",
    )


def _import(jsonl: Path, images: Path, out: Path, args: argparse.Namespace) -> dict[str, int]:
    from ambi_plugin.benchmarks.ambibench import import_jsonl

    return import_jsonl(jsonl, images, out, layout=args.layout)


ENTRY = register(
    BenchmarkEntry(
        "ambibench",
        _read,
        _categories,
        title="AmbiBench",
        local=_local,
        from_hub=_from_hub,
        hub=(HubRelease(HUB_REPO, HUB_ENV),),
        layouts=f"the Hub release {HUB_REPO} as downloaded (metadata.jsonl beside the images and videos) or its zip",
        groups="ambibench_all",
        task_prefixes=("ambibench_",),
        paper_layouts=_layouts,
        reference=_reference,
        results_tables=_results_tables,
        significance=_significance(),
        importer=Importer(_import, _import_arguments),
        switch_heads=SwitchHeads("ambi://ambibench", ("ambibench_bistable_open", "ambibench_multiscene_open")),
    )
)
