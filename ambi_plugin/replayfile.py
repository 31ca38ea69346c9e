"""Deprecated alias: moved to :mod:`ambi_plugin.data.replayfiles` (kept for one release)."""

import sys
import warnings

from ambi_plugin.data import replayfiles as _moved

__deprecated_alias__ = "ambi_plugin.data.replayfiles"
warnings.warn(
    "ambi_plugin.replayfile moved to ambi_plugin.data.replayfiles; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
