"""The suite's own guards (tests/support/limits.py): a test that hangs fails under its name after
``AMBI_TEST_TIMEOUT`` and the suite goes on; one stuck where the signal cannot reach it ends the process with every
stack, its own among them; a failure is named the moment it happens."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parent

SAMPLE = textwrap.dedent(
    """
    import signal, time

    def test_hangs():
        time.sleep(600)

    def test_after_the_hang():
        assert True

    def test_fails():
        assert 1 == 2
    """
)

STUCK = textwrap.dedent(
    """
    import signal, time

    def test_stuck_where_no_signal_reaches():
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(600)
    """
)


def _pytest(tmp_path: Path, source: str, limit: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_sample.py").write_text(source)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(TESTS), "AMBI_TEST_TIMEOUT": limit}
    cmd = [sys.executable, "-m", "pytest", "-p", "support.limits", "-p", "no:cacheprovider", "-q", "test_sample.py"]
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_a_hanging_test_fails_under_its_name_and_the_suite_goes_on(tmp_path):
    proc = _pytest(tmp_path, SAMPLE, "2")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "test_sample.py::test_hangs: still running after 2 s; the stacks of every thread:" in proc.stderr
    assert "line 5 in test_hangs" in proc.stderr  # its stack, at the sleep
    assert "FAILED test_sample.py::test_hangs (call)" in proc.stdout  # named at once, before the summary
    assert "FAILED test_sample.py::test_fails (call)" in proc.stdout
    assert "2 failed, 1 passed" in proc.stdout  # the test after the hang ran


def test_a_test_stuck_beyond_the_signal_ends_the_run_with_its_stack(tmp_path):
    proc = _pytest(tmp_path, STUCK, "2")
    assert proc.returncode != 0
    assert "Timeout (0:00:04)!" in proc.stderr and "in test_stuck_where_no_signal_reaches" in proc.stderr
