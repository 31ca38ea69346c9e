"""IllusionBench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.illusionbench.release_rows import AUTHORS_REPO as HUB_REPO  # the authors' release
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, register

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
    )
)
