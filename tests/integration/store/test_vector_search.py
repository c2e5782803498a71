"""Tenant-filtered vector search never under-returns next to a crowded neighbour tenant.

The neighbour tenant holds 2,500 vectors all closer to the query than any of the target
tenant's rows, so a plain HNSW scan (ef_search 40, filter applied afterwards) finds none
of the target's rows. The target is a small tenant, searched exactly by default; the tests
also force the index path (exact_below=0, and enable_sort = off so the planner walks the
HNSW graph rather than sorting a btree scan) to prove that path complete too.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pgvector import Vector

from streams.model.scripted import hashed_vector, vector_at_similarity
from streams.store.db import create_pool
from streams.store.entities import nearest_same_type
from streams.store.live_facts import nearest_live_facts
from streams.store.vector_search import ScanTuning, configure_search
from tests.db_support import TEST_EMBEDDING_DIM, create_fresh_database

DIM = TEST_EMBEDDING_DIM
CROWD = 2_000
QUERY = hashed_vector("the query", DIM)
# Target rows at similarity 0.50 .. 0.64; the crowd at 0.90 .. 0.99.
TARGET_SIMS = [0.50 + 0.02 * i for i in range(8)]


@pytest.fixture(scope="module")
async def crowded(database_url: str) -> AsyncIterator[Any]:
    pool = await create_pool(await create_fresh_database(database_url), max_size=2)
    rng = random.Random(7)
    fact_rows, entity_rows = [], []
    for i in range(CROWD):
        v = Vector(vector_at_similarity(QUERY, rng.uniform(0.90, 0.99), seed=f"c{i}"))
        fact_rows.append(("crowd", "p", "user", "likes", f"thing {i}", "literal", 0.9, "e", v))
        entity_rows.append(("crowd", "p", f"org {i}", "ORG", v))
    for i, sim in enumerate(TARGET_SIMS):
        v = Vector(vector_at_similarity(QUERY, sim, seed=f"t{i}"))
        fact_rows.append(("target", "p", "user", "likes", f"mine {i}", "literal", 0.9, "e", v))
        entity_rows.append(("target", "p", f"mine {i}", "ORG", v))
    cols = ["dataset", "project_id", "subject", "predicate", "object", "kind", "confidence"]
    await pool.copy_records_to_table(
        "facts", records=fact_rows, columns=[*cols, "episode_id", "embedding"]
    )
    await pool.copy_records_to_table(
        "entities",
        records=entity_rows,
        columns=["dataset", "project_id", "name", "type", "embedding"],
    )
    await pool.execute("ANALYZE facts; ANALYZE entities")
    yield pool
    await pool.close()


EXPECTED_TOP5 = [f"mine {i}" for i in (7, 6, 5, 4, 3)]


async def _on_hnsw(conn: Any) -> None:
    """Make the HNSW index the planner's only sensible path for this transaction."""
    await conn.execute("SET LOCAL enable_sort = off")
    plan = "\n".join(
        r[0]
        for r in await conn.fetch(
            "EXPLAIN SELECT id FROM facts t WHERE dataset = 'target' AND project_id = 'p'"
            " AND invalid_at IS NULL ORDER BY embedding <=> $1 LIMIT 5",
            Vector(QUERY),
        )
    )
    assert "facts_embedding_hnsw" in plan, plan


async def test_plain_hnsw_under_returns_here(crowded: Any) -> None:
    """The trap is real: without iterative scan the target's rows are filtered away."""
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        await conn.execute("SET LOCAL hnsw.iterative_scan = off")
        rows = await conn.fetch(
            "SELECT object FROM facts WHERE dataset = 'target' AND project_id = 'p'"
            " AND invalid_at IS NULL ORDER BY embedding <=> $1 LIMIT 5",
            Vector(QUERY),
        )
    assert len(rows) < 5


async def test_iterative_scan_alone_reaches_past_the_crowd(crowded: Any) -> None:
    """What keeps big tenants off the exact fallback: pgvector 0.8 walks on past the crowd."""
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        await configure_search(conn)
        rows = await conn.fetch(
            "SELECT object FROM facts WHERE dataset = 'target' AND project_id = 'p'"
            " AND invalid_at IS NULL ORDER BY embedding <=> $1 LIMIT 5",
            Vector(QUERY),
        )
    assert sorted(r["object"] for r in rows) == sorted(EXPECTED_TOP5)


@pytest.mark.parametrize(
    "tuning",
    [
        ScanTuning(),
        ScanTuning(exact_below=0),
        ScanTuning(exact_below=0, max_scan_tuples=200),
        ScanTuning(exact_below=0, iterative_scan="strict_order"),
    ],
    ids=["small-tenant-exact", "iterative", "budget-spent-exact-fallback", "strict-order"],
)
async def test_nearest_live_facts_returns_the_tenants_nearest_rows(
    crowded: Any, tuning: ScanTuning
) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        found = await nearest_live_facts(conn, "target", "p", [QUERY, QUERY], k=5, tuning=tuning)
    for per_query in found:
        assert [f.object for f in per_query] == EXPECTED_TOP5
        assert [round(f.similarity or 0, 3) for f in per_query] == [0.64, 0.62, 0.6, 0.58, 0.56]


async def test_asking_for_more_than_the_tenant_has_returns_all_of_them(crowded: Any) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        (found,) = await nearest_live_facts(
            conn, "target", "p", [QUERY], k=50, tuning=ScanTuning(exact_below=0)
        )
    assert sorted(f.object for f in found) == sorted(f"mine {i}" for i in range(8))


async def test_nearest_same_type_entity_is_found_past_the_crowd(crowded: Any) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_sort = off")
        found = await nearest_same_type(conn, "target", "p", [(QUERY, "ORG"), (QUERY, "FOOD")], k=2)
    assert [(e.name, round(e.similarity, 3)) for e in found[0]] == [
        ("mine 7", 0.64),
        ("mine 6", 0.62),
    ]
    assert found[1] == []  # no FOOD entities: nothing, not someone else's
