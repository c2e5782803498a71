"""The episode summary: one summary call and one embedding call, stored on the episode.

Consumes episodes.completed in its own group and writes only the episode row (a
Postgres sink with nothing to publish). Idempotent, so a redelivered record is harmless:
a done summary is not redone (unless the event asks to reprocess), and a summary that
was saved before its embedding failed is only re-embedded (seed "Failure handling").

Every failure counts toward ``max_retries``: a model failure here, anything else (a
database error, a bug, transient errors past the runtime's budget) when the runtime
dead-letters the record (``on_dead_letter``), so the sweep retries an episode a bounded
number of times and never republishes it forever.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from pydantic import BaseModel

from streams.domain.names import strip_unstorable
from streams.errors import ModelError
from streams.events import EpisodeCompleted
from streams.model.ports import CallRecord, CallScope, EmbedInput, Models, SummarizeInput
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.stages.base import PipelineStage
from streams.stages.embed_batch import unusable_vectors
from streams.stages.release import RELEASE_HEADERS
from streams.store import episodes
from streams.store.llm_calls import record_calls, with_calls

log = logging.getLogger(__name__)

STAGE = "summarize"


class SummarizeStage(PipelineStage[EpisodeCompleted]):
    name = STAGE
    input_model: type[BaseModel] = EpisodeCompleted
    # No consumed-offsets watermark to keep (the ledger makes it idempotent), so tenants
    # of one partition are summarised concurrently, not one partition at a time.
    lane_by = "key"
    delivery_headers = RELEASE_HEADERS

    async def handle(self, event: EpisodeCompleted, ctx: RecordContext) -> Sequence[BaseModel]:
        pool, models = self.deps.pool, self.deps.models
        key = (event.dataset, event.project_id, event.episode_id)
        scope = CallScope(dataset=key[0], project_id=key[1], episode_id=key[2])
        async with pool.acquire() as conn:
            state = await episodes.upsert_episode(conn, event)
        if state.completed_at is not None and event.completed_at < state.completed_at:
            log.info(
                "summarize: episode %s of %s: a version older than the one stored; nothing"
                " changes", key[2], event.tenant,
            )  # fmt: skip
            return []
        if state.status in ("done", "skipped") and not event.reprocess:
            log.info("summarize: episode %s of %s already %s", key[2], event.tenant, state.status)
            return []
        cap = self.deps.settings.max_retries
        if state.status == "failed" and state.retry_count >= cap and not event.reprocess:
            # Seed: retried up to maxRetries. The event comes back for extraction's sake
            # (wake-ups, the sweep), not to summarise again.
            log.info("summarize: episode %s of %s failed %d times; not retried",
                     key[2], event.tenant, state.retry_count)  # fmt: skip
            return []
        messages = event.window_messages()
        if not messages:
            async with pool.acquire() as conn:
                await episodes.mark_summary_skipped(conn, *key, event.why_empty())
            return []

        # Both model calls first, then one transaction stores their calls and the outcome.
        calls: list[CallRecord] = []
        kept = None if event.reprocess else state.summary
        summary = kept
        if summary is None:
            summary, error = await self._summarize(event, scope, models, calls)
            if summary is None:
                await self._store(scope, calls, error=error)
                return []
        else:
            log.info(
                "summarize: episode %s of %s: summary kept, re-embedding", key[2], event.tenant
            )
        try:
            vector, error = await self._embed(scope, models, summary, calls)
        except Exception:
            # Not a model failure: a transient error from a provider of the user's own
            # (retried by the runtime) or a bug. Keep the fresh summary and its call, so
            # the retry only re-embeds instead of asking for the summary again; but not
            # over a done episode's summary and embedding when reprocessing.
            if kept is None and not event.reprocess:
                await self._keep_summary(scope, calls, summary)
            raise
        # A new summary is saved even when its embedding failed, so a retry only re-embeds.
        await self._store(scope, calls, summary=None if kept else summary, vector=vector,
                          error=error)  # fmt: skip
        if vector is not None:
            log.info("summarize: episode %s of %s done", key[2], event.tenant)
        return []

    async def on_dead_letter(
        self, event: EpisodeCompleted, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[BaseModel]:
        """The record is dead-lettered: count the failed summary (the sweep retries it
        under the cap)."""
        async with self.deps.pool.acquire() as conn:
            counted = await episodes.count_summary_failure(
                conn, event.dataset, event.project_id, event.episode_id,
                f"dead-lettered ({reason}): {error}",
            )  # fmt: skip
        if counted is not None:
            log.warning("summarize: episode %s of %s failed (%d of %d retries used): %s",
                        event.episode_id, event.tenant, counted, self.deps.settings.max_retries,
                        error)  # fmt: skip
        return []

    async def _summarize(
        self, event: EpisodeCompleted, scope: CallScope, models: Models, calls: list[CallRecord]
    ) -> tuple[str | None, str]:
        """The summary call: the summary, or None and why."""
        request = SummarizeInput(scope=scope, messages=event.window_messages())
        try:
            result = await models.summarizer.summarize(request)
        except ModelError as exc:
            calls += getattr(exc, "calls", [])
            return None, f"summarisation failed: {exc}"
        calls += result.calls
        # NUL cannot be stored (nor unpaired surrogates): what is left is the summary.
        summary = strip_unstorable(result.value.summary).strip()
        return (summary, "") if summary else (None, "summarisation returned nothing")

    async def _embed(
        self, scope: CallScope, models: Models, summary: str, calls: list[CallRecord]
    ) -> tuple[list[float] | None, str]:
        """The summary's embedding call: the vector, or None and why."""
        request = EmbedInput(scope=scope, purpose="summary", texts=[summary])
        try:
            result = await models.embedder.embed(request)
        except ModelError as exc:
            calls += getattr(exc, "calls", [])
            return None, f"embedding failed: {exc}"
        calls += result.calls
        vectors = result.value
        problem = unusable_vectors(vectors, 1, self.deps.settings.embedding_dim)
        if problem is not None:
            return None, f"embedding failed: the embedder returned {problem}"
        return vectors[0], ""

    async def _keep_summary(
        self, scope: CallScope, calls: Sequence[CallRecord], summary: str
    ) -> None:
        try:
            async with self.deps.pool.acquire() as conn, conn.transaction():
                await record_calls(conn, scope, STAGE, calls)
                await episodes.save_summary(conn, scope.dataset, scope.project_id,
                                            scope.episode_id, summary)  # fmt: skip
        except Exception:  # the embedding's error is the one to report; this only saves
            log.exception("summarize: could not keep the summary of %s", scope.episode_id)

    async def _store(
        self,
        scope: CallScope,
        calls: Sequence[CallRecord],
        *,
        summary: str | None = None,
        vector: list[float] | None = None,
        error: str = "",
    ) -> None:
        key = (scope.dataset, scope.project_id, scope.episode_id)
        if vector is not None:  # done: one statement stores the calls and the outcome
            async with self.deps.pool.acquire() as conn:
                await episodes.save_summary_embedding(
                    conn, *key, vector, summary=summary,
                    record=lambda q, a: with_calls(q, a, scope, STAGE, calls),
                )  # fmt: skip
            return
        async with self.deps.pool.acquire() as conn, conn.transaction():
            await record_calls(conn, scope, STAGE, calls)
            if summary is not None:
                await episodes.save_summary(conn, *key, summary)
            await episodes.mark_summary_failed(conn, *key, error)
        log.warning("summarize: episode %s of %s:%s: %s", key[2], key[0], key[1], error)


def create_stage(deps: StageDeps) -> Stage[EpisodeCompleted]:
    return SummarizeStage(deps)
