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
    run_id: str = ""  # this run's id (AMBI_RUN_ID in its environment, ambi_plugin.run_id in its results JSON)
    run_dir: Path | None = None  # <output>/<run id>: lmms-eval's --output_path for this run

    def tail(self, n: int = 4000) -> str:
        return f"rc={self.returncode}\n{self.stdout[-n:]}\n{self.stderr[-n:]}"


def _results_files(output: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in Path(output).rglob("*results*.json")}  # none below a missing folder


RUN_ID_ENV = "AMBI_RUN_ID"  # the child writes it into its results JSON (ambi_plugin.run_id): a run claims only its own


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Linux: the child gets SIGTERM when the process that started it dies, even by ``kill -9``."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG; libc's prctl, whichever libc (glibc, musl)
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
        errors="replace",  # text pipes (errors= makes them text), bytes that do not decode replaced
        preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
    )
    copier = None
    if log is not None and not capture:
        copier = threading.Thread(target=_copy_redacted, args=(proc.stdout, Path(log), secret_values(env)), daemon=True)
        copier.start()
    forwarded: list[int] = []

    def forward(signum, _frame):
        forwarded.append(signum)
        proc.send_signal(signum)  # a child already gone is skipped (Popen.send_signal)

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


def new_run_id() -> str:
    """A run's id: when it started (so run folders sort by time) and 8 random hex digits, e.g.
    ``20260101-120000-1a2b3c4d``. It names the run's own output folder and is written into its results JSON."""
    import time
    import uuid

    return f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"


def child_env(env: dict | None, run_id: str) -> dict:
    """The child's environment: ``env`` (default ours) with THIS run's id, whatever ``AMBI_RUN_ID`` it held (a
    wrapper script may export one; an inherited id would make the child write another run's id)."""
    return {**(os.environ if env is None else env), RUN_ID_ENV: run_id}


def owns_results(path: Path, run_id: str, run_dir: Path) -> bool:
    """A results JSON is this run's only by what every run has: it lies in the run's own folder (named by its id,
    created for it) and, when it has an ``ambi_plugin`` section, that section carries this run's id. A file elsewhere,
    a section with another id or with none, or an unreadable file is never ours (not ours by the absence of an id)."""
    try:
        Path(path).resolve().relative_to(Path(run_dir).resolve())
    except ValueError:
        return False
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict):
        return False
    section = data.get("ambi_plugin")
    if section is None:
        return True  # a run of no task of ours carries no id: it is ours by the folder only this run writes to
    return isinstance(section, dict) and section.get("run_id") == run_id


def claim_results(run_dir: Path, run_id: str, before: dict[Path, int]) -> list[Path]:
    """The results JSONs this run wrote: below ``run_dir``, new or changed since ``before`` (the snapshot taken
    before the run started), and owned (:func:`owns_results`)."""
    return [
        p for p, mtime in _results_files(run_dir).items() if before.get(p) != mtime and owns_results(p, run_id, run_dir)
    ]


def run_lmms_eval(
    args: Sequence[str],
    *,
    output: Path,
    env: dict | None = None,
    timeout: float | None = 1200,
    capture: bool = True,
    log: Path | None = None,
    run_id: str | None = None,
) -> LmmsRun:
    """Run ``lmms-eval <args>`` into its own folder ``<output>/<run id>``; ``results`` is None when it wrote none.

    Each run writes below its own folder, named by its id (:func:`new_run_id`, or ``run_id``), so runs started at
    once into one ``output`` never overwrite each other (lmms-eval names its results file by the second), and a run
    claims only a results JSON it wrote there (:func:`owns_results`). ``capture=False`` lets the run's output go to
    the terminal as it comes (``stdout`` / ``stderr`` are then empty), or its stdout to the file ``log`` with
    secrets masked.
    """
    run_id = run_id or new_run_id()
    run_dir = Path(output) / run_id
    before = _results_files(run_dir)
    cmd = [*lmms_eval_argv(), *args, "--output_path", str(run_dir)]
    run = LmmsRun(*run_child(cmd, env=child_env(env, run_id), timeout=timeout, log=log, capture=capture))
    run.run_id, run.run_dir = run_id, run_dir
    new = claim_results(run_dir, run_id, before)
    if not new:
        return run
    run.results_path = max(new, key=lambda p: p.stat().st_mtime_ns)  # the newest, as lmms-eval writes one per run
    run.results = json.loads(run.results_path.read_text())
    for path in run_dir.rglob("*_samples_*.jsonl"):  # <date>_samples_<task>.jsonl
        run.samples[path.name.partition("_samples_")[2].removesuffix(".jsonl")] = path
    return run


def replay_args(predictions: Path | str, tasks: str, *extra: str) -> list[str]:
    """Arguments of an ``ambi_replay`` run over ``tasks`` with logged samples."""
    return ["--model", "ambi_replay", "--model_args", f"predictions={predictions}", "--tasks", tasks,
            "--batch_size", "1", "--log_samples", *extra]  # fmt: skip


def lmms_eval_cli(rest: list[str]) -> int:
    """``ambi lmms-eval ...``: lmms-eval's own CLI in this process, with our hooks installed."""
    from ambi_plugin.lmms.patches import install_hooks

    install_hooks()
    from lmms_eval.cli.dispatch import main as lmms_main

    sys.argv = ["lmms-eval", *rest]
    lmms_main()
    return 0
