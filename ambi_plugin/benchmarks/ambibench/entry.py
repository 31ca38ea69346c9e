"""AmbiBench's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.ambibench.release_rows import HUB_REPO  # the authors' release
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, Significance, register

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
    )
)
