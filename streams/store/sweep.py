"""The sweep's statements: its lock, and the episodes a pass republishes or ends failed.

What each kind means is in streams/ops/sweep.py. Everything one pass changes in the
ledger happens in one transaction here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streams.store.episodes import EPISODE_COLUMNS

SWEEPER_LOCK_KEY = 0x73776565  # "swee"
# What episode_from_row reads, plus what the sweep reports on.
_ROW = f"{EPISODE_COLUMNS}, status, semantic_status, retry_count, semantic_retry_count"


async def try_sweeper_lock(conn: Any) -> bool:
    """The session lock of the one active sweeper of a database."""
    return bool(await conn.fetchval("SELECT pg_try_advisory_lock($1)", SWEEPER_LOCK_KEY))


@dataclass
class DueEpisodes:
    ended: list[Any]  # orphans past the retry cap, now failed
    orphans: list[Any]  # stale claims, back in their queue
    retry: list[Any]  # failed under the cap, or pending past the claim timeout
    parked: list[Any]  # a tenant's oldest queued episode with nothing in flight


async def take_due_episodes(
    conn: Any, *, claim_timeout_s: float, max_retries: int, sweep_interval_s: float
) -> DueEpisodes:
    """End orphans past the cap, re-queue the others, and read what is due; what is
    returned for republishing is touched (updated_at) so the next pass waits for it."""
    async with conn.transaction():
        # Orphans past the cap end failed; the rest count one more try and go again.
        ended = await conn.fetch(
            "UPDATE episodes SET semantic_status = 'failed', claimed_at = NULL, claimed_by = NULL,"
            " semantic_retry_count = semantic_retry_count + 1, updated_at = now(),"
            " semantic_last_error = coalesce(semantic_last_error || '; ', '')"
            "   || 'claim expired: the worker died or hung'"
            " WHERE semantic_status = 'processing'"
            "   AND claimed_at < now() - make_interval(secs => $1)"
            "   AND semantic_retry_count + 1 >= $2"
            " RETURNING dataset, project_id, episode_id",
            claim_timeout_s,
            max_retries,
        )
        orphans = await conn.fetch(
            "UPDATE episodes SET semantic_retry_count = semantic_retry_count + 1,"
            # Back to the queue, not 'pending': claim_next starts the oldest queued episode,
            # so the orphan keeps its place ahead of the tenant's later episodes.
            " claimed_at = NULL, claimed_by = NULL, semantic_status = 'queued', updated_at = now()"
            " WHERE semantic_status = 'processing'"
            "   AND claimed_at < now() - make_interval(secs => $1)"
            f" RETURNING {_ROW}",
            claim_timeout_s,
        )
        retry = await conn.fetch(
            f"SELECT {_ROW} FROM episodes"
            " WHERE (semantic_status = 'failed' AND semantic_retry_count < $2)"
            "    OR (status = 'failed' AND retry_count < $2)"
            "    OR ((semantic_status = 'pending' OR status = 'pending')"
            "        AND updated_at < now() - make_interval(secs => $1))"
            " ORDER BY dataset, project_id, from_seq, completed_at",
            claim_timeout_s,
            max_retries,
        )
        parked = await conn.fetch(
            f"SELECT * FROM (SELECT DISTINCT ON (dataset, project_id) {_ROW}, updated_at"
            " FROM episodes q WHERE semantic_status = 'queued' AND NOT EXISTS ("
            "   SELECT 1 FROM episodes p WHERE p.dataset = q.dataset"
            "   AND p.project_id = q.project_id AND p.semantic_status = 'processing'"
            "   AND p.claimed_at >= now() - make_interval(secs => $1))"
            " ORDER BY dataset, project_id, arrival_seq) oldest"
            " WHERE updated_at < now() - make_interval(secs => $2)",
            claim_timeout_s,
            sweep_interval_s,
        )
        # An orphan is back in its queue AND republished: its tenant needs no wake-up.
        again = {(r["dataset"], r["project_id"], r["episode_id"]) for r in [*orphans, *retry]}
        parked = [
            r for r in parked if (r["dataset"], r["project_id"], r["episode_id"]) not in again
        ]
        # Touch what we republish so the next pass does not send it again at once.
        await conn.execute(
            "UPDATE episodes SET updated_at = now() WHERE (dataset, project_id, episode_id)"
            " IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))",
            [r["dataset"] for r in [*retry, *parked]],
            [r["project_id"] for r in [*retry, *parked]],
            [r["episode_id"] for r in [*retry, *parked]],
        )
    return DueEpisodes(ended, orphans, retry, parked)
