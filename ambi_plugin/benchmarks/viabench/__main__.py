"""Deprecated alias: moved to :mod:`ambi_plugin.cli.viabench` (kept for one release)."""

import sys
import warnings

from ambi_plugin.cli import viabench as _moved

__deprecated_alias__ = "ambi_plugin.cli.viabench"
warnings.warn(
    "ambi_plugin.benchmarks.viabench.__main__ moved to ambi_plugin.cli.viabench; the old path goes in the next release",
    FutureWarning,
    stacklevel=2,
)
sys.modules[__name__] = _moved

if __name__ == "__main__":  # ``python -m ambi_plugin.benchmarks.viabench`` still runs ``ambi viabench``
    raise SystemExit(_moved.main())
