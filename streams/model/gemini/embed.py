"""The Gemini embedder: batchEmbedContents calls of at most 100 texts, the database's dimension.

gemini-embedding-001 only normalises its full 3072-dim output; truncated vectors
(output_dimensionality < 3072) are not unit length, so they are normalised here. Cosine
distance does not care, but inner-product consumers and tests comparing vectors do.
"""

from __future__ import annotations

import time

from google import genai
from google.genai import types

from streams.model.calls import describe_error, elapsed_ms, embed_in_batches, log_retry, unit
from streams.model.gemini.llm import make_client
from streams.model.ports import CallRecord, EmbedInput, ModelCallFailed, ModelResult
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
            # A list of strings is one batchEmbedContents request, one entry per text.
            response, attempts = await with_retries(
                lambda: self.client.aio.models.embed_content(
                    model=self.model, contents=texts, config=self.config
                ),
                self.policy,
                on_error=log_retry("gemini", "embed", self.model),
            )
        except RetriesExhausted as exc:
            record = CallRecord(
                "embed",
                self.model,
                record_request,
                None,
                elapsed_ms(started),
                attempts=exc.attempts,
                error=describe_error(exc.error),
            )
            raise ModelCallFailed(
                f"gemini embed call ({self.model}, {len(texts)} {purpose} texts)"
                f" failed after {exc.attempts} attempt(s): {describe_error(exc.error)}",
                [record],
            ) from exc.error

        vectors = [list(e.values or []) for e in response.embeddings or []]
        dims = sorted({len(v) for v in vectors})
        error = None
        if len(vectors) != len(texts):
            error = f"asked for {len(texts)} embeddings, got {len(vectors)}"
        elif dims != [self.dim]:
            error = f"asked for dimension {self.dim}, got {dims}"
        summary = {"count": len(vectors), "dims": dims}
        if error is not None:
            record = CallRecord(
                "embed",
                self.model,
                record_request,
                summary,
                elapsed_ms(started),
                attempts=attempts,
                error=error,
            )
            raise ModelCallFailed(f"gemini embed call ({self.model}): {error}", [record])
        record = CallRecord(
            "embed", self.model, record_request, summary, elapsed_ms(started), attempts=attempts
        )
        return [unit(v) for v in vectors], record
