"""The episode ledger (table ``episodes``): statuses, retry counts, claims, summaries.

Extraction side (``semantic_*``): an episode is claimed before the model is called, and
the claim doubles as the per-tenant gate (DESIGN "Delivery and ordering"): a tenant's
episode is only claimed while no OTHER episode of that tenant holds a fresh claim, i.e.
is still flowing through resolve/dedup/judge/write. The writer ends that claim with
:func:`mark_semantic_done`; a claim older than the claim timeout blocks nothing (its
worker died, the sweep reclaims it). Summary side (``status``, ``retry_count``): no
claim, because an unfinished summary must stay visible to the sweep as pending.

Every statement filters on (dataset, project_id). ``conn`` is an asyncpg connection.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from streams.events import EpisodeCompleted

log = logging.getLogger(__name__)

# pg_advisory_xact_lock(int4, int4) keys live apart from the writer's one-bigint keys.
GATE_LOCK_CLASS = 0x67617465  # "gate"
_KEY = "dataset = $1 AND project_id = $2 AND episode_id = $3"


async def upsert_episode(conn: Any, event: EpisodeCompleted) -> None:
    """Create the row, or refresh its window and transcript; statuses are left alone."""
    transcript = [m.model_dump(mode="json") for m in event.messages]
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id,"
        " from_seq, to_seq, transcript, completed_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        " ON CONFLICT (dataset, project_id, episode_id) DO UPDATE SET"
        " session_id = EXCLUDED.session_id, event_id = EXCLUDED.event_id,"
        " from_seq = EXCLUDED.from_seq, to_seq = EXCLUDED.to_seq,"
        " transcript = EXCLUDED.transcript, completed_at = EXCLUDED.completed_at,"
        " updated_at = now()",
        event.dataset, event.project_id, event.episode_id, event.session_id, event.event_id,
        event.window.from_seq, event.window.to_seq, transcript, event.completed_at,
    )  # fmt: skip


# --- extraction claim and the per-tenant gate ----------------------------------------------


class ClaimOutcome(StrEnum):
    CLAIMED = "claimed"
    ALREADY_FINISHED = "already_finished"  # done/skipped and the event does not reprocess
    CLAIMED_ELSEWHERE = "claimed_elsewhere"  # a fresh claim by another worker (or event)
    BLOCKED = "blocked"  # the gate: another episode of the tenant is in flight
    MISSING = "missing"  # no episode row (upsert first)


@dataclass(frozen=True)
class ClaimResult:
    outcome: ClaimOutcome
    detail: str = ""

    @property
    def claimed(self) -> bool:
        return self.outcome is ClaimOutcome.CLAIMED


_CLAIMABLE = """(
    semantic_status IN ('pending', 'failed')
    OR (semantic_status IN ('done', 'skipped') AND $6::boolean)
    OR (semantic_status = 'processing' AND (
        claimed_at IS NULL
        OR claimed_at < now() - make_interval(secs => $7::float8)
        OR (claimed_by = $4 AND claim_event_id = $5)))
)"""
_OTHER_IN_FLIGHT = """
    dataset = $1 AND project_id = $2 AND episode_id <> $3
    AND semantic_status = 'processing'
    AND claimed_at >= now() - make_interval(secs => $7::float8)"""


async def try_claim_extraction(
    conn: Any, event: EpisodeCompleted, worker_id: str, claim_timeout_s: float
) -> ClaimResult:
    """One attempt: gate check and claim in one atomic UPDATE, under a per-tenant lock so
    two claimers of one tenant cannot both pass the gate."""
    args = (
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
        event.reprocess, claim_timeout_s,
    )  # fmt: skip
    async with conn.transaction():
        await conn.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2))", GATE_LOCK_CLASS, event.tenant
        )
        claimed = await conn.fetchval(
            "UPDATE episodes SET semantic_status = 'processing', claimed_at = now(),"
            " claimed_by = $4, claim_event_id = $5, semantic_last_error = NULL,"
            f" updated_at = now() WHERE {_KEY} AND {_CLAIMABLE}"
            f" AND NOT EXISTS (SELECT 1 FROM episodes WHERE {_OTHER_IN_FLIGHT})"
            " RETURNING true",
            *args,
        )
        if claimed:
            return ClaimResult(ClaimOutcome.CLAIMED)
        return await _why_not_claimed(conn, args)


async def _why_not_claimed(conn: Any, args: tuple[Any, ...]) -> ClaimResult:
    own = await conn.fetchrow(
        "SELECT semantic_status, claimed_by, claim_event_id,"
        " extract(epoch FROM now() - claimed_at)::float8 AS age,"
        f" {_CLAIMABLE} AS claimable FROM episodes WHERE {_KEY}",
        *args,
    )
    if own is None:
        return ClaimResult(ClaimOutcome.MISSING, "no episode row")
    if not own["claimable"]:
        if own["semantic_status"] in ("done", "skipped"):
            return ClaimResult(
                ClaimOutcome.ALREADY_FINISHED,
                f"semantic_status={own['semantic_status']} and the event does not reprocess",
            )
        return ClaimResult(
            ClaimOutcome.CLAIMED_ELSEWHERE,
            f"fresh claim by {own['claimed_by']} (event {own['claim_event_id']},"
            f" {own['age']:.0f}s old)",
        )
    blocker = await conn.fetchrow(
        "SELECT episode_id, claimed_by FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND episode_id <> $3 AND semantic_status = 'processing'"
        " AND claimed_at >= now() - make_interval(secs => $4::float8)"
        " ORDER BY claimed_at LIMIT 1",
        *args[:3], args[6],
    )  # fmt: skip
    who = f"episode {blocker['episode_id']} ({blocker['claimed_by']})" if blocker else "?"
    return ClaimResult(ClaimOutcome.BLOCKED, f"waiting for {who} of the same tenant")


async def claim_extraction(
    pool: Any,
    event: EpisodeCompleted,
    worker_id: str,
    claim_timeout_s: float,
    *,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    min_delay_s: float = 0.05,
    max_delay_s: float = 0.5,
) -> ClaimResult:
    """Claim, waiting at the per-tenant gate (backoff ``min_delay_s`` → ``max_delay_s``).

    The runtime runs a tenant's records in order, so waiting here holds only that
    tenant's lane. The wait is bounded by the blocker's claim going stale.
    """
    delay, started, logged = min_delay_s, time.monotonic(), 0.0
    while True:
        async with pool.acquire() as conn:
            result = await try_claim_extraction(conn, event, worker_id, claim_timeout_s)
        if result.outcome is not ClaimOutcome.BLOCKED:
            return result
        waited = time.monotonic() - started
        if waited - logged >= 30:
            logged = waited
            log.info(
                "episode %s of %s %s (%.0fs so far)",
                event.episode_id, event.tenant, result.detail, waited,
            )  # fmt: skip
        await sleep(delay)
        delay = min(max_delay_s, delay * 2)


async def mark_semantic_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET semantic_status = 'skipped', semantic_last_error = $4,"
        f" claimed_at = NULL, updated_at = now() WHERE {_KEY}",
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
        f" claimed_at = NULL, updated_at = now() WHERE {_KEY}"
        " AND semantic_status = 'processing' AND claimed_by = $4 AND claim_event_id = $5"
        " RETURNING true",
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
        error[:2000],
    )  # fmt: skip
    return bool(done)


async def release_claim(conn: Any, event: EpisodeCompleted, worker_id: str) -> bool:
    """Give an unfinished claim back (pending, not counted as a failure): a worker that
    is shut down or loses the partition mid-extraction lets the next owner start now."""
    released = await conn.fetchval(
        "UPDATE episodes SET semantic_status = 'pending', claimed_at = NULL,"
        f" updated_at = now() WHERE {_KEY}"
        " AND semantic_status = 'processing' AND claimed_by = $4 AND claim_event_id = $5"
        " RETURNING true",
        event.dataset, event.project_id, event.episode_id, worker_id, event.event_id,
    )  # fmt: skip
    return bool(released)


async def mark_semantic_done(conn: Any, dataset: str, project_id: str, episode_id: str) -> None:
    """The writer, inside its transaction: the episode's facts are committed; this also
    opens the per-tenant gate for the tenant's next episode."""
    await conn.execute(
        "UPDATE episodes SET semantic_status = 'done', semantic_last_error = NULL,"
        f" claimed_at = NULL, updated_at = now() WHERE {_KEY}",
        dataset, project_id, episode_id,
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
        "SELECT status, summary, summary_embedding IS NOT NULL AS has_embedding, retry_count"
        f" FROM episodes WHERE {_KEY}",
        dataset, project_id, episode_id,
    )  # fmt: skip
    return None if row is None else SummaryState(**dict(row))


