"""An optional local embedder on sentence-transformers (the ``local-embeddings`` extra).

Use it with ``FACTSTREAM_MODEL_PROVIDER=streams.model.local_embedder:local_embedding_models``:
Gemini still extracts, judges and summarises; embeddings are computed on this machine.
``FACTSTREAM_EMBED_MODEL`` names the sentence-transformers model (a Gemini model name falls
back to ``all-mpnet-base-v2``, 768 dimensions like the default ``embedding_dim``). The
vectors must have the database's dimension; Matryoshka models are truncated to it.
The thresholds (0.88, 0.95, 0.80) were set for Gemini embeddings: re-tune them per model.
"""

from __future__ import annotations

import asyncio
import importlib
import math
import time
from typing import Any

from streams.model.ports import CallRecord, EmbedInput, ModelCallFailed, ModelResult, Models
from streams.settings import Settings

DEFAULT_MODEL = "sentence-transformers/all-mpnet-base-v2"


def _unit(values: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values] if norm > 0 else values


class LocalEmbedder:
    """Embeds a batch in a worker thread; the model loads on first use."""

    def __init__(self, model_name: str, dim: int, device: str | None = None) -> None:
        self.model_name, self.dim, self.device = model_name, dim, device
        self._model: Any = None
        self._lock = asyncio.Lock()

    def _load(self) -> Any:
        try:
            # Imported lazily and by name: the extra is optional, heavy (torch) and untyped.
            module = importlib.import_module("sentence_transformers")
        except ImportError as exc:
            raise ModelCallFailed(
                "the local embedder needs sentence-transformers:"
                " pip install 'factstream[local-embeddings]'",
                [],
            ) from exc
        return module.SentenceTransformer(
            self.model_name, device=self.device, truncate_dim=self.dim
        )

    def _encode(self, texts: list[str]) -> list[list[float]]:
        if self._model is None:
            self._model = self._load()
        vectors = self._model.encode(texts, convert_to_numpy=True, normalize_embeddings=True)
        return [_unit([float(x) for x in v]) for v in vectors]

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        if not request.texts:
            return ModelResult([], [])
        texts = list(request.texts)
        record_request = {
            "model": self.model_name,
            "purpose": request.purpose,
            "texts": texts,
            "config": {"dimension": self.dim},
        }
        started = time.perf_counter()
        error: str | None = None
        vectors: list[list[float]] = []
        try:
            async with self._lock:  # one encode at a time: the model is not re-entrant
                vectors = await asyncio.to_thread(self._encode, texts)
        except ModelCallFailed:
            raise
        except Exception as exc:  # model download or inference failure
            error = f"{type(exc).__name__}: {exc}"
        dims = sorted({len(v) for v in vectors})
        if error is None and dims != [self.dim]:
            error = f"asked for dimension {self.dim}, got {dims}"
        record = CallRecord(
            "embed",
            self.model_name,
            record_request,
            None if error else {"count": len(vectors), "dims": dims},
            (time.perf_counter() - started) * 1000,
            error=error,
        )
        if error is not None:
            raise ModelCallFailed(f"local embed call ({self.model_name}): {error}", [record])
        return ModelResult(vectors, [record])


def local_embedder(settings: Settings) -> LocalEmbedder:
    name = settings.embed_model
    if name.startswith("gemini"):
        name = DEFAULT_MODEL
    return LocalEmbedder(name, settings.embedding_dim)


def local_embedding_models(settings: Settings) -> Models:
    """A ``package.module:factory`` provider: Gemini for the LLM calls, local embeddings."""
    from streams.model.loader import gemini_models

    models = gemini_models(settings)
    models.embedder = local_embedder(settings)
    return models
