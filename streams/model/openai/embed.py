"""The OpenAI-compatible embedder: the embeddings endpoint, checked before anything is used.

Vectors are asked for as JSON floats (``encoding_format="float"``: the SDK's default,
base64, is not spoken by every compatible server), in batches of at most MAX_BATCH
texts. ``dimensions`` (= ``embedding_dim``) is sent where ``openai_send_dimensions``
says: by default only to OpenAI's text-embedding-3 models, since other models have one
size and some servers refuse the field. A reply with the wrong number of vectors, a
vector of another dimension than the database's, or a value that is not a finite number
(NaN, null) is never returned: that attempt fails with a clear message and is retried
like a 5xx, and the call fails (recorded) when the attempts are used up. Vectors are
normalised to unit length (many local models do not normalise theirs).
"""

from __future__ import annotations

import time
from typing import Any

import openai
from openai.types import CreateEmbeddingResponse

from streams.model.calls import (
    checked_vectors,
    elapsed_ms,
    embed_failed,
    embed_in_batches,
    log_retry,
)
from streams.model.openai.client import is_retryable, make_client
from streams.model.ports import CallRecord, EmbedInput, ModelResult
from streams.model.retry import RetriesExhausted, RetryableReply, RetryPolicy, with_retries
from streams.settings import Settings

MAX_BATCH = 100


def sends_dimensions(settings: Settings) -> bool:
    if settings.openai_send_dimensions != "auto":
        return settings.openai_send_dimensions == "always"
    return settings.embed_model.strip().lower().rsplit("/", 1)[-1].startswith("text-embedding-3")


def checked_reply(
    response: Any, count: int, dim: int
) -> tuple[list[list[float]], dict[str, Any], int | None]:
    """The reply's vectors in input order, its record summary and its token count; raises
    RetryableReply when the indices, the count, the dimension or a value is wrong."""
    data = list(getattr(response, "data", None) or [])
    indices = [getattr(d, "index", None) for d in data]
    if all(isinstance(i, int) for i in indices):  # else a server that numbers none, in order
        data.sort(key=lambda d: int(d.index))
    tokens = getattr(getattr(response, "usage", None), "prompt_tokens", None)
    numbers = [i for i in indices if isinstance(i, int)]
    if len(data) == count and sorted(numbers) != list(range(count)) and indices != [None] * count:
        summary = {"count": len(data), "indices": indices[:20]}
        raise RetryableReply(f"embedding indices {indices[:20]} are not 0..{count - 1}", summary)
    vectors, summary = checked_vectors([getattr(d, "embedding", None) for d in data], count, dim)
    return vectors, summary, tokens


class OpenAIEmbedder:
    def __init__(self, settings: Settings, client: openai.AsyncOpenAI | None = None) -> None:
        self.client = client or make_client(settings, embeddings=True)
        self.model, self.dim = settings.embed_model, settings.embedding_dim
        self.policy = RetryPolicy.from_settings(settings)
        self.dimensions = self.dim if sends_dimensions(settings) else None

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        return await embed_in_batches(
            request.texts, MAX_BATCH, lambda chunk: self._batch(chunk, request.purpose)
        )

    async def _create(self, texts: list[str]) -> CreateEmbeddingResponse:
        return await self.client.embeddings.create(
            input=texts,
            model=self.model,
            encoding_format="float",
            dimensions=openai.omit if self.dimensions is None else self.dimensions,
        )

    async def _attempt(
        self, texts: list[str]
    ) -> tuple[list[list[float]], dict[str, Any], int | None]:
        return checked_reply(await self._create(texts), len(texts), self.dim)

    async def _batch(self, texts: list[str], purpose: str) -> tuple[list[list[float]], CallRecord]:
        record_request = {
            "model": self.model,
            "purpose": purpose,
            "texts": texts,
            "config": {
                "dimensions": self.dimensions,  # None: not sent
                "encoding_format": "float",
                "expected_dimension": self.dim,
                "timeout_s": self.policy.timeout_s,
            },
        }
        started = time.perf_counter()
        try:
            (vectors, summary, tokens), attempts = await with_retries(
                lambda: self._attempt(texts),
                self.policy,
                on_error=log_retry("openai", "embed", self.model),
                retryable=is_retryable,
            )
        except RetriesExhausted as exc:
            failed = embed_failed(
                "openai", self.model, record_request, texts, purpose, started, exc
            )
            raise failed from exc.error
        record = CallRecord(
            "embed",
            self.model,
            record_request,
            summary,
            elapsed_ms(started),
            input_tokens=tokens,
            attempts=attempts,
        )
        return vectors, record
