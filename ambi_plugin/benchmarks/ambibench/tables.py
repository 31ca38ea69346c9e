"""Deprecated alias: moved to :mod:`ambi_plugin.reports.ambibench` (kept for one release)."""

import sys
import warnings

from ambi_plugin.reports import ambibench as _moved

__deprecated_alias__ = "ambi_plugin.reports.ambibench"
warnings.warn(
    "ambi_plugin.benchmarks.ambibench.tables moved to ambi_plugin.reports.ambibench; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
