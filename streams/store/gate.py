"""The per-tenant gate (DESIGN "Delivery and ordering"): claims on the ledger's episodes.

The gate parks and releases, it never waits. Extraction parks an arriving episode as
``queued`` (streams/store/episodes.py) and then :func:`claim_next` starts the tenant's
OLDEST queued episode, but only while no episode of that tenant holds a fresh claim, i.e.
is still flowing through resolve/dedup/judge/write. Whoever ends the in-flight episode
starts the next: extraction itself when it skips or fails one for good (it claims again),
the writer when it marks one done (it publishes a wake-up for :func:`next_to_release`),
and the sweep as a backstop. A failure under the retry cap keeps the claim while
extraction retries in place (:func:`count_extraction_failure`), so the tenant's later
episodes do not overtake it. A claim older than the claim timeout blocks nothing (its
worker died, the sweep reclaims it). So a tenant's episodes are extracted one at a time,
in arrival order, each after the previous one's facts are written, while no Kafka record
ever waits for them.

Every statement filters on (dataset, project_id). ``conn`` is an asyncpg connection.
"""

from __future__ import annotations

from typing import Any

from streams.events import EpisodeCompleted
from streams.store.episodes import EPISODE_COLUMNS, EPISODE_KEY, episode_from_row
from streams.store.statements import Rider, with_write

_FRESH_IN_FLIGHT = """EXISTS (
    SELECT 1 FROM episodes p WHERE p.dataset = $1 AND p.project_id = $2
    AND p.semantic_status = 'processing'
    AND p.claimed_at >= now() - make_interval(secs => $3::float8))"""
_OLDEST_QUEUED = (
    "SELECT episode_id FROM episodes WHERE dataset = $1 AND project_id = $2"
    f" AND semantic_status = 'queued' AND NOT {_FRESH_IN_FLIGHT}"
    " ORDER BY arrival_seq LIMIT 1"
)


async def claim_next(
    conn: Any, dataset: str, project_id: str, worker_id: str, claim_timeout_s: float,
    record: str | None = None, token: str | None = None,
) -> EpisodeCompleted | None:  # fmt: skip
    """Claim the tenant's oldest queued episode, unless one of its episodes holds a fresh
    claim (is still flowing through resolve/dedup/judge/write); None when there is nothing
    to start. The check and the claim are one UPDATE under a per-tenant lock (the key of
    streams/store/locks.py gate_lock), so two claimers of one tenant never both start an
    episode. A stale claim blocks nothing: it
    is started again first, in its arrival place (a retry).

    ``record`` names the consumed record being handled ("<topic>/<partition>/<offset>"):
    the claim this worker took while handling that same record before is taken back (its
    output never committed, or the record would not be handled again).

    ``token`` (a fresh one per call; the caller puts it on its output) names the claim
    taken: :func:`release_dead_lettered` and :func:`mark_semantic_done` act only on the
    claim their record belongs to (migration 008)."""
    # The lock, then the two claims, each on a fresh snapshot: one function (migration
    # 017), one round trip. A stale claim's worker died or was fenced, so its output never
    # landed (or, with a writer down past the timeout, lands twice and the writer drops
    # the repeat): it runs again, in its place, before the later episodes.
    row = await conn.fetchrow(
        f"SELECT {EPISODE_COLUMNS} FROM factstream_claim_next($1, $2, $3, $4, $5, $6)",
        dataset, project_id, claim_timeout_s, worker_id, record, token,
    )  # fmt: skip
    return None if row is None else episode_from_row(row)


async def next_to_release(
    conn: Any, dataset: str, project_id: str, claim_timeout_s: float
) -> EpisodeCompleted | None:
    """The episode to wake after the tenant's in-flight one ended: its oldest queued one
    when nothing holds a fresh claim, else None. Read-only; publishing it is a wake-up
    (claim_next does the claiming), so a duplicate wake-up is harmless."""
    row = await conn.fetchrow(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE dataset = $1 AND project_id = $2"
        f" AND episode_id = ({_OLDEST_QUEUED})",
        dataset, project_id, claim_timeout_s,
    )  # fmt: skip
    return None if row is None else episode_from_row(row)


