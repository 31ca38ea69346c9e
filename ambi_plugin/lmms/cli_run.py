"""Run the real lmms-eval CLI in a subprocess and read what it wrote.

lmms-eval exits 0 even when a run fails, so the only proof of a run is its results JSON. Used by
``ambi demo`` and by the end-to-end tests; handy for a user's own tests of a new category too.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ambi_plugin.redact import redact, secret_values
from ambi_plugin.reports.results import find_results_json


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


RUN_ID_ENV = "AMBI_RUN_ID"  # the child writes it into its results JSON (ambi_plugin.run_id): a run claims only its own


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the child gets SIGTERM when the process that started it dies, even by ``kill -9``."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: the signal forwarding below still applies
        pass


def _copy_redacted(stream, log_path: Path, secrets: list[str]) -> None:
    with log_path.open("w", encoding="utf-8") as log:
        for line in stream:
            log.write(redact(line, secrets))
            log.flush()


def run_child(
    cmd: list[str], *, env: dict | None, timeout: float | None, log: Path | None = None, capture: bool = False
):
    """Run ``cmd`` as our child: SIGINT / SIGTERM / SIGHUP sent to us are forwarded to it and we wait for it to end;
    it dies with us (no orphan writes results after we exited). ``log``: its stdout goes to that file, every
    secret value of ``env`` masked (:mod:`ambi_plugin.redact`). Returns ``(returncode, stdout, stderr)``."""
    import signal
    import threading

    pipe = subprocess.PIPE if capture or log is not None else None
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdout=pipe,
        stderr=subprocess.PIPE if capture else None,
        text=pipe is not None,
        errors="replace",
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    copier = None
    if log is not None and not capture:
        copier = threading.Thread(target=_copy_redacted, args=(proc.stdout, Path(log), secret_values(env)), daemon=True)
        copier.start()
    forwarded: list[int] = []

    def forward(signum, _frame):
        forwarded.append(signum)
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signum)

    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(ValueError):  # not the main thread: no handlers, the child still dies with us
            previous[sig] = signal.signal(sig, forward)
    try:
        if copier is not None:
            proc.wait(timeout=timeout)
            copier.join()
            out, err = "", ""
        else:
            out, err = proc.communicate(timeout=timeout)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if forwarded:  # the child has ended; now end as the signal asked
        raise KeyboardInterrupt if forwarded[0] == signal.SIGINT else SystemExit(128 + forwarded[0])
    return proc.returncode, out or "", err or ""


def _own_results(path: Path, run_id: str) -> bool:
    """A results JSON this run wrote: its ``ambi_plugin.run_id`` is ours, or it has no ambi_plugin section (a run of
    no task of ours, which carries no id) and appeared during the run."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    section = data.get("ambi_plugin") if isinstance(data, dict) else None
    if isinstance(section, dict) and "run_id" in section:
        return section["run_id"] == run_id
    return True


def run_lmms_eval(
    args: Sequence[str],
    *,
    output: Path,
    env: dict | None = None,
    timeout: float | None = 1200,
    capture: bool = True,
    log: Path | None = None,
) -> LmmsRun:
    """Run ``lmms-eval <args> --output_path <output>``; ``results`` is None when this run wrote none.

    A results JSON already below ``output`` before the run never counts, nor one another run wrote meanwhile
    (each run carries its own id). ``capture=False`` lets the run's output go to the terminal as it comes
    (``stdout`` / ``stderr`` are then empty), or its stdout to the file ``log`` with secrets masked.
    """
    import uuid

    before = _results_files(output)
    run_id = uuid.uuid4().hex
    env = {**(os.environ if env is None else env), RUN_ID_ENV: run_id}
    cmd = [*lmms_eval_argv(), *args, "--output_path", str(output)]
    run = LmmsRun(*run_child(cmd, env=env, timeout=timeout, log=log, capture=capture))
    new = [p for p, mtime in _results_files(output).items() if before.get(p) != mtime and _own_results(p, run_id)]
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


def lmms_eval_cli(rest: list[str]) -> int:
    """``ambi lmms-eval ...``: lmms-eval's own CLI in this process, with our hooks installed."""
    from ambi_plugin.lmms.discovery import install_hooks

    install_hooks()
    from lmms_eval.cli.dispatch import main as lmms_main

    sys.argv = ["lmms-eval", *rest]
    lmms_main()
    return 0
