"""Deprecated alias: moved to :mod:`ambi_plugin.reports.rescore` (kept for one release)."""

import sys
import warnings

from ambi_plugin.reports import rescore as _moved

__deprecated_alias__ = "ambi_plugin.reports.rescore"
warnings.warn(
    "ambi_plugin.scorefile moved to ambi_plugin.reports.rescore; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
