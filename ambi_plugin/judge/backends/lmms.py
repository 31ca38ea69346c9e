"""Deprecated alias: moved to :mod:`ambi_plugin.lmms.judge_backend` (kept for one release)."""

import sys
import warnings

from ambi_plugin.lmms import judge_backend as _moved

__deprecated_alias__ = "ambi_plugin.lmms.judge_backend"
warnings.warn(
    "ambi_plugin.judge.backends.lmms moved to ambi_plugin.lmms.judge_backend; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
