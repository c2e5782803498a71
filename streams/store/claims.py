"""Ending an extraction claim after a dead letter (migration 008's ``claim_token``).

An episode holds its tenant's gate (``processing``) from extraction until the writer
marks it done. A record of it dead-lettered on the way (after extraction, or extraction's
own output refused as too large) would hold the gate until the claim went stale, 10
minutes, with the tenant's later episodes waiting behind it. The claim's token, carried
on every stage event, lets the dead letter end exactly its own claim: see
streams/stages/release.py for the flow. Every statement filters on (dataset, project_id).
"""

from __future__ import annotations

from typing import Any

from streams.events import EpisodeCompleted
from streams.store.episodes import EPISODE_COLUMNS, EPISODE_KEY, episode_from_row


async def claimed_episode(
    conn: Any, dataset: str, project_id: str, episode_id: str, claim_token: str
) -> EpisodeCompleted | None:
    """The episode while ``claim_token`` still holds its claim (``processing``), else None."""
    row = await conn.fetchrow(
        f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE {EPISODE_KEY}"
        " AND semantic_status = 'processing' AND claim_token = $4",
        dataset, project_id, episode_id, claim_token,
    )  # fmt: skip
    return None if row is None else episode_from_row(row)


async def release_dead_lettered(
    conn: Any, dataset: str, project_id: str, episode_id: str, claim_token: str, error: str,
    max_retries: int,
) -> int | None:  # fmt: skip
    """A record of this claim was dead-lettered after extraction: count it as a failed
    extraction and end the claim. Under ``max_retries`` the episode is queued again, first
    in its tenant's line (its arrival place), so it runs again before the tenant's later
    episodes; at the cap it ends ``failed`` and the tenant goes on. Returns the retries
    used; None when the claim is no longer that one (taken over, already ended)."""
    used: int | None = await conn.fetchval(
        "UPDATE episodes SET semantic_retry_count = semantic_retry_count + 1,"
        " semantic_last_error = $5, claimed_at = NULL, updated_at = now(),"
        " semantic_status = CASE WHEN semantic_retry_count + 1 >= $6"
        "   THEN 'failed' ELSE 'queued' END"
        f" WHERE {EPISODE_KEY} AND semantic_status = 'processing' AND claim_token = $4"
        " RETURNING semantic_retry_count",
        dataset, project_id, episode_id, claim_token, error[:2000], max_retries,
    )  # fmt: skip
    return used


async def claim_of_record(
    conn: Any, dataset: str, project_id: str, worker_id: str, record: str
) -> tuple[EpisodeCompleted, str] | None:
    """The claim this worker took while handling ``record`` and still holds, with its
    token: what extraction releases when its own output is dead-lettered."""
    row = await conn.fetchrow(
        f"SELECT {EPISODE_COLUMNS}, claim_token FROM episodes WHERE dataset = $1"
        " AND project_id = $2 AND semantic_status = 'processing' AND claimed_by = $3"
        " AND claim_record = $4 AND claim_token IS NOT NULL",
        dataset, project_id, worker_id, record,
    )  # fmt: skip
    return None if row is None else (episode_from_row(row), str(row["claim_token"]))
