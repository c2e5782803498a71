"""Stage 1, graph extraction (seed "Step 1" and "Post-processing").

episodes.completed → facts.extracted. Per record: park the episode in its tenant's queue
(the ledger row, ``queued``), then start the tenant's oldest queued episode if none of
its episodes is in flight (``claim_next``, the per-tenant gate): load what the tenant
already holds (a newer version of an episode first takes back what it no longer states:
streams/stages/versions.py), ONE extractor call over the raw messages of the window, store the call
trace, apply the claim guards and the quote check, and publish the guarded graph (the
user's world is decided by the resolve stage, on resolved names). The started episode
may be another one than the record's (an older one of the same tenant), and a record
whose episode must wait publishes nothing: the handler never waits at the gate, so other
tenants' records and offsets are never held behind a tenant's burst. An episode that is
skipped (empty window) or whose model call fails past its retry cap ends at once and the
next queued one starts in the same call; any other error dead-letters the record, whose
release (below) runs the episode again in its place. A started episode stays
``processing`` until the writer marks it done; the writer then wakes the tenant's next
queued episode (a copy on episodes.completed). A copy that carries a *release*
(streams/stages/release.py: one of the episode's records was dead-lettered on the way)
first ends that claim as a failed extraction: under the retry cap the episode is queued
again in its place and started again here, at the cap it ends.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import uuid
from collections.abc import Awaitable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from streams.backoff import Backoff
from streams.domain.drops import bound_dropped
from streams.domain.graph import RawGraph
from streams.domain.guards import guard_claims
from streams.domain.names import canonical_name
from streams.domain.quotes import check_quotes
from streams.errors import ModelError, is_transient
from streams.events import EpisodeCompleted, FactsExtracted
from streams.model.ports import CallScope, ExtractInput, ModelResult, Models
from streams.runtime.stage import RecordContext, Routed, Stage, StageDeps
from streams.settings import Settings
from streams.stages.base import PipelineStage
from streams.stages.release import RELEASE_HEADERS, Release, release_of, release_record
from streams.stages.versions import prompt_context
from streams.store import claims, episodes, gate
from streams.store.context import load_entity_types
from streams.store.llm_calls import record_calls, with_calls

log = logging.getLogger(__name__)

STAGE = "extract"
# A hostile answer could name thousands of things; the guards need only a graph's worth.
_MAX_LOOKUP_NAMES = 1000


def mentioned_names(raw: RawGraph) -> set[str]:
    """Every name a raw graph mentions, canonicalised: what the guards ask the store about."""
    names = {canonical_name(e.name) for e in raw.entities}
    for c in [*raw.relationships, *raw.literalFacts]:
        names |= {canonical_name(c.subject), canonical_name(c.object)}
    names.discard("")
    return set(sorted(names)[:_MAX_LOOKUP_NAMES])


def episode_retry_backoff(settings: Settings, outage: bool) -> Backoff:
    """The wait between an extraction's retries under the episode's retry cap. After a
    provider that stayed down through its own retries (``outage``) it is long, so the few
    retries span an outage of a minute or more, not a few seconds."""
    if outage:
        return Backoff(settings.llm_backoff_max_s, settings.transient_min_retry_s, jitter=False)
    return Backoff(settings.llm_backoff_base_s, settings.llm_backoff_max_s)


class ExtractStage(PipelineStage[EpisodeCompleted]):
    name = STAGE
    input_model: type[BaseModel] = EpisodeCompleted
    delivery_headers = RELEASE_HEADERS

    async def handle(self, event: EpisodeCompleted, ctx: RecordContext) -> Sequence[BaseModel]:
        pool = self.deps.pool
        release = release_of(ctx)
        status = None
        if release is not None:
            status = await self._end_released(event, release)
        async with pool.acquire() as conn:
            if status is None:
                enqueued = await episodes.enqueue_episode(
                    conn, event, self.deps.settings.max_retries
                )
                status = enqueued.status
                if enqueued.older_resend_of(event):
                    log.info(
                        "extract: episode %s of %s re-sent in a version (completed %s) no"
                        " newer than the one stored (completed %s): nothing changes",
                        *_ids(event), event.completed_at.isoformat(),
                        enqueued.stored_completed_at.isoformat(),
                    )  # fmt: skip
            claimed = await self._claim_next(conn, event, ctx)
        started = 0
        while claimed is not None:
            started += 1
            out = await self._run_claimed(*claimed, ctx)
            if out:
                return out  # in flight now: the writer wakes the next one
            # Skipped or failed: the gate is open again, start the tenant's next episode.
            async with pool.acquire() as conn:
                claimed = await self._claim_next(conn, event, ctx)
        if not started:
            log.info(
                "extract: episode %s of %s is %s; nothing to start now (the tenant"
                " has an episode in flight, or nothing queued)", *_ids(event), status,
            )  # fmt: skip
        return []

    async def on_dead_letter(
        self, event: EpisodeCompleted, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[Routed]:
        """This record failed for good (an error past the runtime's retries) or its output
        was refused (too large): release the claim it took, as the later stages do."""
        async with self.deps.pool.acquire() as conn:
            found = await claims.claim_of_record(
                conn, event.dataset, event.project_id, self.deps.worker_id, _record(ctx)
            )
        if found is None:
            return []
        claimed, token = found
        why = f"dead-lettered by {STAGE} ({reason}): {error}"
        return [release_record(self.deps.settings, claimed, Release(token, why))]

    async def _end_released(self, event: EpisodeCompleted, release: Release) -> str | None:
        """End the claim a release names and return the episode's status: ``queued`` under
        the retry cap (it keeps its place and, after a backoff, is started again below),
        ``failed`` at the cap. None when the release names no live claim of this episode
        (ended already, taken over, or never one): then the record is an ordinary
        episode, queued as any other, never left waiting for a claim timeout."""
        settings = self.deps.settings
        async with self.deps.pool.acquire() as conn:
            used = await claims.release_dead_lettered(
                conn, *_key(event), release.token, release.reason, settings.max_retries
            )
        if used is None:
            log.info("extract: episode %s of %s carries a release of no live claim; handled"
                     " as an ordinary episode", *_ids(event))  # fmt: skip
            return None
        if used >= settings.max_retries:
            log.warning("extract: episode %s of %s failed (claim released, retries used):"
                        " %s", *_ids(event), release.reason)  # fmt: skip
            return "failed"
        log.warning("extract: episode %s of %s released for retry %d of %d, in its place: %s",
                    *_ids(event), used, settings.max_retries, release.reason)  # fmt: skip
        await asyncio.sleep(episode_retry_backoff(settings, outage=False).delay(used))
        return "queued"

    async def _claim_next(
        self, conn: Any, event: EpisodeCompleted, ctx: RecordContext
    ) -> tuple[EpisodeCompleted, str] | None:
        token = uuid.uuid4().hex  # names this claim on every event of the episode
        claimed = await gate.claim_next(
            conn, event.dataset, event.project_id, self.deps.worker_id,
            self.deps.settings.claim_timeout_s, record=_record(ctx), token=token,
        )  # fmt: skip
        return None if claimed is None else (claimed, token)

    async def _run_claimed(
        self, claimed: EpisodeCompleted, token: str, ctx: RecordContext
    ) -> Sequence[BaseModel]:
        scope = CallScope(
            dataset=claimed.dataset, project_id=claimed.project_id, episode_id=claimed.episode_id
        )
        try:
            return await self._extract(claimed, token, scope)
        except asyncio.CancelledError:
            # Shutdown or rebalance: hand the episode back now rather than leave a claim
            # that holds the tenant's gate until it goes stale.
            await _best_effort(self._release(claimed), "release the claim")
            raise
        except Exception as exc:
            if is_transient(exc) and not ctx.final_attempt:
                # The runtime retries this record, whose claim_next takes it again first.
                await _best_effort(self._release(claimed), "release the claim")
            # Else the runtime dead-letters the record next, and on_dead_letter releases
            # the claim with it: under the retry cap the episode runs again in its place.
            raise

    async def _call_model(
        self, event: EpisodeCompleted, request: ExtractInput
    ) -> ModelResult[RawGraph] | None:
        """The extraction call, retried in place under the episode's retry cap: the claim
        is kept meanwhile, so the tenant's later episodes wait for this one (in order)
        instead of overtaking it. None when it failed for good or the claim was lost."""
        settings, pool, worker = self.deps.settings, self.deps.pool, self.deps.worker_id
        models: Models = self.deps.models
        for attempt in itertools.count(1):
            try:
                return await models.extractor.extract(request)
            except ModelError as exc:  # after the provider's own retries
                async with pool.acquire() as conn, conn.transaction():
                    await record_calls(conn, request.scope, STAGE, getattr(exc, "calls", []))
                    used = await gate.count_extraction_failure(
                        conn, event, worker, str(exc), settings.max_retries
                    )
                left = None if used is None else settings.max_retries - used
                log.warning(
                    "extract: episode %s of %s failed (%s): %s", *_ids(event),
                    "claim lost" if left is None
                    else f"retry {used} of {settings.max_retries}" if left > 0 else "failed",
                    exc,
                )  # fmt: skip
                if left is None or left <= 0:
                    return None
                await asyncio.sleep(episode_retry_backoff(settings, exc.outage).delay(attempt))
        raise AssertionError("unreachable")

    async def _release(self, event: EpisodeCompleted) -> None:
        async with self.deps.pool.acquire() as conn:
            await gate.release_claim(conn, event, self.deps.worker_id)

    async def _extract(
        self, event: EpisodeCompleted, token: str, scope: CallScope
    ) -> Sequence[BaseModel]:
        """The claimed part: skip an empty window, or call the model once and guard."""
        settings, pool = self.deps.settings, self.deps.pool
        messages = event.window_messages()
        if not messages:
            # A newer version with nothing left in its window takes back all it said.
            await prompt_context(self.deps, event)
            async with pool.acquire() as conn:
                await gate.mark_semantic_skipped(conn, *_key(event), event.why_empty())
            log.info("extract: episode %s of %s skipped: empty window", *_ids(event))
            return []

        context = await prompt_context(self.deps, event)  # a newer version takes back
        request = ExtractInput(
            scope=scope,
            messages=messages,
            known_entities=context.entity_names,
            recent_facts=context.recent_facts,
            reference_time=event.completed_at,
        )
        result = await self._call_model(event, request)
        if result is None:
            return []

        async with pool.acquire() as conn:  # the call's records ride on the lookup
            types = await load_entity_types(
                conn, event.dataset, event.project_id, mentioned_names(result.value),
                record=lambda q, a: with_calls(q, a, scope, STAGE, result.calls),
            )  # fmt: skip
        entities, guarded, dropped = guard_claims(result.value, types, settings)
        # The user's world (allow-list, cap, orphans) is decided after resolution.
        facts = [c.to_fact() for c in check_quotes(guarded, messages)]
        dropped = bound_dropped(dropped)
        log.info(
            "extract: episode %s of %s: %d claims (%d untrusted), %d entities, %d dropped by"
            " guards", *_ids(event), len(facts), sum(f.untrusted is not None for f in facts),
            len(entities), len(dropped),
        )  # fmt: skip
        # Published even when empty: the writer must still mark the episode done. A
        # publisher's clock a few minutes ahead (events.MAX_CLOCK_SKEW) must not make the
        # statement newer than what is said after it, nor true only later: it was said
        # by now at the latest.
        stated_at = min(event.completed_at, datetime.now(UTC))
        graph = FactsExtracted(
            dataset=event.dataset, project_id=event.project_id, episode_id=event.episode_id,
            source_event_id=event.event_id, claim_token=token, stated_at=stated_at,
            entities=entities, facts=facts, dropped=dropped,
        )  # fmt: skip
        return [graph]


async def _best_effort(work: Awaitable[None], what: str) -> None:
    """Ledger bookkeeping on the way out of a failing handler: never masks the error."""
    try:
        async with asyncio.timeout(5.0):
            await asyncio.shield(work)
    except Exception as exc:  # the original error is what the caller must see
        log.warning("extract: could not %s: %r", what, exc)


def _record(ctx: RecordContext) -> str:
    return f"{ctx.topic}/{ctx.partition}/{ctx.offset}"


def _key(event: EpisodeCompleted) -> tuple[str, str, str]:
    return event.dataset, event.project_id, event.episode_id


def _ids(event: EpisodeCompleted) -> tuple[str, str]:
    return event.episode_id, event.tenant


def create_stage(deps: StageDeps) -> Stage[EpisodeCompleted]:
    return ExtractStage(deps)
