"""Embeddings staged between dedup and the writer, so they never travel on a topic.

Dedup stages the survivors' vectors under its output event's id (a redelivered record
stages the same rows again); the judge reads them only when it must search the band
itself; the writer's insert consumes them in the same statement. The sweep purges rows
older than ``STAGED_VECTORS_TTL`` that no writer consumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from pgvector import Vector

from streams.store.statements import Rider

STAGED_VECTORS_TTL = timedelta(days=1)

STAGE_SQL = (
    "INSERT INTO staged_vectors (dataset, project_id, event_id, ord, embedding)"
    " SELECT $1, $2, $3, o - 1, v FROM unnest($4::vector[]) WITH ORDINALITY AS u(v, o)"
    " ON CONFLICT (dataset, project_id, event_id, ord) DO UPDATE SET embedding = EXCLUDED.embedding"
)


def stage_args(
    dataset: str, project_id: str, event_id: str, vectors: Sequence[Sequence[float]]
) -> tuple[Any, ...]:
    return (dataset, project_id, event_id, [Vector(list(v)) for v in vectors])


async def stage(
    conn: Any, dataset: str, project_id: str, event_id: str, vectors: Sequence[Sequence[float]],
    record: Rider | None = None,
) -> None:  # fmt: skip
    """Stage ``vectors`` as ords 0.. under ``event_id``; ``record`` (llm_calls.with_calls)
    stores model calls in the same statement."""
    query, args = STAGE_SQL, list(stage_args(dataset, project_id, event_id, vectors))
    if record is not None:
        query, args = record(query, args)
    if vectors or record is not None:
        await conn.execute(query, *args)


async def stage_some(
    conn: Any, dataset: str, project_id: str, event_id: str, vectors: dict[int, list[float]]
) -> None:
    """Stage ``vectors`` under their own ords (vectors embedded again for a replay)."""
    if not vectors:
        return
    ords = sorted(vectors)
    await conn.execute(
        "INSERT INTO staged_vectors (dataset, project_id, event_id, ord, embedding)"
        " SELECT $1, $2, $3, o, v FROM unnest($4::int[], $5::vector[]) AS u(o, v)"
        " ON CONFLICT (dataset, project_id, event_id, ord)"
        " DO UPDATE SET embedding = EXCLUDED.embedding",
        dataset, project_id, event_id, ords, [Vector(vectors[o]) for o in ords],
    )  # fmt: skip


async def read(conn: Any, dataset: str, project_id: str, event_id: str) -> dict[int, list[float]]:
    """The vectors staged under ``event_id``, by ord."""
    rows = await conn.fetch(
        "SELECT ord, embedding FROM staged_vectors"
        " WHERE dataset = $1 AND project_id = $2 AND event_id = $3",
        dataset, project_id, event_id,
    )  # fmt: skip
    return {r["ord"]: r["embedding"].to_list() for r in rows}


async def purge_stale(conn: Any, ttl: timedelta = STAGED_VECTORS_TTL) -> int:
    """Delete what no writer consumed within ``ttl``; returns how many rows."""
    done = await conn.execute(
        "DELETE FROM staged_vectors WHERE created_at < now() - $1::interval", ttl
    )
    return int(done.split()[-1])
