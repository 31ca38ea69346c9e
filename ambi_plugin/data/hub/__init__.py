"""Building, validating and publishing the benchmarks as HF datasets (``ambi build`` / ``validate`` / ``push``).

A registry (:mod:`ambi_plugin.benchmarks.registry`) says per benchmark how its sources are read; the rest is generic: typed features
(:mod:`.features`), per-record checks (:mod:`.checks`), the streamed atomic build (:mod:`.build`), the card
(:mod:`.card`), validation of a built folder (:mod:`.validate`), the upload (:mod:`.push`) and reading a built
copy back for the tasks (:mod:`.built`, the data root).
"""

from ambi_plugin.benchmarks.built import materialize_built
from ambi_plugin.benchmarks.registry import REGISTRY, BenchmarkEntry, entries, register
from ambi_plugin.data.hub.build import BuildError, build
from ambi_plugin.data.hub.built import data_root
from ambi_plugin.data.hub.push import PushError, push, write_push_folder
from ambi_plugin.data.hub.validate import validate_folder

__all__ = [
    "REGISTRY",
    "BenchmarkEntry",
    "BuildError",
    "PushError",
    "build",
    "data_root",
    "entries",
    "materialize_built",
    "push",
    "register",
    "validate_folder",
    "write_push_folder",
]
