"""IllusionVQA's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ambi_plugin.benchmarks.illusionvqa.description import HUB_COMPREHENSION, HUB_SOFT_LOCALIZATION
from ambi_plugin.benchmarks.layout import shipped_reference
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, Importer, Rescore, register


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import illusionvqa as IV

    if source is not None and Path(source).expanduser().exists():
        return IV.materialize_local(Path(source).expanduser())
    return IV.materialize_from_hub(*(source.split(",", 1) if source else ()))


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.illusionvqa import materialize_local

    return materialize_local(path)


def _from_hub() -> Path:
    from ambi_plugin.benchmarks.illusionvqa import materialize_from_hub

    return materialize_from_hub()


def _categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.illusionvqa import CATEGORIES, SOFT_LOCALIZATION_CATEGORY

    return (*CATEGORIES, SOFT_LOCALIZATION_CATEGORY)


def _placement(records: str) -> tuple[str, str]:
    """Comprehension's ``select`` split is kept beside the test records as ``<records>_select``."""
    base, _, last = records.rpartition("_")
    return (base, last) if last == "select" and base else (records, "test")


def _layouts() -> tuple:
    from ambi_plugin.benchmarks.illusionvqa.tables import LAYOUTS

    return LAYOUTS


def _tables(kind: str, data) -> str:
    from ambi_plugin.benchmarks.illusionvqa.tables import paper_tables

    return paper_tables(kind, data)


def released_records(path: Path, kind: str, rows: list[dict]) -> list[dict]:
    """``ambi score --records``: the released questions (JSONL, as on the Hub) or the authors' answers file (a JSON
    list with the questions), which need no images."""
    from ambi_plugin.benchmarks.illusionvqa import build_records, records_from_release

    sub = kind.removeprefix("illusionvqa_")
    if not path.read_text(encoding="utf-8").lstrip().startswith("["):
        return records_from_release(path, task=sub)
    need = ("id", "question", "options", "answer", "image", "category")
    missing = [f for f in need if not all(f in r for r in rows)]
    if missing:
        raise ValueError(f"{path}: used as --records, every row needs {', '.join(need)}; missing {missing}")
    keep = [{k: r[k] for k in need} for r in rows]
    return next(iter(build_records(sub, keep, None, source=path.name).values()))


def _import_arguments(im: argparse.ArgumentParser) -> None:
    im.add_argument(
        "--task",
        choices=("comprehension", "soft_localization"),
        default="comprehension",
        help="illusionvqa: which of its two releases the JSONL is (default comprehension)",
    )
    im.add_argument("--fewshot-jsonl", default=None, help="illusionvqa: the 4 few-shot examples (train split)")
    im.add_argument("--fewshot-images", default=None, help="illusionvqa: their image folder (default: --images)")


def _import(jsonl: Path, images: Path, out: Path, args: argparse.Namespace) -> dict[str, int]:
    from ambi_plugin.benchmarks.illusionvqa import import_jsonl

    return import_jsonl(
        jsonl, images, out, task=args.task, fewshot_jsonl=args.fewshot_jsonl, fewshot_images=args.fewshot_images
    )


KINDS = ("illusionvqa_comprehension", "illusionvqa_soft_localization")  # the tasks' metadata.paper_table

ENTRY = register(
    BenchmarkEntry(
        "illusionvqa",
        _read,
        _categories,
        _placement,
        title="IllusionVQA",
        local=_local,
        from_hub=_from_hub,
        hub=(
            HubRelease(HUB_COMPREHENSION, "AMBI_ILLUSIONVQA_COMPREHENSION_HUB"),
            HubRelease(HUB_SOFT_LOCALIZATION, "AMBI_ILLUSIONVQA_SOFT_LOCALIZATION_HUB"),
        ),
        layouts=f"the Hub folders {HUB_COMPREHENSION} and/or -Soft-Localization as downloaded "
        "(parquet files), side by side in one folder, or a zip of them",
        groups="ambi_illusionvqa_all",
        task_prefixes=("ambi_illusionvqa",),
        paper_layouts=_layouts,
        reference=lambda: shipped_reference("illusionvqa"),
        rescore=Rescore(kinds=KINDS, tables=_tables, records=released_records),
        importer=Importer(_import, _import_arguments),
    )
)
