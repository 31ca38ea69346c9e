"""Deprecated alias: moved to :mod:`ambi_plugin.reports.results` (kept for one release)."""

import sys
import warnings

from ambi_plugin.reports import results as _moved

__deprecated_alias__ = "ambi_plugin.reports.results"
warnings.warn(
    "ambi_plugin.report moved to ambi_plugin.reports.results; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
