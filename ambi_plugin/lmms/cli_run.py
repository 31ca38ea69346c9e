"""Run the real lmms-eval CLI in a subprocess and read what it wrote.

lmms-eval exits 0 even when a run fails, so the only proof of a run is its results JSON. Used by
``ambi demo`` and by the end-to-end tests; handy for a user's own tests of a new category too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.report import find_results_json


def lmms_eval_argv() -> list[str]:
    """The ``lmms-eval`` console script installed next to this interpreter, else ``python -m lmms_eval``."""
    script = Path(sys.executable).with_name("lmms-eval")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lmms_eval"]


@dataclass
class LmmsRun:
    returncode: int
    stdout: str
    stderr: str
    results_path: Path | None = None
    results: dict | None = None
    samples: dict[str, Path] = field(default_factory=dict)  # task -> its --log_samples file

    def tail(self, n: int = 4000) -> str:
        return f"rc={self.returncode}\n{self.stdout[-n:]}\n{self.stderr[-n:]}"


def _results_files(output: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in Path(output).rglob("*results*.json")} if Path(output).is_dir() else {}


def run_lmms_eval(
    args: Sequence[str],
    *,
    output: Path,
    env: dict | None = None,
    timeout: float | None = 1200,
    capture: bool = True,
) -> LmmsRun:
    """Run ``lmms-eval <args> --output_path <output>``; ``results`` is None when this run wrote none.

    A results JSON already below ``output`` before the run never counts. ``capture=False`` lets the
    run's output go to the terminal as it comes (``stdout`` / ``stderr`` are then empty).
    """
    before = _results_files(output)
    cmd = [*lmms_eval_argv(), *args, "--output_path", str(output)]
    if capture:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        run = LmmsRun(proc.returncode, proc.stdout, proc.stderr)
    else:
        run = LmmsRun(subprocess.run(cmd, env=env, timeout=timeout).returncode, "", "")
    new = [p for p, mtime in _results_files(output).items() if before.get(p) != mtime]
    if not new:
        return run
    run.results_path = find_results_json(max(new, key=lambda p: p.stat().st_mtime_ns))
    run.results = json.loads(run.results_path.read_text())
    for path in Path(output).rglob("*_samples_*.jsonl"):
        run.samples[path.name.split("_samples_", 1)[1].rsplit(".", 1)[0]] = path
    return run


def replay_args(predictions: Path | str, tasks: str, *extra: str) -> list[str]:
    """Arguments of an ``ambi_replay`` run over ``tasks`` with logged samples."""
    return ["--model", "ambi_replay", "--model_args", f"predictions={predictions}", "--tasks", tasks,
            "--batch_size", "1", "--log_samples", *extra]  # fmt: skip
