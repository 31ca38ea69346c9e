"""``openai`` backend: any OpenAI-compatible chat-completions API (OpenAI, vLLM, SGLang, a local server).

Plain HTTP from the standard library (one keep-alive connection per thread), so it needs no client
package and behaves the same against every server. At most ``max_concurrency`` requests are in flight
per process; timeouts, dropped connections, 429 and 5xx are retried with backoff (see
:mod:`ambi_plugin.judge.transport`), 400/401/403/404 stop the run with a message naming URL and model.

Bounded: a reply body over ``max_reply_mb`` (``AMBI_JUDGE_MAX_REPLY_MB``, 4) is not read and its round is a judge
error; after ``max_consecutive_timeouts`` (``AMBI_JUDGE_MAX_CONSECUTIVE_TIMEOUTS``, 10) timeouts in a row no more
requests are sent this run and every judgement left is a judge error with the reason (one line on stderr).
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlsplit

from ambi_plugin.judge.settings import JudgeSettings, redact_url
from ambi_plugin.judge.transport import (
    CircuitBreaker,
    Counters,
    FatalJudgeError,
    RetryableError,
    TransportError,
    with_retries,
)


class OpenAIChatBackend:
    name = "openai"

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings
        self.model = str(settings.model)
        self.base_url = redact_url(str(settings.base_url).rstrip("/"))  # what messages and results show
        parts = urlsplit(str(settings.base_url).rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise FatalJudgeError(
                f"judge base_url must be an http(s) URL like http://localhost:8000/v1, got {self.base_url!r}"
            )
        self._scheme, self._host, self._port = parts.scheme, parts.hostname, parts.port
        self._path = (parts.path.rstrip("/") or "") + "/chat/completions"
        self._slots = threading.BoundedSemaphore(settings.max_concurrency)
        self._local = threading.local()
        self.counters = Counters()
        self.max_body = int(settings.max_reply_mb * 1e6)
        self.breaker = CircuitBreaker(
            settings.max_consecutive_timeouts, f"the judge at {self.base_url} (model {self.model!r})", settings.timeout
        )

    def params(self) -> dict[str, Any]:
        return {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens}

    def describe(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "max_concurrency": self.settings.max_concurrency}

    # -- HTTP

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self.settings.timeout)
            self._local.conn = conn
        return conn

    def _drop_connection(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
        self._local.conn = None

    def _post(self, payload: dict[str, Any]) -> str:
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        self.breaker.check()  # a judge that stopped answering: no more requests (transport.CircuitBreaker)
        with self._slots:
            self.breaker.check()
            self.counters.add("requests")
            try:
                conn = self._connection()
                conn.request("POST", self._path, body=body, headers=headers)
                resp = conn.getresponse()
                self.breaker.answered()
                data = self._read_body(resp)
            except TimeoutError as exc:
                self._drop_connection()
                self.counters.add("timeouts")
                self.breaker.timed_out()
                raise RetryableError(f"timeout after {self.settings.timeout:g} s") from exc
            except (OSError, http.client.HTTPException) as exc:
                self._drop_connection()
                self.counters.add("connection_errors")
                raise RetryableError(f"connection error: {type(exc).__name__}: {exc}") from exc
        status = resp.status
        if resp.getheader("Connection", "").lower() == "close":
            self._drop_connection()
        if status == 429 or status >= 500:
            self.counters.add(f"http_{status}")
            retry_after = resp.getheader("Retry-After")
            try:
                wait = float(retry_after) if retry_after is not None else None
            except ValueError:
                wait = None
            raise RetryableError(f"HTTP {status} from {self.base_url}", retry_after=wait)
        if status >= 400:
            raise FatalJudgeError(
                f"the judge server {self.base_url} answered HTTP {status} for model {self.model!r}: "
                f"{data[:300].decode('utf-8', 'replace')} (check AMBI_JUDGE_BASE_URL, AMBI_JUDGE_MODEL, AMBI_JUDGE_API_KEY)"
            )
        try:
            doc = json.loads(data)
            content = doc["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            self.counters.add("malformed")
            raise RetryableError(f"malformed chat-completions body: {data[:200]!r}") from exc
        return "" if content is None else str(content)

    def _read_body(self, resp: http.client.HTTPResponse) -> bytes:
        """The response body, at most ``max_reply_mb`` megabytes: a longer one is not read (the connection is
        dropped) and its round gets no reply (a judge error, not retried: the same request would get the same)."""
        declared = resp.getheader("Content-Length")
        size = int(declared) if declared and declared.strip().isdigit() else None
        data = b"" if size is not None and size > self.max_body else resp.read(self.max_body + 1)
        if len(data) > self.max_body or (size is not None and size > self.max_body):
            self._drop_connection()
            self.counters.add("replies_over_limit")
            got = f"{size} bytes" if size is not None else f"more than {self.max_body} bytes"
            raise TransportError(
                f"reply too long: {got} from {self.base_url}, over the limit of {self.settings.max_reply_mb:g} MB "
                "(not read; the judge ignored max_tokens? set AMBI_JUDGE_MAX_REPLY_MB to allow more)"
            )
        return data

    def complete(self, prompt: str, round_index: int) -> str:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": self.settings.max_tokens,
        }
        if self.settings.temperature is not None:
            payload["temperature"] = self.settings.temperature

        def on_retry(attempt: int, exc: Exception) -> None:
            self.counters.add("retries")

        return with_retries(
            lambda: self._post(payload), retries=self.settings.retries, base=self.settings.backoff, on_retry=on_retry
        )
