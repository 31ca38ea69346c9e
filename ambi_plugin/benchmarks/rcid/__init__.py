"""RCID (Mao, Tang and Suhr; ``../shared/seeds/004_*``): color illusions, pixel-based versus human-based answers.

* :mod:`.prompts`: Figure 1's templates, the pixel / human / neutral families, Figure 8's variants.
* :mod:`.records`: items -> canonical records (one file per type and family), few-shot composites.
* :mod:`.hub`: the public Hub copy read as published (``materialize_from_hub`` for ``ambi://rcid``).
* :mod:`.synthetic`: an offline copy from the procedural generators (contrast, stripe, filter).
* :mod:`.hooks`: ``process_results`` with the PROTOCOL breakdowns, for the task YAMLs.

``dataset_path: ambi://rcid`` reads a local copy (``$AMBI_RCID_DIR`` or ``data.rcid`` in the ambi config),
else the Hub copy. See ``docs/rcid.md``.
"""

from __future__ import annotations

from .hub import HUB_ID, LABELS, convert, materialize_from_hub
from .records import BENCHMARK, RcidItem, write_copy
from .synthetic import build_synthetic

__all__ = [
    "BENCHMARK",
    "HUB_ID",
    "LABELS",
    "RcidItem",
    "build_synthetic",
    "convert",
    "materialize_from_hub",
    "write_copy",
]
