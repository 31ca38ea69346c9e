"""Deprecated alias: moved to :mod:`ambi_plugin.data.status` (kept for one release)."""

import sys
import warnings

from ambi_plugin.data import status as _moved

__deprecated_alias__ = "ambi_plugin.data.status"
warnings.warn(
    "ambi_plugin.benchmarks.status moved to ambi_plugin.data.status; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
