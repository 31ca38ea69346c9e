"""Deprecated alias: moved to :mod:`ambi_plugin.data.hub.published` (kept for one release)."""

import sys
import warnings

from ambi_plugin.data.hub import published as _moved

__deprecated_alias__ = "ambi_plugin.data.hub.published"
warnings.warn(
    "ambi_plugin.benchmarks.ambibench.hub moved to ambi_plugin.data.hub.published; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
