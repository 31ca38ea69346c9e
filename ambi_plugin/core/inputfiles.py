"""Deprecated alias: moved to :mod:`ambi_plugin.inputfiles` (kept for one release)."""

import sys
import warnings

from ambi_plugin import inputfiles as _moved

__deprecated_alias__ = "ambi_plugin.inputfiles"
warnings.warn(
    "ambi_plugin.core.inputfiles moved to ambi_plugin.inputfiles; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
