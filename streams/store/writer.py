"""The writer's transaction (seed "Step 5, Write"): one judged episode, all or nothing.

One READ COMMITTED transaction per event. Its first statement takes the tenant's
advisory lock (``pg_advisory_xact_lock(hashtextextended('<dataset>:<project_id>', 0))``,
streams/store/locks.py) and, in the same statement
and before the lock, sets ``lock_timeout`` / ``statement_timeout`` for the transaction, so
the lock wait itself is bounded (a timeout is sqlstate 55P03: transient, retried). Under
the lock, in order:

1. redelivery: the consumed offset is recorded per tenant, in the lock's own statement
   (streams/store/consumed_offsets.py claim_after); an offset already recorded for this
   tenant makes the whole transaction a no-op;
2. race re-check: a staged insert whose triple became current meanwhile (a concurrent
   job), or is stored with the same validity, or was written by this episode before, is
   dropped; an open fact with a start of its own meeting a row said later that gave only
   its end (a cancellation stored before its plan arrived) ends there, or is dropped as
   never true, and that row retires (closed) naming it: as if the two came in order;
3. renewal: a row of the same triple whose valid time already ended is history and stays
   believed; the insert lands beside it (the unique backstop covers open-ended rows only);
4. survivors are inserted (ON CONFLICT DO NOTHING on ``facts_open_unique``), each with
   the episode's ``stated_at``, before the losers are ended, so every ended row can name
   the row that ended it; inside one transaction the order is invisible to readers;
5. losers end at the date the judge gave (superseded), closures at the date the user
   gave (closed), and the cascade ends the facts anchored on an entity whose last user
   link ended, at that link's end (streams/store/valid_ends.py: both clocks are kept);
6. entities that only dropped claims named (stored by resolution, then dropped by dedup,
   the judge or step 2) are deleted when no fact names them: the seed's orphan pruning;
7. the episode's ``semantic_status=done`` is recorded, its drops by the same statement;
   commit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from streams.domain.dedup import EXACT, IN_BATCH
from streams.events import Dropped, DropStage, FactsJudged
from streams.store.consumed_offsets import ConsumedRecord, claim_after
from streams.store.entities import prune_unreferenced
from streams.store.gate import mark_semantic_done, semantic_done
from streams.store.locks import writer_lock
from streams.store.statements import Rider, with_write
from streams.store.write_steps import EpisodeWriter, VectorsMissing, WriteResult

__all__ = ["VectorsMissing", "WriteResult", "write_judged"]

_LOCK = (
    "SELECT set_config('lock_timeout', $2, true), set_config('statement_timeout', $3, true),"
    f" {writer_lock('$1')}, clock_timestamp() AS now"
)
# Per-tenant watermarks (streams/store/consumed_offsets.py), so the write stage runs one
# lane per tenant; claimed in the lock's statement.
_LOCK_AND_CLAIM = claim_after(_LOCK, 3)


async def write_judged(
    conn: Any,
    event: FactsJudged,
    ctx: ConsumedRecord,
    *,
    lock_timeout_ms: int,
    statement_timeout_ms: int,
    vectors: Mapping[int, list[float]] | None = None,
) -> WriteResult:
    """Apply one judged episode in one transaction; a redelivered offset changes nothing.
    ``vectors``: embeddings by insert index, for inserts dedup staged none for."""
    tenant = event.tenant
    async with conn.transaction(isolation="read_committed"):
        # The lock, then (same statement) the consumed offset: moves this tenant's
        # watermark forward, or says the record was already applied.
        row = await conn.fetchrow(
            _LOCK_AND_CLAIM, tenant, f"{lock_timeout_ms}ms", f"{statement_timeout_ms}ms",
            ctx.group, ctx.topic, ctx.partition, ctx.offset, tenant,
        )  # fmt: skip
        now = row["now"]
        if not row["claimed"]:
            return WriteResult(redelivered=True)
        stated_at = event.stated_at or await _completed_at(conn, event) or now
        # Ending the extraction claim lets the tenant's next episode through the gate; it
        # and the drops ride on the insert when there is one.
        writer = EpisodeWriter(
            conn, event, now, stated_at, vectors,
            finish=lambda drops: _finish(event, [*event.dropped, *drops]),
        )  # fmt: skip
        result = await writer.run()
        result.drops += await _prune_orphans(conn, event, result.drops)
        if writer.finished_with is None:
            await mark_semantic_done(
                conn, event.dataset, event.project_id, event.episode_id, event.claim_token,
                record=lambda q, a: _with_drops(q, a, event, [*event.dropped, *result.drops]),
            )  # fmt: skip
        elif late := result.drops[writer.finished_with :]:  # found after the insert
            await conn.execute(_INSERT_DROPS, *_drops_args(event, late))
    return result


# Drops of a claim whose very triple is stored: its entities are that fact's.
_SAME_TRIPLE_STORED = frozenset([EXACT, IN_BATCH])


async def _prune_orphans(
    conn: Any, event: FactsJudged, write_drops: Sequence[Dropped]
) -> list[Dropped]:
    """Entities that only the episode's dropped claims named (dropped after resolution
    stored them: by dedup, the judge or the race re-check) are deleted, each said as a
    drop; one statement, only when such a claim names something."""
    after_resolution = [
        d for d in [*event.dropped, *write_drops]
        if d.stage != DropStage.GUARD and d.reason not in _SAME_TRIPLE_STORED
    ]  # fmt: skip
    names = {n for d in after_resolution for n in (d.subject, d.object) if n}
    pruned = await prune_unreferenced(conn, event.dataset, event.project_id, sorted(names))
    return [
        Dropped(stage=DropStage.WRITE, reason="orphan_entity", subject=name,
                detail=f"entity {name!r} ({kind}) is referenced by no surviving fact: not stored")
        for name, kind in pruned
    ]  # fmt: skip


async def _completed_at(conn: Any, event: FactsJudged) -> datetime | None:
    """When the episode was said, for a judged record from before ``stated_at``."""
    value: datetime | None = await conn.fetchval(
        "SELECT completed_at FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND episode_id = $3",
        event.dataset, event.project_id, event.episode_id,
    )  # fmt: skip
    return value


_INSERT_DROPS = (
    "INSERT INTO fact_drops (dataset, project_id, episode_id, stage, reason, detail, subject,"
    " predicate, object) SELECT $1, $2, $3, d.* FROM unnest($4::text[], $5::text[], $6::text[],"
    " $7::text[], $8::text[], $9::text[]) AS d"
)


def _drops_args(event: FactsJudged, drops: Sequence[Dropped]) -> list[Any]:
    columns = [
        [d.stage.value for d in drops], [d.reason for d in drops], [d.detail for d in drops],
        [d.subject for d in drops], [d.predicate for d in drops], [d.object for d in drops],
    ]  # fmt: skip
    return [event.dataset, event.project_id, event.episode_id, *columns]


def _with_drops(
    query: str, args: list[Any], event: FactsJudged, drops: Sequence[Dropped]
) -> tuple[str, list[Any]]:
    if not drops:
        return query, args
    return with_write(query, args, "stored_drops", _INSERT_DROPS, _drops_args(event, drops))


def _finish(event: FactsJudged, drops: Sequence[Dropped]) -> Rider:
    """The episode's end (its claim, its drops) as writes riding on another statement."""
    done = semantic_done(event.dataset, event.project_id, event.episode_id, event.claim_token)

    def ride(query: str, args: list[Any]) -> tuple[str, list[Any]]:
        return _with_drops(*done(query, args), event, drops)

    return ride
