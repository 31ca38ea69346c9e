"""``ambi eval``: run an lmms-eval evaluation and tell, by the exit code, whether it produced results.

lmms-eval exits 0 even when a run fails (missing weights, missing data), so this reads what the run
wrote: the exit code is 0 only when lmms-eval wrote a new results JSON in which every requested task
(``--tasks``; a group counts when each of its tasks does) has at least one metric value. The
arguments are lmms-eval's own, passed through unchanged (see :func:`ambi_plugin.lmms.cli_run.run_lmms_eval`).
"""

from __future__ import annotations

import fnmatch
import math
import time
from collections.abc import Sequence
from pathlib import Path

from ambi_plugin.lmms.cli_run import run_lmms_eval

FAILED_RUN = 1


def option_value(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name V`` or ``--name=V`` in ``argv`` (the last one wins), else None."""
    value = None
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith(name + "="):
            value = arg.split("=", 1)[1]
    return value


def without_option(argv: Sequence[str], name: str) -> list[str]:
    """``argv`` without ``--name V`` / ``--name=V``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == name:
            skip = True
        elif not arg.startswith(name + "="):
            out.append(arg)
    return out


def _has_values(metrics: dict) -> bool:
    return any(
        "," in key and isinstance(val, (int, float)) and not isinstance(val, bool) and not math.isnan(val)
        for key, val in (metrics or {}).items()
    )


def tasks_without_results(results: dict, requested: Sequence[str]) -> list[str]:
    """The requested task / group names (glob patterns allowed) the results JSON has no metric value for."""
    per_task = results.get("results") or {}
    groups = results.get("group_subtasks") or {}

    def ok(name: str, depth: int = 0) -> bool:
        if name in groups and groups[name] and depth < 8:
            return all(ok(sub, depth + 1) for sub in groups[name])
        return _has_values(per_task.get(name, {}))

    missing = []
    for name in requested:
        if any(c in name for c in "*?["):
            if not any(ok(n) for n in fnmatch.filter(set(per_task) | set(groups), name)):
                missing.append(name)
        elif not ok(name):
            missing.append(name)
    return missing


def default_output() -> Path:
    from ambi_plugin.paths import cache_dir

    return cache_dir() / "eval" / time.strftime("%Y%m%d-%H%M%S")


def run_eval(argv: Sequence[str], *, echo=print) -> int:
    """Run ``lmms-eval <argv>`` (output shown as it runs); return 0, or 1 when the run failed or a task has no results."""
    argv = list(argv)
    if argv[:1] == ["eval"]:  # `ambi eval eval --model ...` reads as lmms-eval's own subcommand
        argv = argv[1:]
    given = option_value(argv, "--output_path")
    output = Path(given).expanduser() if given else default_output()
    requested = [t.strip() for t in (option_value(argv, "--tasks") or "").split(",") if t.strip()]
    run = run_lmms_eval(without_option(argv, "--output_path"), output=output, capture=False, timeout=None)
    if run.results is None:
        echo(
            f"ambi eval: the run failed: lmms-eval (exit code {run.returncode}) wrote no new results JSON "
            f"below {output}; its log above says why"
        )
        return run.returncode or FAILED_RUN
    missing = tasks_without_results(run.results, requested)
    if missing:
        echo(f"ambi eval: no results for {', '.join(missing)} in {run.results_path}; the log above says why")
        return FAILED_RUN
    if run.returncode:
        echo(f"ambi eval: lmms-eval exited with code {run.returncode} (results: {run.results_path})")
        return run.returncode
    echo(f"ambi eval: results of {len(requested)} requested task(s) in {run.results_path}")
    return 0
