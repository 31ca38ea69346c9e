"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.taskindex` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import taskindex as _moved

__deprecated_alias__ = "ambi_plugin.runtime.taskindex"
warnings.warn(
    "ambi_plugin.taskindex moved to ambi_plugin.runtime.taskindex; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
