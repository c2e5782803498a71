"""The episode summary: one summary call and one embedding call, stored on the episode.

Consumes episodes.completed in its own group and writes only the episode row (a
Postgres sink with nothing to publish). Idempotent, so a redelivered record is harmless:
a done summary is not redone (unless the event asks to reprocess), and a summary that
was saved before its embedding failed is only re-embedded (seed "Failure handling").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel

from streams.errors import ModelError
from streams.events import EpisodeCompleted
from streams.model.ports import CallRecord, CallScope, EmbedInput, Models, SummarizeInput
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.store import episodes
from streams.store.llm_calls import record_calls

log = logging.getLogger(__name__)

STAGE = "summarize"


class SummarizeStage:
    name = STAGE
    input_model: type[BaseModel] = EpisodeCompleted
    # No consumed-offsets watermark to keep (the ledger makes it idempotent), so tenants
    # of one partition are summarised concurrently, not one partition at a time.
    lane_by = "key"

    def __init__(self, deps: StageDeps) -> None:
        self.deps = deps
        self.input_topic: str = deps.settings.topic("episodes.completed")
        self.output_topic: str | None = None

    async def handle(self, event: EpisodeCompleted, ctx: RecordContext) -> Sequence[BaseModel]:
        pool, models = self.deps.pool, self.deps.models
        key = (event.dataset, event.project_id, event.episode_id)
        scope = CallScope(dataset=key[0], project_id=key[1], episode_id=key[2])
        async with pool.acquire() as conn:
            await episodes.upsert_episode(conn, event)
            state = await episodes.summary_state(conn, *key)
        if state is None:  # the upsert just made it; only a concurrent delete gets here
            raise RuntimeError(f"episode {key} vanished after its upsert")
        if state.status in ("done", "skipped") and not event.reprocess:
            log.info("summarize: episode %s of %s already %s", key[2], event.tenant, state.status)
            return []
        messages = event.window_messages()
        if not messages:
            async with pool.acquire() as conn:
                await episodes.mark_summary_skipped(conn, *key, "no messages in the window")
            return []

        summary = None if event.reprocess else state.summary
        if summary is None:
            summary = await self._summarize(event, scope, models)
            if summary is None:
                return []
        else:
            log.info(
                "summarize: episode %s of %s: summary kept, re-embedding", key[2], event.tenant
            )
        await self._embed(event, scope, models, summary)
        return []

    async def _summarize(
        self, event: EpisodeCompleted, scope: CallScope, models: Models
    ) -> str | None:
        """The summary call; the saved summary, or None when it failed (and was counted)."""
        key = (event.dataset, event.project_id, event.episode_id)
        request = SummarizeInput(scope=scope, messages=event.window_messages())
        try:
            result = await models.summarizer.summarize(request)
        except ModelError as exc:
            await self._failed(scope, getattr(exc, "calls", []), f"summarisation failed: {exc}")
            return None
        summary = result.value.summary.strip()
        async with self.deps.pool.acquire() as conn, conn.transaction():
            await record_calls(conn, scope, STAGE, result.calls)
            if not summary:
                await episodes.mark_summary_failed(conn, *key, "summarisation returned nothing")
                return None
            await episodes.save_summary(conn, *key, summary)
        return summary

    async def _embed(
        self, event: EpisodeCompleted, scope: CallScope, models: Models, summary: str
    ) -> None:
        key = (event.dataset, event.project_id, event.episode_id)
        request = EmbedInput(scope=scope, purpose="summary", texts=[summary])
        try:
            result = await models.embedder.embed(request)
        except ModelError as exc:
            await self._failed(scope, getattr(exc, "calls", []), f"embedding failed: {exc}")
            return
        vectors, dim = result.value, self.deps.settings.embedding_dim
        async with self.deps.pool.acquire() as conn, conn.transaction():
            await record_calls(conn, scope, STAGE, result.calls)
            if len(vectors) != 1 or len(vectors[0]) != dim:
                shape = f"{len(vectors)} vectors of {[len(v) for v in vectors][:3]}"
                await episodes.mark_summary_failed(
                    conn, *key, f"embedding failed: expected 1 vector of {dim}, got {shape}"
                )
                return
            await episodes.save_summary_embedding(conn, *key, vectors[0])
        log.info("summarize: episode %s of %s done", key[2], event.tenant)

    async def _failed(self, scope: CallScope, calls: Sequence[CallRecord], error: str) -> None:
        async with self.deps.pool.acquire() as conn, conn.transaction():
            await record_calls(conn, scope, STAGE, calls)
            await episodes.mark_summary_failed(
                conn, scope.dataset, scope.project_id, scope.episode_id, error
            )
        log.warning(
            "summarize: episode %s of %s:%s: %s",
            scope.episode_id, scope.dataset, scope.project_id, error,
        )  # fmt: skip


def create_stage(deps: StageDeps) -> Stage[EpisodeCompleted]:
    return SummarizeStage(deps)
