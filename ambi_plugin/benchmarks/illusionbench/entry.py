"""IllusionBench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ambi_plugin.benchmarks.illusionbench.release_rows import AUTHORS_REPO as HUB_REPO  # the authors' release
from ambi_plugin.benchmarks.layout import shipped_reference
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, Importer, Judged, Rescore, register

HUB_ENV = "AMBI_ILLUSIONBENCH_HUB"


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import illusionbench as IB

    if source is not None and Path(source).expanduser().exists():
        return IB.materialize_local(Path(source).expanduser())
    return IB.materialize_from_hub(source)


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.illusionbench import materialize_local

    return materialize_local(path)


def _from_hub(source: str | None = None) -> Path:
    from ambi_plugin.benchmarks.illusionbench import materialize_from_hub

    return materialize_from_hub(source)


def _categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.illusionbench import CATEGORIES, UNKNOWN

    return (*CATEGORIES, UNKNOWN)  # UNKNOWN: a row whose release gives no readable category (kept, no subset)


def _layouts() -> tuple:
    from ambi_plugin.benchmarks.illusionbench.tables import LAYOUTS

    return LAYOUTS


def _tables(kind: str, data) -> str:
    from ambi_plugin.benchmarks.illusionbench.tables import paper_tables

    return paper_tables(kind, data)


def _protocol_task(task: str, protocol: str) -> str:
    """The task whose YAML scores ``protocol``: ``ambi_illusionbench_tf`` (rule) or ``ambi_illusionbench_tf_llm``
    (llm: its ``process_results_llm`` runs the judge beside the parsers), whichever of the two is named."""
    base = task.removesuffix("_llm")
    return f"{base}_llm" if protocol == "llm" else base


def _load_overrides(path, task: str) -> dict:
    from ambi_plugin.benchmarks.illusionbench.llm import load_overrides, overrides_for

    return overrides_for(load_overrides(path), task)


def _review_queue(task, records, items) -> list[dict]:
    from ambi_plugin.benchmarks.illusionbench.llm import review_queue

    return review_queue(task, records, items)


def _import_arguments(im: argparse.ArgumentParser) -> None:
    im.add_argument("--shuffle-seed", type=int, default=0, help="illusionbench: seed of the MC option shuffle")


def _import(jsonl: Path, images: Path, out: Path, args: argparse.Namespace) -> dict[str, int]:
    from ambi_plugin.benchmarks.illusionbench import import_jsonl

    return import_jsonl(jsonl, images, out, shuffle_seed=args.shuffle_seed)


KINDS = ("illusionbench_tf", "illusionbench_mc", "illusionbench_description")  # the tasks' metadata.paper_table

ENTRY = register(
    BenchmarkEntry(
        "illusionbench",
        _read,
        _categories,
        title="IllusionBench",
        local=_local,
        from_hub=_from_hub,
        hub=(HubRelease(HUB_REPO, HUB_ENV),),
        layouts="the authors' release (Image_properties.json with the image folder) or its zip, or lmms-lab's "
        "IllusionBench copy as downloaded (parquet files)",
        groups="ambi_illusionbench_all",
        task_prefixes=("ambi_illusionbench",),
        paper_layouts=_layouts,
        reference=lambda: shipped_reference("illusionbench"),
        rescore=Rescore(
            kinds=KINDS,
            tables=_tables,
            judged=Judged(task=_protocol_task, load_overrides=_load_overrides, review_queue=_review_queue),
        ),
        importer=Importer(_import, _import_arguments),
    )
)
