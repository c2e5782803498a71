"""Shared edges of the resolve and dedup stages: one embedding batch, and output ids."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from streams.events import StageOutput, TenantEvent
from streams.model.ports import CallScope, Embedder, EmbedInput, ModelCallFailed
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
) -> list[list[float]]:
    """One embedding call (none for no texts); its CallRecords are stored either way.

    A failed call propagates as ModelCallFailed: the provider has already retried, and
    the runtime's single error policy (streams.errors.is_transient) decides what follows.
    """
    if not texts:
        return []
    try:
        result = await embedder.embed(EmbedInput(scope=scope, purpose=purpose, texts=texts))
    except ModelCallFailed as exc:
        await record_calls(pool, scope, stage, exc.calls)
        raise
    await record_calls(pool, scope, stage, result.calls)
    if len(result.value) != len(texts):
        raise ModelCallFailed(
            f"embedder returned {len(result.value)} vectors for {len(texts)} texts", []
        )
    return result.value


class EmbeddingStage(ReleasesClaimOnDeadLetter[StageOutputT]):
    """A stage after extraction that embeds one batch per episode (resolve, dedup)."""

    def __init__(self, deps: StageDeps) -> None:
        super().__init__(deps)
        self.embedder: Embedder = deps.models.embedder
        self.tuning: ScanTuning = DEFAULT_TUNING  # the bench sets others

    async def embed(
        self, event: StageOutput, purpose: Literal["entities", "facts"], texts: list[str]
    ) -> list[list[float]]:
        return await embed_batch(
            self.pool, self.embedder, scope_of(event), self.name, purpose, texts
        )
