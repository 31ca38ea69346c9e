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


def _metric_names(rec: dict, kind: str, protocol: str) -> list[str]:
    """Rule-based metrics broken down by image category and difficulty; with ``--protocol llm`` the LLM-assisted
    ones beside them."""
    from ambi_plugin.benchmarks.illusionbench.llm import llm_metric_names, rule_metric_names

    return llm_metric_names(rec) if protocol == "llm" else rule_metric_names(rec)


def _judged_score(rec: dict, response, *, judge=None, override=None) -> dict:
    from ambi_plugin.benchmarks.illusionbench.llm import score_item_llm

    return score_item_llm(rec, response, judge=judge, override=override)


def _load_overrides(path) -> dict:
    from ambi_plugin.benchmarks.illusionbench.llm import load_overrides

    return load_overrides(path)


def _find_override(overrides, task, rid):
    from ambi_plugin.benchmarks.illusionbench.llm import find_override

    return find_override(overrides, task, rid)


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
            metric_names=_metric_names,
            judged=Judged(_judged_score, _load_overrides, _find_override, _review_queue),
        ),
        importer=Importer(_import, _import_arguments),
    )
)
