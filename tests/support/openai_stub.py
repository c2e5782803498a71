"""A local stand-in for an OpenAI-compatible HTTP API, for running the real ``openai`` SDK.

The SDK, given ``base_url=<stub>/v1``, posts to ``/v1/chat/completions`` and
``/v1/embeddings``; the model is the body's ``model``. Replies are what OpenAI's API
(and vLLM's and Ollama's) answer; errors carry OpenAI's ``{"error": {...}}`` body and,
optionally, ``Retry-After`` / ``retry-after-ms``. The server is tests/support/stub_server.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.support.stub_server import SeenRequest, StubReply, StubServer

__all__ = [
    "OpenAIStub",
    "SeenRequest",
    "StubReply",
    "chat_reply",
    "embeddings_reply",
    "error_reply",
    "running_openai_stub",
]

CHAT = "chat.completions"
EMBEDDINGS = "embeddings"
_METHODS = {"/v1/chat/completions": CHAT, "/v1/embeddings": EMBEDDINGS}


def chat_reply(
    payload: Any,
    *,
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
    finish_reason: str = "stop",
    refusal: str | None = None,
) -> StubReply:
    """A 200 chat completion whose message content is ``payload`` (JSON-dumped unless a
    str or None); ``refusal`` fills ``message.refusal`` as a refusing model does."""
    content = payload if payload is None or isinstance(payload, str) else json.dumps(payload)
    return StubReply(
        body={
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "stub",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    )


def embeddings_reply(vectors: list[list[Any]], *, prompt_tokens: int = 8) -> StubReply:
    """A 200 embeddings reply, one ``data`` item per vector in order (values as given:
    a test may put NaN or null in)."""
    return StubReply(
        body={
            "object": "list",
            "data": [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ],
            "model": "stub",
            "usage": {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens},
        }
    )


def error_reply(
    status: int,
    message: str = "stub error",
    *,
    type: str = "server_error",
    retry_after: str | None = None,
    retry_after_ms: str | None = None,
) -> StubReply:
    headers = {}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    if retry_after_ms is not None:
        headers["retry-after-ms"] = retry_after_ms
    body = {"error": {"message": message, "type": type, "param": None, "code": None}}
    return StubReply(status=status, body=body, headers=headers)


class OpenAIStub(StubServer):
    @property
    def api_url(self) -> str:
        """What the SDK's ``base_url`` is set to."""
        return f"{self.base_url}/v1"

    def route(self, path: str, body: dict[str, Any]) -> tuple[str, str] | None:
        method = _METHODS.get(path)
        return (str(body.get("model", "")), method) if method else None

    def not_found(self, path: str) -> StubReply:
        return error_reply(404, f"stub: unexpected path {path}", type="invalid_request_error")

    def exhausted(self) -> StubReply:
        return error_reply(500, "stub: no scripted reply left")

    def start(self) -> OpenAIStub:
        super().start()
        return self


@contextmanager
def running_openai_stub() -> Iterator[OpenAIStub]:
    stub = OpenAIStub().start()
    try:
        yield stub
    finally:
        stub.stop()
