"""Reading a built copy back: the canonical folder the tasks read, and the data root that finds built copies.

* :func:`materialize_built` turns a built folder (``ambi build``), or a Hub dataset repo holding one (``ambi push``),
  into ``<records>.jsonl`` + media in ``$AMBI_CACHE/<benchmark>/built-<key>/``, once, atomically (it lives in
  :mod:`ambi_plugin.benchmarks.built`, below this layer, since a benchmark's Hub loader reads built copies too).
* The data root (``$AMBI_DATA_ROOT``, else ``data_root`` in the ambi config) is one setting for every benchmark:
  ``<root>/<benchmark>/`` (``ambibench``, ``illusionbench``, ``illusionvqa``, ``ambi_synth``, ...) is the built copy
  that ``dataset_path: ambi://<benchmark>`` reads when no ``$AMBI_<BENCHMARK>_DIR`` / ``data.<benchmark>`` is set.
"""

from __future__ import annotations

import os
from pathlib import Path

from ambi_plugin.benchmarks.built import convert_built, materialize_built


def data_root() -> Path | None:
    env = os.environ.get("AMBI_DATA_ROOT")
    if env:
        return Path(env).expanduser()
    from ambi_plugin.config import load_config

    val = load_config().get("data_root")
    return Path(str(val)).expanduser() if val else None


def built_copy(source: str) -> Path | None:
    """The built copy of ``ambi://<source>`` under the data root, or None."""
    from ambi_plugin.benchmarks.built import BUILD_INFO
    from ambi_plugin.benchmarks.registry import entries

    root = data_root()
    if root is None:
        return None
    names = [e.name for e in entries().values() if e.ambi_path == f"ambi://{source}"] or [source]
    for name in names:
        if (root / name / BUILD_INFO).is_file():
            return root / name
    return None


__all__ = ["built_copy", "convert_built", "data_root", "materialize_built"]
