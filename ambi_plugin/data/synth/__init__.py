"""Deprecated alias: moved to :mod:`ambi_plugin.synth` (kept for one release).

Every submodule is mapped too (``ambi_plugin.data.synth.suite`` is ``ambi_plugin.synth.suite``), so importing or
monkeypatching through an old path reaches the real module."""

import importlib
import pkgutil
import sys
import warnings

from ambi_plugin import synth as _moved

__deprecated_alias__ = "ambi_plugin.synth"
warnings.warn(
    "ambi_plugin.data.synth moved to ambi_plugin.synth; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
for _sub in pkgutil.iter_modules(_moved.__path__):
    sys.modules[f"{__name__}.{_sub.name}"] = importlib.import_module(f"{_moved.__name__}.{_sub.name}")
sys.modules[__name__] = _moved
