"""A local stand-in for the Gemini HTTP API, for running the real google-genai client.

A threaded ``http.server`` on 127.0.0.1 (random port). Tests queue scripted replies
(``stub.reply(...)``) that are served in order; every request is kept (path, headers,
JSON body) so a test can assert what the client really sent. google-genai 3.6.1 posts
to ``/v1/models/<model>:generateContent`` with a custom base_url (``/v1beta/`` with other
versions) and to ``:batchEmbedContents`` for embeddings; both prefixes are accepted.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^:/]+):(?P<method>[A-Za-z]+)$")


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


def generate_reply(payload: Any, *, prompt_tokens: int = 120, output_tokens: int = 30) -> StubReply:
    """A 200 generateContent reply whose text is ``payload`` (JSON-dumped unless a str)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return StubReply(
        body={
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": output_tokens,
                "totalTokenCount": prompt_tokens + output_tokens,
            },
            "modelVersion": "stub",
        }
    )


def embed_reply(vectors: list[list[float]]) -> StubReply:
    return StubReply(body={"embeddings": [{"values": v} for v in vectors]})


def error_reply(
    code: int,
    status: str,
    message: str = "stub error",
    *,
    retry_delay: str | None = None,
    retry_after: str | None = None,
) -> StubReply:
    """A google.rpc error body; ``retry_delay`` adds a RetryInfo detail (e.g. "0.3s")."""
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if retry_delay is not None:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        ]
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return StubReply(status=code, body={"error": error}, headers=headers)


class GeminiStub:
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
                m = _PATH.match(self.path.split("?", 1)[0])
                seen = SeenRequest(
                    self.path,
                    m.group("model") if m else "",
                    m.group("method") if m else "",
                    {k.lower(): v for k, v in self.headers.items()},
                    json.loads(raw) if raw else {},
                    time.monotonic(),
                )
                reply = stub._next(seen, matched=m is not None)
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
                return error_reply(404, "NOT_FOUND", f"stub: unexpected path {seen.path}")
            if not self._replies:
                return error_reply(500, "INTERNAL", "stub: no scripted reply left")
            return self._replies.popleft()

    def start(self) -> GeminiStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def running_stub() -> Iterator[GeminiStub]:
    stub = GeminiStub().start()
    try:
        yield stub
    finally:
        stub.stop()
