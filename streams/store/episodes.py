"""The episode ledger (table ``episodes``): statuses, retry counts, claims, summaries.

Extraction side (``semantic_*``): the per-tenant gate (DESIGN "Delivery and ordering")
parks and releases, it never waits. Extraction upserts an arriving episode as ``queued``
(:func:`enqueue_episode`) and then :func:`claim_next` starts the tenant's OLDEST queued
episode, but only while no episode of that tenant holds a fresh claim, i.e. is still
flowing through resolve/dedup/judge/write. Whoever ends the in-flight episode starts the
next: extraction itself when it skips or fails one (it claims again), the writer when it
marks one done (it publishes a wake-up for :func:`next_to_release`), and the sweep as a
backstop. A claim older than the claim timeout blocks nothing (its worker died, the sweep
reclaims it). So a tenant's episodes are extracted one at a time, in arrival order, each
after the previous one's facts are written, while no Kafka record ever waits for them.
Summary side (``status``, ``retry_count``): no claim, because an unfinished summary must
stay visible to the sweep as pending.

Every statement filters on (dataset, project_id). ``conn`` is an asyncpg connection.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streams.events import EpisodeCompleted, Message, Window

log = logging.getLogger(__name__)

# pg_advisory_xact_lock(int4, int4) keys live apart from the writer's one-bigint keys.
GATE_LOCK_CLASS = 0x67617465  # "gate"
# One episode: its key in WHERE ($1-$3), and the columns episode_from_row reads.
EPISODE_KEY = "dataset = $1 AND project_id = $2 AND episode_id = $3"
_SUMMARY_STATE = "status, summary, summary_embedding IS NOT NULL AS has_embedding, retry_count"


# A re-sent episode replaces the stored one only when it is a newer version (a later
# completed_at) or asks to be reprocessed ($10): an older or equal re-send must not
# overwrite the transcript, window and time the stored facts came from.
_REPLACES = "(EXCLUDED.completed_at > e.completed_at OR $10::boolean)"
_NEWER = "EXCLUDED.completed_at > e.completed_at"
_CONTENT = ", ".join(
    f"{c} = CASE WHEN {_REPLACES} THEN EXCLUDED.{c} ELSE e.{c} END"
    for c in ("session_id", "event_id", "from_seq", "to_seq", "transcript", "completed_at")
)
# A newer version is processed again on both sides, whichever stage stores it first.
_SUMMARY_AGAIN = (
    f"status = CASE WHEN {_NEWER} AND e.status IN ('done', 'skipped', 'failed')"
    " THEN 'pending' ELSE e.status END,"
    f" retry_count = CASE WHEN {_NEWER} THEN 0 ELSE e.retry_count END,"
    f" semantic_retry_count = CASE WHEN {_NEWER} THEN 0 ELSE e.semantic_retry_count END,"
    f" newer_version_pending = e.newer_version_pending"
    f" OR ({_NEWER} AND e.semantic_status = 'processing'),"
)
_INSERT = (
    "INSERT INTO episodes AS e (dataset, project_id, episode_id, session_id, event_id,"
    " from_seq, to_seq, transcript, completed_at{extra})"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9{extra_value})"
    f" ON CONFLICT (dataset, project_id, episode_id) DO UPDATE SET {_CONTENT},"
)


def _episode_args(event: EpisodeCompleted) -> tuple[Any, ...]:
    transcript = [m.model_dump(mode="json") for m in event.messages]
    return (
        event.dataset, event.project_id, event.episode_id, event.session_id, event.event_id,
        event.window.from_seq, event.window.to_seq, transcript, event.completed_at,
        event.reprocess,
    )  # fmt: skip


async def upsert_episode(conn: Any, event: EpisodeCompleted) -> SummaryState:
    """Create the row, or take a newer version's window and transcript (a newer version
    is summarised again); returns the summary's state, read in the same statement."""
    row = await conn.fetchrow(
        _INSERT.format(extra="", extra_value="")
        + f" {_SUMMARY_AGAIN} semantic_status = CASE WHEN {_NEWER}"
        "   AND e.semantic_status IN ('done', 'skipped', 'failed') THEN 'queued'"
        "   ELSE e.semantic_status END,"
        f" updated_at = now() RETURNING {_SUMMARY_STATE}",
        *_episode_args(event),
    )
    return SummaryState(**dict(row))


@dataclass(frozen=True)
class Enqueued:
    status: str  # the episode's semantic_status now
    stored_completed_at: datetime  # the version the ledger keeps

    def older_resend_of(self, event: EpisodeCompleted) -> bool:
        """The event is an older (or the same) version of an episode that is finished."""
        return (
            not event.reprocess
            and self.status in ("done", "skipped")
            and event.completed_at <= self.stored_completed_at
        )


# --- the per-tenant gate: park, claim, release ---------------------------------------------

_FRESH_IN_FLIGHT = """EXISTS (
    SELECT 1 FROM episodes p WHERE p.dataset = $1 AND p.project_id = $2
    AND p.semantic_status = 'processing'
    AND p.claimed_at >= now() - make_interval(secs => $3::float8))"""
