"""Deprecated alias: moved to :mod:`ambi_plugin.lmms.analysis_driver` (kept for one release)."""

import sys
import warnings

from ambi_plugin.lmms import analysis_driver as _moved

__deprecated_alias__ = "ambi_plugin.lmms.analysis_driver"
warnings.warn(
    "ambi_plugin.analysis.backend moved to ambi_plugin.lmms.analysis_driver; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
