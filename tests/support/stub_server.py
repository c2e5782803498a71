"""A local HTTP server standing in for a model API, for running the real SDKs in tests.

A threaded ``http.server`` on 127.0.0.1 (random port). Tests queue scripted replies
(``stub.reply(...)``) that are served in order; every request is kept (path, headers,
JSON body) so a test can assert what the client really sent. Each API's stub
(gemini_stub.py, openai_stub.py) says how a path names the model and the method, and
what its errors look like.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class StubReply:
    status: int = 200
    body: Any = None  # JSON-able, or a str sent verbatim
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # hold the response this long (to trip client timeouts)


@dataclass
class SeenRequest:
    path: str
    model: str
    method: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float  # time.monotonic() when it arrived


class StubServer:
    def __init__(self) -> None:
        self.requests: list[SeenRequest] = []
        self._replies: deque[StubReply] = deque()
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                route = stub.route(self.path.split("?", 1)[0], body)
                seen = SeenRequest(
                    self.path,
                    route[0] if route else "",
                    route[1] if route else "",
                    {k.lower(): v for k, v in self.headers.items()},
                    body,
                    time.monotonic(),
                )
                reply = stub._next(seen, matched=route is not None)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = (
                    reply.body.encode()
                    if isinstance(reply.body, str)
                    else json.dumps(reply.body).encode()
                )
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json; charset=UTF-8")
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout); nothing to answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # A short poll interval keeps shutdown (once per test) at milliseconds, not 0.5 s.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # --- what each API's stub says -----------------------------------------------------

    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        """(model, method) of a request to ``path``, or None for a path the API lacks."""
        raise NotImplementedError

    def not_found(self, path: str) -> StubReply:
        raise NotImplementedError

    def exhausted(self) -> StubReply:
        """The reply when the test scripted no more (an error, so the test sees it)."""
        raise NotImplementedError

    # --- the server ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def reply(self, *replies: StubReply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def calls(self, method: str) -> list[SeenRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == method]

    def _next(self, seen: SeenRequest, *, matched: bool) -> StubReply:
        with self._lock:
            self.requests.append(seen)
            if not matched:
                return self.not_found(seen.path)
            if not self._replies:
                return self.exhausted()
            return self._replies.popleft()

    def start(self) -> StubServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