_OLDEST_QUEUED = (
    "SELECT episode_id FROM episodes WHERE dataset = $1 AND project_id = $2"
    f" AND semantic_status = 'queued' AND NOT {_FRESH_IN_FLIGHT}"
    " ORDER BY arrival_seq LIMIT 1"
)
# A stale claim's worker died or was fenced, so its output never landed (or, with a writer
# down past the timeout, lands twice and the writer drops the repeat): it runs again, in
# its place, before the later episodes; it must not be overtaken.
_STALE = (
    "(semantic_status = 'processing'"
    " AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $3::float8)))"
)
_NEXT_TO_START = (
    "SELECT episode_id FROM episodes WHERE dataset = $1 AND project_id = $2"
    f" AND (semantic_status = 'queued' OR {_STALE}) AND NOT {_FRESH_IN_FLIGHT}"
    " ORDER BY arrival_seq LIMIT 1"
)
EPISODE_COLUMNS = (
    "episode_id, dataset, project_id, session_id, event_id, from_seq, to_seq, transcript,"
    " completed_at"
)
_E_COLUMNS = ", ".join(f"e.{c.strip()}" for c in EPISODE_COLUMNS.split(","))


async def enqueue_episode(
    conn: Any, event: EpisodeCompleted, max_retries: int | None = None
) -> Enqueued:
    """Extraction's upsert: park the episode in its tenant's queue.

    A new, pending or failed episode (a retry the sweep republished) and a done/skipped
    one that the event replaces (a newer version, or ``reprocess``) become ``queued``; a
    failed one only while its retry count is under ``max_retries`` (when given), unless a
    newer version or reprocess asks for it, so a duplicate event does not retry past the
    seed's cap (a newer version starts its count afresh). Done/skipped and a claim stay as
    they are otherwise: a duplicate, an older re-send or a wake-up changes nothing (a stale
    claim is :func:`claim_next`'s to take over; a claim that a newer version arrives
    during is queued again when it ends, see :func:`mark_semantic_done`). The arrival
    order is extraction's: a row the summary stage inserted first (still ``pending``)
    takes its place in the queue when extraction first sees it, because summarize may
    have skipped an earlier episode's insert (it failed during a Postgres restart) and
    given a later one an earlier place; after that the place is kept.
    """
    row = await conn.fetchrow(
        _INSERT.format(extra=", semantic_status", extra_value=", 'queued'")
        + f" {_SUMMARY_AGAIN} updated_at = now(),"
        " arrival_seq = CASE WHEN e.semantic_status = 'pending'"
        "   THEN nextval(pg_get_serial_sequence('episodes', 'arrival_seq'))"
        "   ELSE e.arrival_seq END,"
        " semantic_status = CASE"
        "   WHEN e.semantic_status IN ('pending', 'queued')"
        "     OR (e.semantic_status = 'failed'"
        "         AND ($11::int IS NULL OR e.semantic_retry_count < $11))"
        f"     OR (e.semantic_status IN ('done', 'skipped', 'failed') AND {_REPLACES})"
        "   THEN 'queued' ELSE e.semantic_status END"
        " RETURNING semantic_status, completed_at",
        *_episode_args(event), max_retries,
    )  # fmt: skip
    return Enqueued(str(row["semantic_status"]), row["completed_at"])


async def claim_next(
    conn: Any, dataset: str, project_id: str, worker_id: str, claim_timeout_s: float,
    record: str | None = None, token: str | None = None,
) -> EpisodeCompleted | None:  # fmt: skip
    """Claim the tenant's oldest queued episode, unless one of its episodes holds a fresh
    claim (is still flowing through resolve/dedup/judge/write); None when there is nothing
    to start. The check and the claim are one UPDATE under a per-tenant lock, so two
    claimers of one tenant never both start an episode. A stale claim blocks nothing: it
    is started again first, in its arrival place (a retry).

    ``record`` names the consumed record being handled ("<topic>/<partition>/<offset>"):
    the claim this worker took while handling that same record before is taken back (its
    output never committed, or the record would not be handled again).

    ``token`` (a fresh one per call; the caller puts it on its output) names the claim
    taken: :func:`release_dead_lettered` and :func:`mark_semantic_done` act only on the
    claim their record belongs to (migration 008)."""
    async with conn.transaction():
        await conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))",
            GATE_LOCK_CLASS, f"{dataset}:{project_id}",
        )  # fmt: skip
        row = None
        if record is not None:
            row = await conn.fetchrow(
                "UPDATE episodes e SET claimed_at = now(), updated_at = now(),"
                " claim_token = $5"
                " WHERE dataset = $1 AND project_id = $2 AND semantic_status = 'processing'"
                f" AND claimed_by = $3 AND claim_record = $4 RETURNING {_E_COLUMNS}",
                dataset, project_id, worker_id, record, token,
            )  # fmt: skip
        if row is None:
            # Taking over a stale claim counts a retry, as the sweep's reclaim does.
            row = await conn.fetchrow(
                "UPDATE episodes e SET semantic_status = 'processing', claimed_at = now(),"
                " claimed_by = $4, claim_event_id = e.event_id, claim_record = $5,"
                " claim_token = $6, newer_version_pending = false,"
                " semantic_retry_count = e.semantic_retry_count"
                "   + (e.semantic_status = 'processing')::int,"
                " semantic_last_error = NULL, updated_at = now()"
                f" FROM ({_NEXT_TO_START}) AS nxt WHERE e.dataset = $1 AND e.project_id = $2"
                " AND e.episode_id = nxt.episode_id AND (e.semantic_status = 'queued'"
                "   OR (e.semantic_status = 'processing' AND (e.claimed_at IS NULL"
                "     OR e.claimed_at < now() - make_interval(secs => $3::float8))))"
                f" RETURNING {_E_COLUMNS}",
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


def episode_from_row(row: Any) -> EpisodeCompleted:
    """Rebuild the EpisodeCompleted a ledger row was made from (same event id)."""
    transcript = row["transcript"]
    if isinstance(transcript, str):  # a connection without the jsonb codec
        transcript = json.loads(transcript)
    return EpisodeCompleted(
        event_id=row["event_id"],
        dataset=row["dataset"],
        project_id=row["project_id"],
        episode_id=row["episode_id"],
        session_id=row["session_id"],
        window=Window(from_seq=row["from_seq"], to_seq=row["to_seq"]),
        messages=[Message.model_validate(m) for m in transcript],
        completed_at=row["completed_at"],
    )


async def mark_semantic_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET semantic_status = 'skipped', semantic_last_error = $4,"
        f" claimed_at = NULL, updated_at = now() WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, reason,
    )  # fmt: skip


