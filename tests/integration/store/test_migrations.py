"""Migrations apply twice cleanly, and the partial unique index guards live facts."""

from __future__ import annotations

import math

import asyncpg
import pytest
from pgvector import Vector

from streams.store import episodes, gate
from streams.store.db import connect
from streams.store.episodes import EPISODE_KEY
from streams.store.migrate import load_migrations, migrate
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database
from tests.support.episodes import episode, new_tenant

INSERT_FACT = (
    "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
    " episode_id) VALUES ($1, $2, 'user', 'works at', 'google', 'relationship', 0.9, 'e1')"
    " RETURNING id"
)


@pytest.fixture
async def db_url(database_url: str) -> str:
    return await create_fresh_database(database_url)


async def test_migrations_apply_twice_and_record_versions(db_url: str) -> None:
    # create_fresh_database already migrated once; a second run applies nothing.
    assert await migrate(db_url, TEST_EMBEDDING_DIM) == []
    conn = await asyncpg.connect(db_url)
    try:
        versions = [r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")]
        assert sorted(versions) == [m.version for m in load_migrations()]
        tables = {
            r["tablename"]
            for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname='public'")
        }
        assert {
            "episodes",
            "entities",
            "facts",
            "llm_calls",
            "consumed_offsets",
            "fact_drops",
        } <= tables
        for table in ("episodes", "entities", "facts", "llm_calls", "fact_drops"):
            columns = {
                r["column_name"]
                for r in await conn.fetch(
                    "SELECT column_name FROM information_schema.columns WHERE table_name=$1", table
                )
            }
            assert {"dataset", "project_id"} <= columns, table
    finally:
        await conn.close()


async def test_a_different_embedding_dimension_is_refused(db_url: str) -> None:
    with pytest.raises(RuntimeError, match="embedding_dim=16"):
        await migrate(db_url, TEST_EMBEDDING_DIM * 2)


async def test_partial_unique_index_on_live_facts(db_url: str) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        first = await conn.fetchval(INSERT_FACT, "ds", "p1")
        # A second live copy for the same tenant is refused.
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.fetchval(INSERT_FACT, "ds", "p1")
        # The same triple for another tenant (other project, or other dataset) is fine.
        await conn.fetchval(INSERT_FACT, "ds", "p2")
        await conn.fetchval(INSERT_FACT, "other", "p1")
        # Once the first is invalidated, the triple can be live again.
        await conn.execute(
            "UPDATE facts SET invalid_at = now(), invalid_reason = 'superseded' WHERE id = $1",
            first,
        )
        second = await conn.fetchval(INSERT_FACT, "ds", "p1")
        assert second != first
        rows = await conn.fetch(
            "SELECT id, invalid_at IS NULL AS live FROM facts"
            " WHERE dataset='ds' AND project_id='p1'"
            " ORDER BY id"
        )
        assert [(r["id"], r["live"]) for r in rows] == [(first, False), (second, True)]
    finally:
        await conn.close()


@pytest.mark.parametrize("dim", [768, 2000])
async def test_fact_vectors_stay_in_their_row_when_it_fits(database_url: str, dim: int) -> None:
    """Migration 007: a 768-dim vector (3 KB) is stored inline, not in the TOAST table
    (which made exact scans ~5x slower); so is a 2000-dim one (8 KB, pgvector's HNSW
    maximum, just under the largest row a page holds)."""
    conn = await connect(await create_fresh_database(database_url, dim=dim))
    try:
        fact_id = await conn.fetchval(INSERT_FACT, "ds", "p")
        await conn.execute(
            "UPDATE facts SET embedding = $2 WHERE id = $1",
            fact_id, Vector([math.sin(i) for i in range(dim)]),  # incompressible
        )  # fmt: skip
        toast = await conn.fetchval(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'facts'"
        )
        toasted = await conn.fetchval(f"SELECT count(*) FROM {toast}")
        stored = await conn.fetchval("SELECT embedding FROM facts WHERE id = $1", fact_id)
    finally:
        await conn.close()
    assert len(stored.to_list()) == dim
    assert toasted == 0


async def test_a_fact_row_is_stored_whole_and_uncompressed(database_url: str) -> None:
    """Migration 024: a fact with a 768-dim vector is past the 2 KB at which Postgres
    shrinks rows by default; its quote and object stay in the row uncompressed (not moved
    to the TOAST table, read back from there on every read) and the vector is not run
    through pglz, which never shrinks random floats."""
    conn = await connect(await create_fresh_database(database_url, dim=768))
    quote = "I hike every weekend, hike in the hills, hike by the sea, hike in the rain. " * 2
    try:
        fact_id = await conn.fetchval(INSERT_FACT, "ds", "p")
        await conn.execute(
            "UPDATE facts SET embedding = $2, source_quote = $3, object = $3 WHERE id = $1",
            fact_id, Vector([math.sin(i) for i in range(768)]), quote,
        )  # fmt: skip
        toast = await conn.fetchval(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'facts'"
        )
        toasted = await conn.fetchval(f"SELECT count(*) FROM {toast}")
        row = await conn.fetchrow(
            "SELECT source_quote, pg_column_compression(source_quote) AS quote_codec,"
            " pg_column_compression(embedding) AS vector_codec FROM facts WHERE id = $1",
            fact_id,
        )
    finally:
        await conn.close()
    assert toasted == 0
    assert (row["quote_codec"], row["vector_codec"]) == (None, None)
    assert row["source_quote"] == quote


async def test_a_ledger_row_keeps_its_summary_vector_once_across_its_versions(
    database_url: str,
) -> None:
    """Migration 025: the ledger's row is rewritten as its episode moves on (queued,
    claimed, written). The summary's vector, which nothing reads back, is written to the
    TOAST table once; every later version of the row points at that one copy instead of
    carrying 3 KB again. A long transcript is stored smaller and still read back whole."""
    conn = await connect(await create_fresh_database(database_url, dim=768))
    tenant = new_tenant()
    texts = [f"Message {i}: I walked the dog along the river, then cooked dinner." * 6
             for i in range(12)]  # fmt: skip
    ev = episode(tenant, texts)
    key = (ev.dataset, ev.project_id, ev.episode_id)
    vector = [math.sin(i) for i in range(768)]  # incompressible
    try:
        toast = await conn.fetchval(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE relname = 'episodes'"
        )
        await episodes.upsert_episode(conn, ev)
        await episodes.save_summary_embedding(conn, *key, vector, summary="A walk, a dinner.")
        chunk_read = (
            f"SELECT pg_column_toast_chunk_id(summary_embedding) FROM episodes WHERE {EPISODE_KEY}"
        )
        chunk = await conn.fetchval(chunk_read, *key)
        chunks_after_summary = await conn.fetchval(f"SELECT count(*) FROM {toast}")
        await episodes.enqueue_episode(conn, ev)
        claimed = await gate.claim_next(conn, *tenant, "w1", 600.0)
        await gate.mark_semantic_done(conn, *key)
        chunks_after_done = await conn.fetchval(f"SELECT count(*) FROM {toast}")
        stored = await conn.fetchrow(
            "SELECT semantic_status, status, summary_embedding,"
            " pg_column_compression(transcript) AS transcript_codec"
            f" FROM episodes WHERE {EPISODE_KEY}",
            *key,
        )
        chunk_after_done = await conn.fetchval(chunk_read, *key)
    finally:
        await conn.close()
    assert chunk is not None and chunk_after_done == chunk
    assert chunks_after_done == chunks_after_summary
    assert (stored["status"], stored["semantic_status"]) == ("done", "done")
    assert stored["summary_embedding"].to_list() == pytest.approx(vector, rel=1e-6)
    assert stored["transcript_codec"] is not None  # stored compressed, not copied whole
    assert claimed is not None and [m.content for m in claimed.messages] == texts
