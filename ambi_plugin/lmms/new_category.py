"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.new_category` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import new_category as _moved

__deprecated_alias__ = "ambi_plugin.runtime.new_category"
warnings.warn(
    "ambi_plugin.lmms.new_category moved to ambi_plugin.runtime.new_category; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
