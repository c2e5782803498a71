"""Shared edges of the resolve and dedup stages: one embedding batch, and output ids."""

from __future__ import annotations

import math
import uuid
from typing import Any, Literal

from streams.events import StageOutput, TenantEvent
from streams.model.ports import CallRecord, CallScope, Embedder, EmbedInput, ModelCallFailed
from streams.runtime.stage import StageDeps
from streams.stages.release import ReleasesClaimOnDeadLetter, StageOutputT
from streams.store.llm_calls import record_calls
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning

_EVENT_NS = uuid.UUID("3f6f1c2e-9d7a-4a53-b1f1-5d0c6a1e7b21")


def derived_event_id(stage: str, source: TenantEvent) -> str:
    """A deterministic id for a stage's output: a redelivered input yields the same id."""
    return str(uuid.uuid5(_EVENT_NS, f"{stage}:{source.event_id}"))


def scope_of(event: TenantEvent) -> CallScope:
    return CallScope(
        dataset=event.dataset, project_id=event.project_id, episode_id=event.episode_id
    )


async def embed_batch(
    pool: Any,
    embedder: Embedder,
    scope: CallScope,
    stage: str,
    purpose: Literal["summary", "entities", "facts"],
    texts: list[str],
    dim: int,
    deferred: list[CallRecord] | None = None,
) -> list[list[float]]:
    """One embedding call (none for no texts); its CallRecords are stored either way.

    A failed call propagates as ModelCallFailed: the provider has already retried, and
    the runtime's single error policy (streams.errors.is_transient) decides what follows.
    A vector of another dimension than ``dim``, with a value that is not finite, or of
    zeros only fails
    the same way whatever embedder answered: it is never stored. ``deferred``: a
    successful call's records go there instead, for the caller's next statement to store
    (streams/store/llm_calls.py with_calls); a failed call's are stored at once.
    """
    if not texts:
        return []
    try:
        result = await embedder.embed(EmbedInput(scope=scope, purpose=purpose, texts=texts))
    except ModelCallFailed as exc:
        await record_calls(pool, scope, stage, exc.calls)
        raise
    problem = unusable_vectors(result.value, len(texts), dim)
    if deferred is not None and problem is None:
        deferred.extend(result.calls)
        return result.value
    await record_calls(pool, scope, stage, result.calls)
    if problem is not None:
        raise ModelCallFailed(f"embedder returned {problem}", [])
    return result.value


def unusable_vectors(vectors: list[list[float]], count: int, dim: int) -> str | None:
    """Why an embedder's answer cannot be stored (None: it can)."""
    if len(vectors) != count:
        return f"{len(vectors)} vectors for {count} texts"
    bad = [i for i, v in enumerate(vectors) if len(v) != dim or not all(map(math.isfinite, v))]
    if bad:
        return (
            f"vectors {bad[:10]} of another dimension than {dim} or with values that are"
            " not finite numbers"
        )
    zeros = [i for i, v in enumerate(vectors) if not any(v)]
    if zeros:
        return f"vectors {zeros[:10]} of zeros only"
    return None


class EmbeddingStage(ReleasesClaimOnDeadLetter[StageOutputT]):
    """A stage after extraction that embeds one batch per episode (resolve, dedup)."""

    def __init__(self, deps: StageDeps) -> None:
        super().__init__(deps)
        self.embedder: Embedder = deps.models.embedder
        self.tuning: ScanTuning = DEFAULT_TUNING  # the bench sets others

    async def embed(
        self, event: StageOutput, purpose: Literal["entities", "facts"], texts: list[str],
        deferred: list[CallRecord] | None = None,
    ) -> list[list[float]]:  # fmt: skip
        return await embed_batch(
            self.pool, self.embedder, scope_of(event), self.name, purpose, texts,
            self.settings.embedding_dim, deferred,
        )  # fmt: skip
