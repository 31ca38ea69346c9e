"""Deprecated alias: moved to :mod:`ambi_plugin.runtime.task_kwargs` (kept for one release)."""

import sys
import warnings

from ambi_plugin.runtime import task_kwargs as _moved

__deprecated_alias__ = "ambi_plugin.runtime.task_kwargs"
warnings.warn(
    "ambi_plugin.lmms.task_kwargs moved to ambi_plugin.runtime.task_kwargs; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
