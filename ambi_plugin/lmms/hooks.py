"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.hooks` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import hooks as _moved

__deprecated_alias__ = "ambi_plugin.runtime.hooks"
warnings.warn(
    "ambi_plugin.lmms.hooks moved to ambi_plugin.runtime.hooks; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
