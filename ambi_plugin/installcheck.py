"""Is the harness importable here? Checked before any run starts, told in one line with its fix.

A new release of a dependency can break a harness at start-up (filelock 4 removed ``filelock._api``, which
lmms-eval 0.7.3 imports when an evaluation starts), and lmms-eval then exits 0 with no results. So ``ambi eval``,
``ambi demo`` and ``ambi vlmeval`` import the modules an evaluation needs, in this process, before anything
else: the harness's evaluation modules and the modules it imports only once a run has started. A failure becomes
one line naming the module, the installed version of its package and the command that fixes it.

Nothing here imports a harness at import time; the module names are strings.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

# What each harness imports for an evaluation: its own entry modules, then what it imports lazily once a run has
# started (a module-level import would already be covered by the first ones).
HARNESS_MODULES: dict[str, tuple[str, ...]] = {
    "lmms-eval": (
        "lmms_eval.evaluator",
        "lmms_eval.cli.dispatch",
        "lmms_eval.tasks",
        # lmms_eval/evaluator.py: _enable_reentrant_filelocks(), called by simple_evaluate()
        "filelock._api",
        "datasets.utils._filelock",
    ),
    "VLMEvalKit": ("vlmeval.run", "vlmeval.inference", "vlmeval.dataset"),
}

# Known breakages: module that fails -> the command that fixes it, and why.
KNOWN_FIXES: dict[str, tuple[str, str]] = {
    "filelock._api": ("pip install 'filelock<4'", "lmms-eval 0.7.3 imports filelock._api, which filelock 4 removed"),
}

# Where a harness itself is missing: the extra that installs it.
HARNESS_EXTRA = {"lmms-eval": "lmms", "VLMEvalKit": "vlmeval"}

# import name -> distribution name, where they differ
_DISTRIBUTIONS = {"lmms_eval": "lmms-eval", "vlmeval": "ms-vlmeval", "PIL": "pillow", "yaml": "pyyaml"}


@dataclass(frozen=True)
class ImportProblem:
    harness: str
    module: str  # the module we asked for
    error: str  # the exception, one line
    package: str  # the distribution the failing module belongs to
    version: str | None  # its installed version, None when not installed
    fix: str

    def line(self) -> str:
        have = f"{self.package} {self.version} is installed" if self.version else f"{self.package} is not installed"
        return f"ambi: {self.harness} cannot start here: {self.error} ({have}). Fix: {self.fix}"


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _failing_module(exc: BaseException, asked: str) -> str:
    name = getattr(exc, "name", None)
    return name if isinstance(name, str) and name else asked


def check_harness(harness: str) -> ImportProblem | None:
    """Import every module ``harness`` needs for a run; the first failure, or None when all import."""
    for module in HARNESS_MODULES[harness]:
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - any failure to import is the problem we report
            failing = _failing_module(exc, module)
            top = failing.split(".", 1)[0]
            package = _DISTRIBUTIONS.get(top, top.replace("_", "-"))
            version = _version(package)
            error = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            if failing in KNOWN_FIXES:
                fix, why = KNOWN_FIXES[failing]
                fix = f"{fix} ({why})"
            elif top in ("lmms_eval", "vlmeval") and version is None:
                fix = f"pip install 'ambi-plugin[{HARNESS_EXTRA[harness]}]'"
            else:
                fix = (
                    f"install the versions ambi-plugin was tested with: pip install 'ambi-plugin[{HARNESS_EXTRA[harness]}]' "
                    "-c constraints.txt (the lock file in the repository), or a release of "
                    f"{package} that provides {failing}"
                )
            return ImportProblem(harness, module, f"{type(exc).__name__}: {error}", package, version, fix)
    return None


def require_harness(harness: str, *, echo=print) -> bool:
    """True when ``harness`` can run here; otherwise print the one-line problem (via ``echo``) and return False."""
    problem = check_harness(harness)
    if problem is None:
        return True
    echo(problem.line())
    return False
