"""AmbiBench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.ambibench.release_rows import HUB_REPO  # the authors' release
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, register

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
    )
)
