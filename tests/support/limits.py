"""pytest hooks that name a hang or a failure at once (loaded by ``tests/conftest.py``).

A test still running after ``AMBI_TEST_TIMEOUT`` seconds (default 3600; 0 turns the limit off; a test may ask for
another limit with ``@pytest.mark.time_limit(seconds)``) fails with its name, and every thread's stack goes to the
terminal; the suite goes on. It is a SIGALRM in the main thread, where pytest runs the test, so waits on processes,
sockets and sleeps are interrupted. A test that does not get back to Python within as long again (at most two
minutes more: stuck in C code, the signal blocked) gets faulthandler's dump of every stack and the process ends
(under pytest-xdist the controller then names the test that crashed its worker). A failure is also printed the
moment it happens (``FAILED <test> (<phase>)``), so a run that an outer timeout cuts short still names it.
"""

from __future__ import annotations

import os

import pytest

DEFAULT_TEST_TIMEOUT = 3600.0  # above the slowest e2e test on a crowded 2-core machine (over 30 min seen)
_real_stderr: dict[str, int] = {}
_reporter: dict[str, object] = {}


def _test_timeout(item: pytest.Item) -> float:
    marker = item.get_closest_marker("time_limit")
    if marker is not None:
        return float(marker.args[0])
    return float(os.environ.get("AMBI_TEST_TIMEOUT", DEFAULT_TEST_TIMEOUT))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "time_limit(seconds): this test's own limit instead of AMBI_TEST_TIMEOUT")
    # the terminal's stderr, kept while pytest does not capture fd 2: what a hang prints is seen as the run goes
    # on, and survives the process
    _real_stderr["fd"] = os.dup(2)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    import faulthandler
    import signal
    import threading

    limit = _test_timeout(item)
    armed = limit > 0 and hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
    if not armed:
        yield
        return
    fd = _real_stderr.get("fd", 2)

    def too_long(signum, frame):
        os.write(fd, f"\n{item.nodeid}: still running after {limit:g} s; the stacks of every thread:\n".encode())
        faulthandler.dump_traceback(file=fd, all_threads=True)
        pytest.fail(f"{item.nodeid} still running after {limit:g} s (AMBI_TEST_TIMEOUT; stacks on stderr)")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.setitimer(signal.ITIMER_REAL, limit)
    faulthandler.dump_traceback_later(limit + min(limit, 120.0), exit=True, file=fd)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    reporter = _reporter.get("tr")
    if report.failed and reporter is not None:
        reporter.write_line("")  # off the line of progress characters
        reporter.write_line(f"FAILED {report.nodeid} ({report.when})", red=True)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the xdist controller (or a plain run) prints; workers do not
        _reporter["tr"] = session.config.pluginmanager.get_plugin("terminalreporter")
