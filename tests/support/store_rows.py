"""Rows written and read with SQL, as an earlier episode's writer would have left them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from streams.events import EpisodeCompleted, Fact
from streams.model.fakes.scripted import hashed_vector
from tests.support.db import TEST_EMBEDDING_DIM

DIM = TEST_EMBEDDING_DIM


async def insert_live_fact(
    pool: Any,
    dataset: str,
    project_id: str,
    fact: Fact,
    embedding: Sequence[float] | None,
    *,
    valid_until: datetime | None = None,
) -> int:
    """A stored live fact, written with SQL as the writer would have."""
    fact_id: int = await pool.fetchval(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " episode_id, embedding, valid_until) VALUES ($1, $2, $3, $4, $5, $6, $7, 'e0', $8, $9)"
        " RETURNING id",
        dataset,
        project_id,
        fact.subject,
        fact.predicate,
        fact.object,
        fact.kind.value,
        fact.confidence,
        None if embedding is None else list(embedding),
        valid_until,
    )
    return fact_id


async def seed_fact(
    conn: Any,
    tenant: tuple[str, str],
    f: Fact,
    *,
    embedding: list[float] | None = None,
    episode: str = "e0",
    created_at: datetime | None = None,
) -> int:
    """Insert a live fact directly, as an earlier episode's writer would have."""
    fact_id: int = await conn.fetchval(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " source_quote, episode_id, embedding, valid_from, valid_until, created_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13, now()))"
        " RETURNING id",
        tenant[0], tenant[1], f.subject, f.predicate, f.object, f.kind.value, f.confidence,
        f.source_quote, episode, embedding or hashed_vector(f.sentence(), DIM), f.valid_from,
        f.valid_until, created_at,
    )  # fmt: skip
    return fact_id


async def seed_episode(conn: Any, tenant: tuple[str, str], episode: str) -> None:
    """An episode row claimed by extraction, as the writer finds it."""
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
        " to_seq, transcript, completed_at, semantic_status, claimed_at, claimed_by)"
        " VALUES ($1, $2, $3, 's', 'evt', 1, 1, '[]'::jsonb, now(), 'processing', now(), 'w')",
        tenant[0], tenant[1], episode,
    )  # fmt: skip


async def rows(conn: Any, tenant: tuple[str, str]) -> list[dict[str, Any]]:
    """Every fact row of the tenant, oldest first."""
    records = await conn.fetch(
        "SELECT id, subject, predicate, object, valid_from, valid_until, stated_at,"
        " invalid_at IS NOT NULL AS ended, invalid_reason, invalidated_by, created_at,"
        " invalid_at, copy_of, ended_by, end_reason FROM facts"
        " WHERE dataset = $1 AND project_id = $2 ORDER BY id",
        *tenant,
    )
    return [dict(r) for r in records]


async def live_triples(conn: Any, tenant: tuple[str, str]) -> set[tuple[str, str, str]]:
    records = await conn.fetch(
        "SELECT subject, predicate, object FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND invalid_at IS NULL AND (valid_until IS NULL OR valid_until > now())",
        *tenant,
    )
    return {(r["subject"], r["predicate"], r["object"]) for r in records}


async def snapshot(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every table the writer touches, whole, for before/after comparisons."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in ("facts", "fact_drops", "episodes", "consumed_offsets", "llm_calls"):
        records = await conn.fetch(f"SELECT * FROM {table} ORDER BY 1, 2, 3")
        out[table] = [tuple(str(v) for v in r.values()) for r in records]
    return out


async def seed_store(pool: Any, tenant: tuple[str, str], canary: str = "") -> None:
    """Entities and live facts for a tenant, plus one ended fact that must not show."""
    ds, p = tenant
    async with pool.acquire() as conn:
        entities = [("user", "PERSON"), (f"acme{canary}", "ORG"), ("honda civic", "VEHICLE")]
        for name, etype in entities:
            await conn.execute(
                "INSERT INTO entities (dataset, project_id, name, type) VALUES ($1,$2,$3,$4)",
                ds, p, name, etype,
            )  # fmt: skip
        rows = [
            ("user", "works at", f"acme{canary}", "relationship", None),
            ("user", "drives", "honda civic", "relationship", None),
            ("user", f"lives in{canary}", "oslo", "literal", None),
            ("user", "likes", f"old hobby{canary}", "literal", "ended"),
        ]
        for s, pr, o, kind, ended in rows:
            await conn.execute(
                "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
                " confidence, episode_id, valid_until) VALUES ($1,$2,$3,$4,$5,$6,0.9,'old',"
                " CASE WHEN $7::text IS NULL THEN NULL ELSE now() - interval '1 day' END)",
                ds, p, s, pr, o, kind, ended,
            )  # fmt: skip


async def ledger(pool: Any, ev: EpisodeCompleted) -> Any:
    """The episode's extraction side of the ledger."""
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            "SELECT semantic_status, semantic_retry_count, semantic_last_error, claimed_by"
            " FROM episodes WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


async def llm_calls(
    pool: Any, ev: EpisodeCompleted, columns: str = "stage, kind, error"
) -> list[Any]:
    """The episode's model-call records, oldest first."""
    async with pool.acquire() as conn:
        rows: list[Any] = await conn.fetch(
            f"SELECT {columns} FROM llm_calls WHERE dataset = $1 AND project_id = $2"
            " AND episode_id = $3 ORDER BY id",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip
    return rows
