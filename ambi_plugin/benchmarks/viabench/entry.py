"""VIA-Bench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.registry import BenchmarkEntry, register


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import viabench as VB

    if source is not None and Path(source).expanduser().exists():
        return VB.materialize_local(Path(source).expanduser())
    return VB.materialize_from_hub()  # no Hub release: says how to make a local copy


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.viabench import materialize_local

    return materialize_local(path)


def _from_hub() -> Path:
    from ambi_plugin.benchmarks.viabench import materialize_from_hub

    return materialize_from_hub()


def _categories() -> tuple[str, ...]:
    from ambi_plugin.benchmarks.viabench.spec import CATEGORIES, UNCATEGORIZED

    return (*CATEGORIES, UNCATEGORIZED)


def _placement(records: str) -> tuple[str, str]:
    """Every VIA-Bench records file is the ``validation`` split: the only published piece is the challenge's
    validation split; ``viabench_val`` holds all of it and the per-category files (written when an answer key
    gives categories) hold the same questions grouped by category."""
    return records, "validation"


ENTRY = register(
    BenchmarkEntry(
        "viabench",
        _read,
        _categories,
        _placement,
        title="VIA-Bench",
        local=_local,
        from_hub=_from_hub,
        local_only="only the challenge's validation split is public (GitHub: "
        "Houwenjin/DataCV-2026-Challenge-CVPR-Task-II-Competition, val/): point AMBI_VIABENCH_DIR at its folder",
        layouts="a folder written by 'ambi viabench import'",
        groups="ambi_viabench_all, ambi_viabench_val",
        fetch_hint="ambi viabench import --json val/val.json --images val/images --out DIR, then export {var}=DIR",
        task_prefixes=("ambi_viabench",),
    )
)
