"""Deprecated alias: moved to :mod:`ambi_plugin.data.sources` (kept for one release)."""

import sys
import warnings

from ambi_plugin.data import sources as _moved
from ambi_plugin.lmms.tasks_without_records import patch_tasks_without_records as _patch

__deprecated_alias__ = "ambi_plugin.data.sources"
warnings.warn(
    "ambi_plugin.lmms.datasets moved to ambi_plugin.data.sources; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
# the one lmms-eval piece of the old module stayed in the adapter (ambi_plugin.lmms.tasks_without_records): callers
# of the old path find it here until they import it from there
_moved.patch_tasks_without_records = _patch
sys.modules[__name__] = _moved
