"""Deprecated alias: moved to :mod:`ambi_plugin.benchmarks.registry` (kept for one release)."""

import sys
import warnings

from ambi_plugin.benchmarks import registry as _moved

__deprecated_alias__ = "ambi_plugin.benchmarks.registry"
warnings.warn(
    "ambi_plugin.data.hub.registry moved to ambi_plugin.benchmarks.registry; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
