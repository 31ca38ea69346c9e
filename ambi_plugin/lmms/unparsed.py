"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.unparsed` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import unparsed as _moved

__deprecated_alias__ = "ambi_plugin.runtime.unparsed"
warnings.warn(
    "ambi_plugin.lmms.unparsed moved to ambi_plugin.runtime.unparsed; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
