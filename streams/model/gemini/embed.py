"""The Gemini embedder: batchEmbedContents calls of at most 100 texts, the database's dimension.

gemini-embedding-001 only normalises its full 3072-dim output; truncated vectors
(output_dimensionality < 3072) are not unit length, so they are normalised here. Cosine
distance does not care, but inner-product consumers and tests comparing vectors do. A
reply with the wrong count, another dimension or a value that is not a finite number is
retried like a 5xx and never returned (streams/model/calls.py checked_vectors).
"""

from __future__ import annotations

import time
from typing import Any

from google import genai
from google.genai import types

from streams.model.calls import (
    checked_vectors,
    elapsed_ms,
    embed_failed,
    embed_in_batches,
    log_retry,
)
from streams.model.gemini.llm import make_client
from streams.model.ports import CallRecord, EmbedInput, ModelResult
from streams.model.retry import RetriesExhausted, RetryPolicy, with_retries
from streams.settings import Settings

# batchEmbedContents refuses more: "at most 100 requests can be in one batch" (400).
MAX_BATCH = 100


class GeminiEmbedder:
    def __init__(self, settings: Settings, client: genai.Client | None = None) -> None:
        self.client = client or make_client(settings)
        self.model, self.dim = settings.embed_model, settings.embedding_dim
        self.policy = RetryPolicy.from_settings(settings)
        self.config = types.EmbedContentConfig(output_dimensionality=self.dim)

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        """One batchEmbedContents call per MAX_BATCH texts (one call for any episode: the
        guards cap its facts at 12, so its entities and facts stay far below 100)."""
        return await embed_in_batches(
            request.texts, MAX_BATCH, lambda chunk: self._batch(chunk, request.purpose)
        )

    async def _batch(self, texts: list[str], purpose: str) -> tuple[list[list[float]], CallRecord]:
        record_request = {
            "model": self.model,
            "purpose": purpose,
            "texts": texts,
            "config": {"output_dimensionality": self.dim, "timeout_s": self.policy.timeout_s},
        }
        started = time.perf_counter()
        try:
            (vectors, summary), attempts = await with_retries(
                lambda: self._attempt(texts),
                self.policy,
                on_error=log_retry("gemini", "embed", self.model),
            )
        except RetriesExhausted as exc:
            failed = embed_failed(
                "gemini", self.model, record_request, texts, purpose, started, exc
            )
            raise failed from exc.error
        record = CallRecord(
            "embed", self.model, record_request, summary, elapsed_ms(started), attempts=attempts
        )
        return vectors, record

    async def _attempt(self, texts: list[str]) -> tuple[list[list[float]], dict[str, Any]]:
        # A list of strings is one batchEmbedContents request, one entry per text.
        response = await self.client.aio.models.embed_content(
            model=self.model, contents=texts, config=self.config
        )
        values = [e.values for e in response.embeddings or []]
        return checked_vectors(values, len(texts), self.dim)
