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


def run_lmms_eval(args: Sequence[str], *, output: Path, env: dict | None = None, timeout: float = 1200) -> LmmsRun:
    """Run ``lmms-eval <args> --output_path <output>``; ``results`` is None when it wrote none."""
    cmd = [*lmms_eval_argv(), *args, "--output_path", str(output)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    run = LmmsRun(proc.returncode, proc.stdout, proc.stderr)
    try:
        run.results_path = find_results_json(Path(output))
    except FileNotFoundError:
        return run
    run.results = json.loads(run.results_path.read_text())
    for path in Path(output).rglob("*_samples_*.jsonl"):
        run.samples[path.name.split("_samples_", 1)[1].rsplit(".", 1)[0]] = path
    return run


def replay_args(predictions: Path | str, tasks: str, *extra: str) -> list[str]:
    """Arguments of an ``ambi_replay`` run over ``tasks`` with logged samples."""
    return ["--model", "ambi_replay", "--model_args", f"predictions={predictions}", "--tasks", tasks,
            "--batch_size", "1", "--log_samples", *extra]  # fmt: skip
