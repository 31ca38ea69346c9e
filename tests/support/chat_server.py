"""A real OpenAI-compatible chat-completions server on loopback, with scripted replies.

For tests and benchmarks of the ``openai`` / ``lmms_eval`` judge backends without a network: it speaks
HTTP/1.1 (keep-alive) on ``127.0.0.1``, answers ``POST .../chat/completions`` and counts what it sees
(requests, requests per prompt, the most requests in flight at once). A *responder* decides each reply
from the prompt and how many times that prompt was asked before: text, an HTTP status (429, 500 ...),
a delay (longer than the client's timeout = a timeout), or a malformed body.

    with LoopbackChatServer(latency=0.05) as server:     # server.url = "http://127.0.0.1:<port>/v1"
        ...

The default responder, :func:`oracle_responder`, answers each of our judge prompts the way a
careful judge would on easy items (set match by the offline lexicon, T/F and MC "1", description "2",
VIA-Bench the first option), so end-to-end runs get meaningful verdicts.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str | None = None
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # sent as is (a malformed body)


Responder = Callable[[str, int, dict], "Reply | str"]

_SET = re.compile(r"^Set 1: (.*)\nSet 2: (.*)$", re.MULTILINE)


def oracle_responder(prompt: str, n: int, payload: dict) -> Reply | str:
    """Replies by template: set match through the offline lexicon matcher; others a fixed good answer."""
    if m := _SET.search(prompt):
        from ambi_plugin.core.matching import default_matcher

        gold = [t.strip().replace("/", "|") for t in m.group(1).split(",") if t.strip()]
        pred = [t.strip() for t in m.group(2).split(",") if t.strip()]
        return "True" if default_matcher().match_terms(gold, pred) else "False"
    if prompt.startswith("Respondent description is"):
        return "2"
    if "Answer with only the letter of the chosen option" in prompt:
        return "A"
    return "1"


class LoopbackChatServer:
    def __init__(
        self, responder: Responder | None = None, *, latency: float = 0.0, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.responder = responder or oracle_responder
        self.latency = latency
        self._lock = threading.Lock()
        self.requests = 0
        self.per_prompt: Counter[str] = Counter()
        self.inflight = 0
        self.max_inflight = 0
        self.statuses: Counter[int] = Counter()
        self.payloads: list[dict] = []
        self._httpd = ThreadingHTTPServer((host, port), self._handler_class())
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reset_counters(self) -> None:
        with self._lock:
            self.requests = 0
            self.per_prompt.clear()
            self.max_inflight = 0
            self.statuses.clear()
            self.payloads.clear()

    def start(self) -> LoopbackChatServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="loopback-chat", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LoopbackChatServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _decide(self, payload: dict) -> Reply:
        try:
            prompt = str(payload["messages"][-1]["content"])
        except (KeyError, IndexError, TypeError):
            return Reply(status=400, text="expected a chat-completions body with messages")
        with self._lock:
            self.requests += 1
            self.per_prompt[prompt] += 1
            n = self.per_prompt[prompt]
            self.payloads.append(payload)
        out = self.responder(prompt, n, payload)
        return Reply(text=out) if isinstance(out, str) else out

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                # headers and body go out as two writes: without this, Nagle + delayed ACK add ~40 ms
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                with server._lock:
                    server.inflight += 1
                    server.max_inflight = max(server.max_inflight, server.inflight)
                status = 0
                counted = True

                def leave() -> None:
                    # leave before the reply goes out: the client can free its slot and send the next request
                    # only after reading this reply, so the count never overlaps two requests of one slot
                    nonlocal counted
                    if counted:
                        counted = False
                        with server._lock:
                            server.inflight -= 1

                try:
                    if not self.path.rstrip("/").endswith("/chat/completions"):
                        reply = Reply(status=404, text=f"no route {self.path}")
                    else:
                        try:
                            payload = json.loads(raw or b"{}")
                        except ValueError:
                            payload = {}
                        reply = server._decide(payload)
                    status = reply.status
                    time.sleep(server.latency + reply.delay)
                    leave()
                    self._send(reply, payload if reply.status == 200 else {})
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout): nothing to send
                finally:
                    leave()
                    with server._lock:
                        server.statuses[status] += 1

            def _send(self, reply: Reply, payload: dict) -> None:
                if reply.body is not None:
                    body = reply.body
                elif reply.status == 200:
                    body = json.dumps(
                        {
                            "id": "loopback",
                            "object": "chat.completion",
                            "created": int(time.time()),
                            "model": payload.get("model", "loopback"),
                            "choices": [
                                {
                                    "index": 0,
                                    "message": {"role": "assistant", "content": reply.text},
                                    "finish_reason": "stop",
                                }
                            ],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                        }
                    ).encode()
                else:
                    body = json.dumps({"error": {"message": reply.text or f"HTTP {reply.status}"}}).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        return Handler


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(description="run the loopback chat-completions server (oracle replies)")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--latency", type=float, default=0.05, help="seconds before each reply")
    args = p.parse_args(argv)
    server = LoopbackChatServer(latency=args.latency, port=args.port).start()
    print(f"serving {server.url} (Ctrl-C stops)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
