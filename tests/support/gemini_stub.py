"""A local stand-in for the Gemini HTTP API, for running the real google-genai client.

google-genai 3.6.1 posts to ``/v1/models/<model>:generateContent`` with a custom base_url
(``/v1beta/`` with other versions) and to ``:batchEmbedContents`` for embeddings; both
prefixes are accepted. The server itself is tests/support/stub_server.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.stub_server import SeenRequest, StubReply, StubServer

__all__ = [
    "GeminiStub",
    "SeenRequest",
    "StubReply",
    "embed_reply",
    "error_reply",
    "generate_reply",
    "running_stub",
]

_PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^:/]+):(?P<method>[A-Za-z]+)$")


def generate_reply(
    payload: Any, *, prompt_tokens: int = 120, output_tokens: int = 30, finish: str = "STOP"
) -> StubReply:
    """A 200 generateContent reply whose text is ``payload`` (JSON-dumped unless a str)."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return StubReply(
        body={
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish}
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


class GeminiStub(StubServer):
    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        m = _PATH.match(path)
        return (m.group("model"), m.group("method")) if m else None

    def not_found(self, path: str) -> StubReply:
        return error_reply(404, "NOT_FOUND", f"stub: unexpected path {path}")

    def exhausted(self) -> StubReply:
        return error_reply(500, "INTERNAL", "stub: no scripted reply left")

    def start(self) -> GeminiStub:
        super().start()
        return self


@contextmanager
def running_stub() -> Iterator[GeminiStub]:
    stub = GeminiStub().start()
    try:
        yield stub
    finally:
        stub.stop()
