"""Deprecated alias: moved to :mod:`ambi_plugin.benchmarks.illusionbench.results_hooks` (kept for one release)."""

import sys
import warnings

from ambi_plugin.benchmarks.illusionbench import results_hooks as _moved

__deprecated_alias__ = "ambi_plugin.benchmarks.illusionbench.results_hooks"
warnings.warn(
    "ambi_plugin.lmms.illusionbench_results moved to ambi_plugin.benchmarks.illusionbench.results_hooks; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved
