"""Deprecated alias: moved to :mod:`ambi_plugin.cli.demo` (kept for one release)."""

import sys
import warnings

from ambi_plugin.cli import demo as _moved

__deprecated_alias__ = "ambi_plugin.cli.demo"
warnings.warn(
    "ambi_plugin.demo moved to ambi_plugin.cli.demo; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
