"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.breakdown` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import breakdown as _moved

__deprecated_alias__ = "ambi_plugin.runtime.breakdown"
warnings.warn(
    "ambi_plugin.lmms.breakdown moved to ambi_plugin.runtime.breakdown; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