async def mark_semantic_failed(
    conn: Any, event: EpisodeCompleted, worker_id: str, error: str
) -> bool:
    """Count a failed extraction; False when this worker no longer holds the claim (the
    sweep reset it, another worker took it) and so must not overwrite the row."""
    done = await conn.fetchval(
        "UPDATE episodes SET semantic_status = 'failed',"
        " semantic_retry_count = semantic_retry_count + 1, semantic_last_error = $6,"
        f" claimed_at = NULL, updated_at = now() WHERE {EPISODE_KEY}"
        " AND semantic_status = 'processing' AND claimed_by = $4 AND claim_event_id = $5"
        " RETURNING true",
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
        error[:2000],
    )  # fmt: skip
    return bool(done)


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
    conn: Any, dataset: str, project_id: str, episode_id: str, claim_token: str | None = None
) -> None:
    """The writer, inside its transaction: the episode's facts are committed; this also
    opens the per-tenant gate (the writer then wakes :func:`next_to_release`).

    With ``claim_token`` (what the judged record carries) only that claim is ended: the
    late output of a claim that went stale and was taken over must not open the gate while
    the new claim is still in flight (its facts still land; the new claim's are then
    dropped as duplicates). A claim released after a dead letter (``failed``) whose record
    was redriven and written ends ``done``. A newer version of the episode that arrived
    while it was in flight (a later completed_at) is queued again."""
    await conn.execute(
        "UPDATE episodes SET semantic_last_error = NULL, newer_version_pending = false,"
        " semantic_status = CASE WHEN newer_version_pending THEN 'queued' ELSE 'done' END,"
        f" claimed_at = NULL, updated_at = now() WHERE {EPISODE_KEY}"
        " AND ($4::text IS NULL OR claim_token IS NULL OR claim_token = $4)",
        dataset, project_id, episode_id, claim_token,
    )  # fmt: skip


# --- summary side -----------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryState:
    status: str
    summary: str | None
    has_embedding: bool
    retry_count: int


async def summary_state(
    conn: Any, dataset: str, project_id: str, episode_id: str
) -> SummaryState | None:
    row = await conn.fetchrow(
        f"SELECT {_SUMMARY_STATE} FROM episodes WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id,
    )  # fmt: skip
    return None if row is None else SummaryState(**dict(row))


async def save_summary(
    conn: Any, dataset: str, project_id: str, episode_id: str, summary: str
) -> None:
    """Keep the summary (status unchanged) so a failed embedding only re-embeds."""
    await conn.execute(
        "UPDATE episodes SET summary = $4, summary_embedding = NULL, updated_at = now()"
        f" WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, summary,
    )  # fmt: skip


async def save_summary_embedding(
    conn: Any, dataset: str, project_id: str, episode_id: str, embedding: list[float],
    *, summary: str | None = None,
) -> None:  # fmt: skip
    """The last step of the summary: the embedding (with a new summary, if given) lands
    and the status is done."""
    await conn.execute(
        "UPDATE episodes SET summary_embedding = $4, summary = COALESCE($5, summary),"
        f" status = 'done', last_error = NULL, updated_at = now() WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, embedding, summary,
    )  # fmt: skip


async def mark_summary_failed(
    conn: Any, dataset: str, project_id: str, episode_id: str, error: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET status = 'failed', retry_count = retry_count + 1,"
        f" last_error = $4, updated_at = now() WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, error[:2000],
    )  # fmt: skip


async def mark_summary_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        f"UPDATE episodes SET status = 'skipped', last_error = $4, updated_at = now()"
        f" WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, reason,
    )  # fmt: skip
