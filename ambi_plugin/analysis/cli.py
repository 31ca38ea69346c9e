"""Deprecated alias: moved to :mod:`ambi_plugin.cli.switch_heads` (kept for one release)."""

import sys
import warnings

from ambi_plugin.cli import switch_heads as _moved

__deprecated_alias__ = "ambi_plugin.cli.switch_heads"
warnings.warn(
    "ambi_plugin.analysis.cli moved to ambi_plugin.cli.switch_heads; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
