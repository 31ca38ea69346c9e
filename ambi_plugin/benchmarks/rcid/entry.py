"""RCID's registry entry: what the generic layers know of it (:mod:`ambi_plugin.benchmarks.registry`)."""

from __future__ import annotations

from pathlib import Path

from ambi_plugin.benchmarks.layout import shipped_reference
from ambi_plugin.benchmarks.rcid.hub import HUB_ID as HUB_REPO  # an imagefolder copy of the authors' data
from ambi_plugin.benchmarks.rcid.localcopy import COMMAND
from ambi_plugin.benchmarks.registry import BenchmarkEntry, HubRelease, register

HUB_ENV = "AMBI_RCID_HUB"


def _read(source: str | None) -> Path:
    from ambi_plugin.benchmarks import rcid

    path = Path(source).expanduser() if source else None
    if path is not None and path.exists():  # canonical, the Hub copy as downloaded or its zip, the authors' data
        return rcid.materialize_local(path)
    return rcid.materialize_from_hub(source)  # a Hub id (or the default)


def _local(path: Path) -> Path:
    from ambi_plugin.benchmarks.rcid import materialize_local

    return materialize_local(path)


def _from_hub() -> Path:
    from ambi_plugin.benchmarks.rcid import materialize_from_hub

    return materialize_from_hub()


def _split(rec: dict) -> str | None:
    """The split of the release the record came from (the Hub loader keeps it: ``train``, ``validation`` for the
    paper's dev split, ``test``); None for copies without splits (``test``)."""
    return rec.get("split")


def _layouts() -> tuple:
    from ambi_plugin.benchmarks.rcid.tables import LAYOUTS

    return LAYOUTS


def _derived(metrics) -> dict:
    from ambi_plugin.benchmarks.rcid.tables import derived_metrics

    return derived_metrics(metrics)


ENTRY = register(
    BenchmarkEntry(
        "rcid",
        _read,
        lambda: ("contrast", "stripe", "filter"),
        record_split=_split,
        title="RCID",
        local=_local,
        from_hub=_from_hub,
        hub=(HubRelease(HUB_REPO, HUB_ENV),),
        layouts=f"a folder written by 'ambi rcid-copy', or the Hub copy {HUB_REPO} as downloaded",
        groups="ambi_rcid_all; offline: ambi rcid-copy --out DIR, then AMBI_RCID_DIR=DIR",
        task_prefixes=("ambi_rcid", "rcid"),
        paper_layouts=_layouts,
        reference=lambda: shipped_reference("rcid"),
        derived_metrics=_derived,
        commands=(COMMAND,),
    )
)
