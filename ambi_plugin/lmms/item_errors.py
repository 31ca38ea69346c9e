"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.item_errors` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import item_errors as _moved

__deprecated_alias__ = "ambi_plugin.runtime.item_errors"
warnings.warn(
    "ambi_plugin.lmms.item_errors moved to ambi_plugin.runtime.item_errors; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
