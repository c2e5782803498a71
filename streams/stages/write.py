"""The write stage: memory.facts.judged → Postgres (seed "Step 5, Write").

A Postgres sink (``output_topic`` None): each judged episode is applied in one
transaction under the tenant's advisory lock, together with the consumed offset, so a
redelivered record is a no-op (see :mod:`streams.store.writer`). A lock timeout is
sqlstate 55P03, which ``errors.is_transient`` sorts as retryable.

Marking the episode done opens the tenant's gate (streams/store/episodes.py), so after
the commit the handler returns a wake-up: the tenant's oldest queued episode, rebuilt
from its ledger row, routed back to episodes.completed, which the runtime's sink mode
produces before it commits the consumed offset. The check runs on the redelivery no-op
path too, so a crash between the database commit and the produce is healed when the
record comes again. A duplicate wake-up is harmless (claim_next finds nothing to start,
and the summarize stage does not redo a done summary).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from prometheus_client import Counter
from pydantic import BaseModel

from streams.events import EpisodeCompleted, FactsJudged
from streams.runtime.stage import RecordContext, Routed, Stage, StageDeps
from streams.stages.embed_batch import embed_batch, scope_of
from streams.stages.release import ReleasesClaimOnDeadLetter, too_large_to_copy
from streams.store.episodes import UnusableRow, end_unpublishable
from streams.store.gate import next_to_release, oldest_queued
from streams.store.writer import VectorsMissing, WriteResult, write_judged

log = logging.getLogger(__name__)
# Unpublishable episodes one write ends before it leaves the rest to the sweep.
_MAX_UNPUBLISHABLE = 20

OUTCOMES = ("inserted", "invalidated", "closed", "cascaded", "dropped_by_recheck")

# Default registry: the worker's /metrics serves it.
FACT_WRITES = Counter(
    "factstream_write_facts",
    "Fact rows changed by the writer, by outcome.",
    ["outcome"],
)
REDELIVERIES = Counter(
    "factstream_write_redeliveries",
    "Judged records the writer skipped because their offset was already applied.",
)


def export(result: WriteResult) -> None:
    if result.redelivered:
        REDELIVERIES.inc()
        return
    for outcome in OUTCOMES:
        FACT_WRITES.labels(outcome=outcome).inc(getattr(result, outcome))


class WriteStage(ReleasesClaimOnDeadLetter[FactsJudged]):
    name = "write"
    input_model: type[BaseModel] = FactsJudged
    # Sound because offsets are recorded per tenant: tenants of one partition write at once.
    lane_by = "key"

    async def handle(self, event: FactsJudged, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        async with self.pool.acquire() as conn:
            try:
                result = await self._write(conn, event, ctx, {})
            except VectorsMissing as missing:  # rolled back: embed what was not staged
                log.warning(
                    "%s; embedding them and writing again", missing,
                    extra={"tenant": event.tenant, "episode_id": event.episode_id},
                )  # fmt: skip
                vectors = await self._embed(event, missing.inserts)
                result = await self._write(conn, event, ctx, vectors)
            # After the commit, on the same connection: the tenant's next queued episode,
            # if nothing is in flight.
            nxt = await self._next_to_wake(conn, event)
        export(result)
        counts = " ".join(f"{outcome}={getattr(result, outcome)}" for outcome in OUTCOMES)
        # The JSON log keeps only known fields, so the counts ride in the message.
        log.info(
            "redelivered record skipped" if result.redelivered else f"written: {counts}",
            extra={"tenant": event.tenant, "episode_id": event.episode_id, "offset": ctx.offset},
        )
        if nxt is None:
            return []
        log.info(
            "waking the next queued episode %s", nxt.episode_id,
            extra={"tenant": event.tenant, "episode_id": event.episode_id},
        )  # fmt: skip
        key = event.tenant
        return [Routed(self.settings.topic("episodes.completed"), nxt, key)]

    async def _write(
        self, conn: Any, event: FactsJudged, ctx: RecordContext, vectors: dict[int, list[float]]
    ) -> WriteResult:
        return await write_judged(
            conn, event, ctx, lock_timeout_ms=self.settings.writer_lock_timeout_ms,
            statement_timeout_ms=self.settings.writer_statement_timeout_ms, vectors=vectors,
        )  # fmt: skip

    async def _embed(self, event: FactsJudged, inserts: Sequence[int]) -> dict[int, list[float]]:
        texts = [event.inserts[i].fact.sentence() for i in inserts]
        vecs = await embed_batch(
            self.pool, self.deps.models.embedder, scope_of(event), self.name, "facts", texts,
            self.settings.embedding_dim,
        )  # fmt: skip
        return dict(zip(inserts, vecs, strict=True))

    async def _next_to_wake(self, conn: Any, event: FactsJudged) -> EpisodeCompleted | None:
        """The tenant's next queued episode, if its copy can be published. One that cannot
        (a ledger row of an older version) ends failed with the reason and the next is
        tried: a wake-up that could not be produced would fail this committed record, and
        leave the tenant's later episodes queued."""
        for _ in range(_MAX_UNPUBLISHABLE):
            key = (event.dataset, event.project_id)
            try:
                nxt = await next_to_release(conn, *key, self.settings.claim_timeout_s)
                why = None if nxt is None else too_large_to_copy(nxt, self.settings)
            except UnusableRow as exc:
                nxt, why = None, str(exc)
                queued = await oldest_queued(conn, *key)
            else:
                queued = None if nxt is None else nxt.episode_id
            if why is None or queued is None:
                return nxt
            log.error("cannot wake episode %s: %s; it ends failed", queued, why,
                      extra={"tenant": event.tenant, "episode_id": queued})  # fmt: skip
            await end_unpublishable(conn, *key, queued, why, self.settings.max_retries)
        return None


def create_stage(deps: StageDeps) -> Stage[FactsJudged]:
    return WriteStage(deps)
