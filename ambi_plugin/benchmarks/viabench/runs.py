"""Deprecated alias: moved to :mod:`ambi_plugin.reports.viabench_runs` (kept for one release)."""

import sys
import warnings

from ambi_plugin.reports import viabench_runs as _moved

__deprecated_alias__ = "ambi_plugin.reports.viabench_runs"
warnings.warn(
    "ambi_plugin.benchmarks.viabench.runs moved to ambi_plugin.reports.viabench_runs; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
