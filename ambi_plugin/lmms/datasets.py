"""Deprecated alias: moved to :mod:`ambi_plugin.data.sources` (kept for one release)."""

import sys
import warnings

from ambi_plugin.data import sources as _moved

__deprecated_alias__ = "ambi_plugin.data.sources"
warnings.warn(
    "ambi_plugin.lmms.datasets moved to ambi_plugin.data.sources; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
