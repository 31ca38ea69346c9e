"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.aggregate` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import aggregate as _moved

__deprecated_alias__ = "ambi_plugin.runtime.aggregate"
warnings.warn(
    "ambi_plugin.lmms.aggregate moved to ambi_plugin.runtime.aggregate; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
