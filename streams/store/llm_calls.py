"""The seed's Playground: every model request and response, stored per episode."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streams.model.ports import CallRecord, CallScope


async def record_calls(
    conn: Any, scope: CallScope, stage: str, calls: Sequence[CallRecord]
) -> None:
    """Insert one llm_calls row per call; `conn` is an asyncpg connection or pool."""
    if not calls:
        return
    await conn.executemany(
        "INSERT INTO llm_calls (dataset, project_id, episode_id, stage, kind, model, request,"
        " response, input_tokens, output_tokens, latency_ms, attempts, error)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        [
            (
                scope.dataset,
                scope.project_id,
                scope.episode_id,
                stage,
                c.kind,
                c.model,
                c.request,
                c.response,
                c.input_tokens,
                c.output_tokens,
                c.latency_ms,
                c.attempts,
                c.error,
            )
            for c in calls
        ],
    )