async def save_summary(
    conn: Any, dataset: str, project_id: str, episode_id: str, summary: str
) -> None:
    """Keep the summary (status unchanged) so a failed embedding only re-embeds."""
    await conn.execute(
        "UPDATE episodes SET summary = $4, summary_embedding = NULL, updated_at = now()"
        f" WHERE {_KEY}",
        dataset, project_id, episode_id, summary,
    )  # fmt: skip


async def save_summary_embedding(
    conn: Any, dataset: str, project_id: str, episode_id: str, embedding: list[float]
) -> None:
    """The last step of the summary: the embedding lands and the status is done."""
    await conn.execute(
        "UPDATE episodes SET summary_embedding = $4, status = 'done', last_error = NULL,"
        f" updated_at = now() WHERE {_KEY}",
        dataset, project_id, episode_id, embedding,
    )  # fmt: skip


async def mark_summary_failed(
    conn: Any, dataset: str, project_id: str, episode_id: str, error: str
) -> None:
    await conn.execute(
        "UPDATE episodes SET status = 'failed', retry_count = retry_count + 1,"
        f" last_error = $4, updated_at = now() WHERE {_KEY}",
        dataset, project_id, episode_id, error[:2000],
    )  # fmt: skip


async def mark_summary_skipped(
    conn: Any, dataset: str, project_id: str, episode_id: str, reason: str
) -> None:
    await conn.execute(
        f"UPDATE episodes SET status = 'skipped', last_error = $4, updated_at = now()"
        f" WHERE {_KEY}",
        dataset, project_id, episode_id, reason,
    )  # fmt: skip
