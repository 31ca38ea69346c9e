"""A killed ``ambi synth --out S`` leaves a hidden ``.S.tmp-<pid>-*`` folder; the next build of S removes it
(its process is gone) and says so, and keeps the folder of a build still running (real processes, SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def _ambi(*args: str) -> list[str]:
    return [sys.executable, "-m", "ambi_plugin.cli", *args]


def test_a_killed_synth_build_is_cleaned_by_the_next_build(tmp_path: Path):
    out = tmp_path / "S"
    proc = subprocess.Popen(_ambi("synth", "--out", str(out), "--n", "400"), env=dict(os.environ),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.time() + 120
    while time.time() < deadline and not any((p / "images").is_dir() for p in tmp_path.glob(".S.tmp-*")):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    stale = list(tmp_path.glob(".S.tmp-*"))
    assert len(stale) == 1 and stale[0].name.startswith(f".S.tmp-{proc.pid}-")  # what the kill left
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        running = tmp_path / f".S.tmp-{live.pid}-abcd1234"  # a build of a live process: not ours to remove
        running.mkdir()
        again = subprocess.run(_ambi("synth", "--out", str(out), "--n", "2"), capture_output=True, text=True,
                               timeout=300)  # fmt: skip
        assert again.returncode == 0, again.stderr[-2000:]
        assert not stale[0].exists() and running.is_dir()
        assert f"removed 1 temporary folder(s) of killed builds of {out}: {stale[0].name}" in again.stderr
        assert (out / "manifest.json").is_file()
    finally:
        live.kill()
        live.wait()
