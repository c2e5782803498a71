"""The episode ledger (table ``episodes``): arriving versions, and the summary side.

An arriving episode is stored (:func:`upsert_episode` for the summary stage,
:func:`enqueue_episode` for extraction, which parks it in its tenant's queue); a re-sent
one replaces the stored version only when newer or asked to be reprocessed. The
extraction side's claims (the per-tenant gate) are in streams/store/gate.py. Summary side
(``status``, ``retry_count``): no claim, because an unfinished summary must stay visible
to the sweep as pending.

Every statement filters on (dataset, project_id). ``conn`` is an asyncpg connection.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from streams.errors import PoisonError
from streams.events import EpisodeCompleted, Message, Window
from streams.store.statements import Rider

# One episode: its key in WHERE ($1-$3), and the columns episode_from_row reads.
EPISODE_KEY = "dataset = $1 AND project_id = $2 AND episode_id = $3"
_SUMMARY_STATE = (
    "status, summary, summary_embedding IS NOT NULL AS has_embedding, retry_count, completed_at"
)


# A re-sent episode replaces the stored one only when it is a newer version (a later
# completed_at) or asks to be reprocessed ($10) and is no older: an older or equal
# re-send must not overwrite the transcript, window and time the stored facts came from,
# and a replay that reprocesses an older version after a newer one must not bring back
# what the newer one took back.
_REPLACES = (
    "(EXCLUDED.completed_at > e.completed_at"
    " OR ($10::boolean AND EXCLUDED.completed_at >= e.completed_at))"
)
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
        """The event is an older (or, unless reprocessed, the same) version of an episode
        that is finished."""
        newest = self.stored_completed_at
        return self.status in ("done", "skipped") and (
            event.completed_at < newest or (event.completed_at == newest and not event.reprocess)
        )


EPISODE_COLUMNS = (
    "episode_id, dataset, project_id, session_id, event_id, from_seq, to_seq, transcript,"
    " completed_at"
)


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


class UnusableRow(PoisonError):
    """A ledger row no valid EpisodeCompleted can be rebuilt from (stored by an older
    version under looser rules): it cannot be republished, only ended."""


def episode_from_row(row: Any) -> EpisodeCompleted:
    """Rebuild the EpisodeCompleted a ledger row was made from (same event id)."""
    transcript = row["transcript"]
    if isinstance(transcript, str):  # a connection without the jsonb codec
        transcript = json.loads(transcript)
    try:
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
    except ValidationError as exc:
        raise UnusableRow(f"the ledger row cannot be rebuilt as an event: {exc}") from exc


async def end_unpublishable(
    conn: Any, dataset: str, project_id: str, episode_id: str, why: str, max_retries: int
) -> None:
    """An episode whose copy cannot be published (over the record limit, or a row that no
    longer makes a valid event): both unfinished sides end ``failed`` at the retry cap,
    with ``why``, so neither the sweep nor a wake-up sends it again."""
    await conn.execute(
        "UPDATE episodes SET updated_at = now(),"
        " status = CASE WHEN status IN ('done', 'skipped') THEN status ELSE 'failed' END,"
        " retry_count = CASE WHEN status IN ('done', 'skipped') THEN retry_count"
        "   ELSE greatest(retry_count, $5) END,"
        " last_error = CASE WHEN status IN ('done', 'skipped') THEN last_error ELSE $4 END,"
        " semantic_status = CASE WHEN semantic_status IN ('done', 'skipped')"
        "   THEN semantic_status ELSE 'failed' END,"
        " semantic_retry_count = CASE WHEN semantic_status IN ('done', 'skipped')"
        "   THEN semantic_retry_count ELSE greatest(semantic_retry_count, $5) END,"
        " semantic_last_error = CASE WHEN semantic_status IN ('done', 'skipped')"
        "   THEN semantic_last_error ELSE $4 END,"
        f" claimed_at = NULL WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, why[:2000], max_retries,
    )  # fmt: skip


# --- summary side -----------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryState:
    status: str
    summary: str | None
    has_embedding: bool
    retry_count: int
    completed_at: datetime | None = None  # of the version the ledger keeps


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
    record: Rider | None = None,
) -> None:  # fmt: skip
    """The last step of the summary: the embedding (with a new summary, if given) lands
    and the status is done; ``record`` (llm_calls.with_calls) stores the model calls in
    the same statement."""
    query = (
        "UPDATE episodes SET summary_embedding = $4, summary = COALESCE($5, summary),"
        f" status = 'done', last_error = NULL, updated_at = now() WHERE {EPISODE_KEY}"
    )
    args: list[Any] = [dataset, project_id, episode_id, embedding, summary]
    if record is not None:
        query, args = record(query, args)
    await conn.execute(query, *args)


async def mark_summary_failed(
    conn: Any, dataset: str, project_id: str, episode_id: str, error: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET status = 'failed', retry_count = retry_count + 1,"
        f" last_error = $4, updated_at = now() WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, error[:2000],
    )  # fmt: skip


async def count_summary_failure(
    conn: Any, dataset: str, project_id: str, episode_id: str, error: str
) -> int | None:
    """A summary attempt that failed outside the model (its record was dead-lettered):
    ``failed``, one more retry counted; a done or skipped summary stays. Returns the
    retries used, None when nothing was counted."""
    used: int | None = await conn.fetchval(
        "UPDATE episodes SET status = 'failed', retry_count = retry_count + 1,"
        f" last_error = $4, updated_at = now() WHERE {EPISODE_KEY}"
        " AND status NOT IN ('done', 'skipped') RETURNING retry_count",
        dataset, project_id, episode_id, error[:2000],
    )  # fmt: skip
    return used


async def mark_summary_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        f"UPDATE episodes SET status = 'skipped', last_error = $4, updated_at = now()"
        f" WHERE {EPISODE_KEY}",
        dataset, project_id, episode_id, reason,
    )  # fmt: skip
