"""The embedded synthetic suite: procedurally generated perception items with exact ground truth.

Eighteen tasks (RCID-style contrast, stripe and filter illusions, pyllusion geometric illusions, hybrid,
multi-view, camouflage, Navon, localization, region and multi-label choice items) are generated
deterministically from a seed, offline, in seconds. See ``docs/synth.md``.

>>> from ambi_plugin.synth import ensure_suite
>>> folder = ensure_suite(seed=0)  # doctest: +SKIP
"""

from .common import SYNTH_VERSION
from .suite import DEFAULT_N, SYNTH_TASKS, build_suite, default_root, ensure_suite

__all__ = ["DEFAULT_N", "SYNTH_TASKS", "SYNTH_VERSION", "build_suite", "default_root", "ensure_suite"]
