"""AmbiBench in the layout ambi-plugin publishes, and reading it back: thin wrappers over :mod:`ambi_plugin.data.hub`
(building) and :mod:`ambi_plugin.benchmarks.built` (reading back).

The published layout is the generic built folder of ``ambi build ambibench`` (the card as ``README.md``,
``data/<records>/test-*.parquet`` with typed columns and the canonical record as JSON, ``build_info.json``);
``datasets.load_dataset(<repo or folder>)`` reads it. :func:`materialize` turns such a copy (a folder, or a Hub
repo id from the HF cache) back into a canonical folder in ``$AMBI_CACHE/ambibench/``, once, atomically.
(The authors' own release, ``BLNL/AmbiBench``, has another layout: ``ambibench.release``.)
"""

from __future__ import annotations

from pathlib import Path


def write_hub_layout(canonical: str | Path, out: str | Path) -> Path:
    """Build a canonical AmbiBench folder into ``out`` in the published layout (checked, atomic)."""
    from ambi_plugin.data.hub.build import build

    return build("ambibench", str(canonical), out).out


def materialize(source: str | Path, *, revision: str | None = None) -> Path:
    """The canonical folder of a copy published in this layout (a local folder or a Hub repo id). Offline and
    uncached: an error that says what to do."""
    from ambi_plugin.benchmarks.built import materialize_built

    return materialize_built(source, revision=revision)


__all__ = ["materialize", "write_hub_layout"]
