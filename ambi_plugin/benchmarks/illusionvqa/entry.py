"""IllusionVQA's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.illusionvqa.description import HUB_COMPREHENSION, HUB_SOFT_LOCALIZATION
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, register


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
    )
)
