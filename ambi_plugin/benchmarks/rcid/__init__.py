"""RCID (Mao, Tang and Suhr; ``../shared/seeds/004_*``): color illusions, pixel-based versus human-based answers.

* :mod:`.prompts`: Figure 1's templates, the pixel / human / neutral families, Figure 8's variants.
* :mod:`.records`: items -> canonical records (one file per type and family), few-shot composites.
* :mod:`.hub`: the public Hub copy read as published (``materialize_from_hub`` for ``ambi://rcid``).
* :mod:`.synthetic`: an offline copy from the procedural generators (contrast, stripe, filter).
* :mod:`.hooks`: ``process_results`` with the PROTOCOL breakdowns, for the task YAMLs.

* :mod:`.authors`: data built with the authors' construction code (``questions.json``, ``train_results.json``).

``dataset_path: ambi://rcid`` reads a local copy (``$AMBI_RCID_DIR`` or ``data.rcid`` in the ambi config: a
canonical copy, the Hub copy as downloaded or its zip, or data built with the authors' code; see
:func:`materialize_local`), else the Hub copy. See ``docs/rcid.md``.
"""

from __future__ import annotations

from pathlib import Path

from .hub import HUB_ID, LABELS, convert, materialize_from_hub
from .records import BENCHMARK, RcidItem, write_copy
from .synthetic import build_synthetic


def materialize_local(path: Path) -> Path:
    """A configured local copy (``$AMBI_RCID_DIR``): a canonical copy (``rcid_*.jsonl``, from ``ambi rcid-copy``) is
    used as it is; the Hub copy as downloaded (``hf download mao1207/RCID --repo-type dataset --local-dir DIR``: the
    image folders, or its zip) and data built with the authors' construction code (``questions.json`` /
    ``train_results.json`` + images; ``$AMBI_RCID_HUMAN`` for human answers) are converted once into the cache."""
    from ambi_plugin.benchmarks.release import unpack_zip

    from .authors import is_authors_copy, materialize_authors

    path = Path(path).expanduser()
    if path.is_file() and path.suffix.lower() == ".zip":
        path = unpack_zip(path, benchmark=BENCHMARK)
    if not path.is_dir():
        raise FileNotFoundError(
            f"the local copy of rcid is configured as {str(path)!r}, which is neither a folder nor a .zip"
        )
    if any(path.glob("rcid_*.jsonl")):
        return path
    if is_authors_copy(path):
        return materialize_authors(path)
    return materialize_from_hub(str(path))


__all__ = [
    "BENCHMARK",
    "HUB_ID",
    "LABELS",
    "RcidItem",
    "build_synthetic",
    "convert",
    "materialize_from_hub",
    "materialize_local",
    "write_copy",
]
