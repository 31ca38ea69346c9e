"""Retries with backoff for judge requests, and the errors a backend raises.

A backend's request function raises :class:`RetryableError` for what may pass (timeouts, dropped
connections, HTTP 429 and 5xx) and :class:`FatalJudgeError` for what will not (a wrong key, model or
URL: HTTP 400/401/403/404). :func:`with_retries` retries the first kind with exponential backoff and
jitter (honouring ``Retry-After``) and lets the second through at once, so a misconfigured judge
stops the run at its first item instead of failing every item.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
MAX_BACKOFF = 30.0


class RetryableError(Exception):
    """A transient failure: timeout, connection error, HTTP 429 or 5xx."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FatalJudgeError(RuntimeError):
    """A failure retrying cannot fix (bad key, unknown model, wrong URL)."""


class TransportError(RuntimeError):
    """Every retry failed; the round gets no reply (recorded as a judge error, not cached)."""


def backoff_delay(attempt: int, base: float, retry_after: float | None = None) -> float:
    if retry_after is not None and retry_after >= 0:
        return min(float(retry_after), MAX_BACKOFF)
    return min(base * (2**attempt), MAX_BACKOFF) * (0.5 + random.random() / 2)


def with_retries(
    fn: Callable[[], T], *, retries: int, base: float, on_retry: Callable[[int, Exception], None] | None = None
) -> T:
    """Call ``fn``; on :class:`RetryableError` wait and call again, at most ``retries`` more times."""
    for attempt in range(retries + 1):
        try:
            return fn()
        except RetryableError as exc:
            if attempt == retries:
                raise TransportError(f"gave up after {retries + 1} attempts: {exc}") from exc
            if on_retry is not None:
                on_retry(attempt, exc)
            time.sleep(backoff_delay(attempt, base, exc.retry_after))
    raise AssertionError("unreachable")  # pragma: no cover


class CircuitBreaker:
    """Stops a run's requests to a judge that accepts connections and never answers.

    Without it every judgement waits ``retries + 1`` timeouts (6 x 60 s by default), for every item of the run. After
    ``limit`` timeouts in a row (any thread; an HTTP response of any status resets the count) the breaker opens:
    :meth:`check` raises :class:`TransportError` with the reason, so every later request of the process is a judge
    error at once, and one line on stderr says so. ``limit`` 0 never opens."""

    def __init__(self, limit: int, what: str, timeout: float) -> None:
        self.limit = int(limit)
        self.what = what  # "the judge at <url> (model <m>)"
        self.timeout = float(timeout)
        self._lock = threading.Lock()
        self._streak = 0
        self.reason: str | None = None

    def check(self) -> None:
        """Before a request: raise :class:`TransportError` once the breaker is open."""
        if self.reason is not None:
            raise TransportError(self.reason)

    def answered(self) -> None:
        with self._lock:
            self._streak = 0

    def timed_out(self) -> None:
        with self._lock:
            self._streak += 1
            opens = bool(self.limit) and self._streak >= self.limit and self.reason is None
            if opens:
                self.reason = (
                    f"judge stopped: {self.what} timed out {self._streak} times in a row ({self.timeout:g} s each), "
                    "so no more requests are sent this run"
                )
        if opens:
            import sys

            print(
                f"ambi-plugin: {self.reason}; every judgement left is a judge error "
                f"(AMBI_JUDGE_MAX_CONSECUTIVE_TIMEOUTS={self.limit}; check the server, or raise AMBI_JUDGE_TIMEOUT)",
                file=sys.stderr,
                flush=True,
            )


class Counters:
    """Thread-safe counters of what a backend did (requests, retries, failures)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, int] = {}

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            self._values[name] = self._values.get(name, 0) + n

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)