async def oldest_queued(conn: Any, dataset: str, project_id: str) -> str | None:
    """The id of the tenant's oldest queued episode, whether or not it can be rebuilt."""
    found: str | None = await conn.fetchval(
        "SELECT episode_id FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND semantic_status = 'queued' ORDER BY arrival_seq LIMIT 1",
        dataset, project_id,
    )  # fmt: skip
    return found


async def mark_semantic_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET semantic_status = 'skipped', semantic_last_error = $4,"
        f" claimed_at = NULL, updated_at = now() WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, reason,
    )  # fmt: skip


async def count_extraction_failure(
    conn: Any, event: EpisodeCompleted, worker_id: str, error: str, max_retries: int
) -> int | None:
    """Count a failed extraction attempt of a claimed episode; returns the retries used,
    None when this worker no longer holds the claim. Under ``max_retries`` the claim is
    kept (renewed), so the tenant's later episodes keep waiting while the caller retries
    in place; at the cap the episode ends ``failed`` and the tenant goes on."""
    used: int | None = await conn.fetchval(
        "UPDATE episodes SET semantic_retry_count = semantic_retry_count + 1,"
        " semantic_last_error = $6, updated_at = now(),"
        " semantic_status = CASE WHEN semantic_retry_count + 1 >= $7"
        "   THEN 'failed' ELSE 'processing' END,"
        " claimed_at = CASE WHEN semantic_retry_count + 1 >= $7 THEN NULL ELSE now() END"
        f" WHERE {EPISODE_KEY}"
        " AND semantic_status = 'processing' AND claimed_by = $4 AND claim_event_id = $5"
        " RETURNING semantic_retry_count",
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
        error[:2000], max_retries,
    )  # fmt: skip
    return used


async def release_claim(conn: Any, event: EpisodeCompleted, worker_id: str) -> bool:
    """Give an unfinished claim back (queued again, first in line, not counted as a
    failure): a worker that is shut down, loses the partition or retries a transient error
    mid-extraction lets the next claim_next of the tenant take it at once."""
    released = await conn.fetchval(
        "UPDATE episodes SET semantic_status = 'queued', claimed_at = NULL,"
        f" updated_at = now() WHERE {EPISODE_KEY}"
        " AND semantic_status = 'processing' AND claimed_by = $4 AND claim_event_id = $5"
        " RETURNING true",
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
    )  # fmt: skip
    return bool(released)


async def mark_semantic_done(
    conn: Any, dataset: str, project_id: str, episode_id: str, claim_token: str | None = None,
    record: Rider | None = None,
) -> None:  # fmt: skip
    """The writer, inside its transaction: the episode's facts are committed; this also
    opens the per-tenant gate (the writer then wakes :func:`next_to_release`).

    With ``claim_token`` (what the judged record carries) only that claim is ended: the late
    output of a claim that went stale and was taken over must not open the gate while the
    new claim is still in flight (its facts still land; the new claim's are then dropped
    as duplicates). A claim released after a dead letter at the retry cap (``failed``)
    whose record was redriven and written ends ``done``. A newer version of the episode
    that arrived while it was in flight (a later completed_at) is queued again. ``record``
    puts another write in the same statement (streams/store/statements.py: the writer's
    drops)."""
    query, args = _SEMANTIC_DONE, [dataset, project_id, episode_id, claim_token]
    if record is not None:
        query, args = record(query, args)
    await conn.execute(query, *args)


_SEMANTIC_DONE = (
    "UPDATE episodes SET semantic_last_error = NULL, newer_version_pending = false,"
    " semantic_status = CASE WHEN newer_version_pending THEN 'queued' ELSE 'done' END,"
    f" claimed_at = NULL, updated_at = now() WHERE {EPISODE_KEY}"
    " AND ($4::text IS NULL OR claim_token IS NULL OR claim_token = $4)"
)


def semantic_done(dataset: str, project_id: str, episode_id: str, claim_token: str | None) -> Rider:
    """:func:`mark_semantic_done` riding on another statement of the writer's transaction
    (streams/store/statements.py): the same UPDATE, as a CTE of that statement."""

    def ride(query: str, args: list[Any]) -> tuple[str, list[Any]]:
        done_args = [dataset, project_id, episode_id, claim_token]
        return with_write(query, args, "semantic_done", _SEMANTIC_DONE, done_args)

    return ride
