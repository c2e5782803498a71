"""Tenant-filtered vector search never under-returns, even when the tenant's own index is
crowded with rows the query filters out.

A big tenant has its own partial HNSW index (streams/store/tenant_indexes.py). It holds
2,000 expired facts and 2,000 entities of another type, all closer to the query than any
of the 8 rows a search may return, so a plain HNSW scan (ef_search 40, filter applied
afterwards) finds none of them; and 2 live facts of another subject, further away. The
tests search exactly (a high exact_below) and also force the index
path (exact_below=0, and enable_sort = off so the planner walks the HNSW graph rather
than sorting a btree scan) to prove that path complete too, and show that a tenant's
index serves no other tenant.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pgvector import Vector

from streams.model.fakes.scripted import hashed_vector, vector_at_similarity
from streams.store import vector_search
from streams.store.db import create_pool
from streams.store.entities import nearest_same_type
from streams.store.live_facts import nearest_live_facts
from streams.store.tenant_indexes import TenantIndex, build_missing, tenants_without_index
from streams.store.vector_search import ScanTuning, configure_search
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database

DIM = TEST_EMBEDDING_DIM
CROWD = 2_000
QUERY = hashed_vector("the query", DIM)
# Target rows at similarity 0.50 .. 0.64; the crowd at 0.90 .. 0.99.
TARGET_SIMS = [0.50 + 0.02 * i for i in range(8)]
SISTER_SIMS = [0.48, 0.46]


FACTS_INDEX = TenantIndex("facts", "target", "p").name
LIVE = "AND invalid_at IS NULL AND (valid_until IS NULL OR valid_until > now())"


@pytest.fixture(scope="module")
async def crowded(database_url: str) -> AsyncIterator[Any]:
    pool = await create_pool(await create_fresh_database(database_url), max_size=2)
    rng = random.Random(7)
    fact_rows, entity_rows = [], []
    expired = datetime.now(UTC) - timedelta(days=1)
    for i in range(CROWD):
        v = Vector(vector_at_similarity(QUERY, rng.uniform(0.90, 0.99), seed=f"c{i}"))
        fact_rows.append(("target", "p", "user", "liked", f"old {i}", "literal", 0.9, "e", v,
                          expired))  # fmt: skip
        entity_rows.append(("target", "p", f"place {i}", "PLACE", v))
    for i, sim in enumerate(TARGET_SIMS):
        v = Vector(vector_at_similarity(QUERY, sim, seed=f"t{i}"))
        fact_rows.append(("target", "p", "user", "likes", f"mine {i}", "literal", 0.9, "e", v,
                          None))  # fmt: skip
        entity_rows.append(("target", "p", f"mine {i}", "ORG", v))
        fact_rows.append(("other", "p", "user", "likes", f"theirs {i}", "literal", 0.9, "e", v,
                          None))  # fmt: skip
    for i, sim in enumerate(SISTER_SIMS):  # another subject, further than the user's rows
        v = Vector(vector_at_similarity(QUERY, sim, seed=f"s{i}"))
        fact_rows.append(("target", "p", "sister", "likes", f"hers {i}", "literal", 0.9, "e", v,
                          None))  # fmt: skip
    cols = ["dataset", "project_id", "subject", "predicate", "object", "kind", "confidence"]
    await pool.copy_records_to_table(
        "facts", records=fact_rows, columns=[*cols, "episode_id", "embedding", "valid_until"]
    )
    await pool.copy_records_to_table(
        "entities",
        records=entity_rows,
        columns=["dataset", "project_id", "name", "type", "embedding"],
    )
    async with pool.acquire() as conn:
        built = await build_missing(conn, min_rows=CROWD // 2, limit=None)
    assert {(i.relation, i.dataset) for i in built} == {("facts", "target"), ("entities", "target")}
    await pool.execute("ANALYZE facts; ANALYZE entities")
    yield pool
    await pool.close()


EXPECTED_TOP5 = [f"mine {i}" for i in (7, 6, 5, 4, 3)]


async def _plan(conn: Any, dataset: str) -> str:
    rows = await conn.fetch(
        f"EXPLAIN SELECT id FROM facts t WHERE dataset = $2 AND project_id = 'p' {LIVE}"
        " AND graph_pending IS NULL ORDER BY embedding <=> $1 LIMIT 5",
        Vector(QUERY), dataset,
    )  # fmt: skip
    return "\n".join(r[0] for r in rows)


async def _on_hnsw(conn: Any) -> None:
    """Make the tenant's HNSW index the planner's only sensible path for this transaction."""
    await conn.execute("SET LOCAL enable_sort = off; SET LOCAL plan_cache_mode = force_custom_plan")
    plan = await _plan(conn, "target")
    assert FACTS_INDEX in plan, plan


async def test_a_tenants_index_serves_that_tenant_only(crowded: Any) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        await conn.execute("SET LOCAL enable_seqscan = off")
        assert FACTS_INDEX not in await _plan(conn, "other")
        assert await tenants_without_index(conn, "facts", CROWD // 2) == []
        # "other" holds 8 rows: below any threshold, it gets no index of its own.
        assert await tenants_without_index(conn, "facts", 5) == [TenantIndex("facts", "other", "p")]


async def test_plain_hnsw_under_returns_here(crowded: Any) -> None:
    """The trap is real: without iterative scan the target's rows are filtered away."""
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        await conn.execute("SET LOCAL hnsw.iterative_scan = off")
        rows = await conn.fetch(
            f"SELECT object FROM facts WHERE dataset = 'target' AND project_id = 'p' {LIVE}"
            " AND graph_pending IS NULL ORDER BY embedding <=> $1 LIMIT 5",
            Vector(QUERY),
        )
    assert len(rows) < 5


async def test_iterative_scan_alone_reaches_past_the_crowd(crowded: Any) -> None:
    """What keeps big tenants off the exact fallback: pgvector 0.8 walks on past the crowd."""
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        await configure_search(conn)
        rows = await conn.fetch(
            f"SELECT object FROM facts WHERE dataset = 'target' AND project_id = 'p' {LIVE}"
            " AND graph_pending IS NULL ORDER BY embedding <=> $1 LIMIT 5",
            Vector(QUERY),
        )
    assert sorted(r["object"] for r in rows) == sorted(EXPECTED_TOP5)


@pytest.mark.parametrize(
    "tuning",
    [
        ScanTuning(exact_below=10_000),
        ScanTuning(exact_below=0),
        ScanTuning(exact_below=0, max_scan_tuples=200),
        ScanTuning(exact_below=0, iterative_scan="strict_order"),
    ],
    ids=["exact", "iterative", "budget-spent-exact-fallback", "strict-order"],
)
async def test_nearest_live_facts_returns_the_tenants_nearest_rows(
    crowded: Any, tuning: ScanTuning
) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        found = await nearest_live_facts(
            conn, "target", "p", [(QUERY, "user"), (QUERY, "sister"), (QUERY, "user")],
            k=5, tuning=tuning,
        )  # fmt: skip
    for per_query in (found[0], found[2]):
        assert [f.object for f in per_query] == EXPECTED_TOP5
        assert [round(f.similarity or 0, 3) for f in per_query] == [0.64, 0.62, 0.6, 0.58, 0.56]
    # The sister's own two facts, not the user's nearer ones.
    assert [(f.subject, f.object) for f in found[1]] == [("sister", "hers 0"), ("sister", "hers 1")]


async def test_asking_for_more_than_the_tenant_has_returns_all_of_them(crowded: Any) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await _on_hnsw(conn)
        (found,) = await nearest_live_facts(
            conn, "target", "p", [(QUERY, "user")], k=50, tuning=ScanTuning(exact_below=0)
        )
    assert sorted(f.object for f in found) == sorted(f"mine {i}" for i in range(8))


async def test_nearest_same_type_entity_is_found_past_the_other_types(crowded: Any) -> None:
    async with crowded.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_sort = off")
        found = await nearest_same_type(conn, "target", "p", [(QUERY, "ORG"), (QUERY, "FOOD")], k=2)
    assert [(e.name, round(e.similarity, 3)) for e in found[0]] == [
        ("mine 7", 0.64),
        ("mine 6", 0.62),
    ]
    assert found[1] == []  # no FOOD entities: nothing, not someone else's


async def test_a_small_tenant_is_scanned_exactly_by_one_cached_statement(crowded: Any) -> None:
    # "other" holds 8 live facts: its keys are scanned exactly by a statement asyncpg
    # caches (planned once), and it is not remembered as large.
    async with crowded.acquire() as conn:
        found = await nearest_live_facts(conn, "other", "p", [(QUERY, "user"), (QUERY, "x")], k=3)
        again = await nearest_live_facts(conn, "other", "p", [(QUERY, "user")], k=3)
    assert [f.object for f in found[0]] == ["theirs 7", "theirs 6", "theirs 5"]
    assert found[1] == []
    assert [f.object for f in again[0]] == ["theirs 7", "theirs 6", "theirs 5"]
    assert ("facts", "other", "p") not in vector_search._LARGE_TENANTS


async def test_a_large_tenant_found_by_the_count_takes_the_planned_path_next(
    crowded: Any,
) -> None:
    # "target" believes 2,010 rows (2,000 of them expired): the first search is exact
    # (complete, only slower) and counts them; the tenant is then remembered as large.
    vector_search._LARGE_TENANTS.pop(("facts", "target", "p"), None)
    async with crowded.acquire() as conn:
        (first,) = await nearest_live_facts(conn, "target", "p", [(QUERY, "user")], k=5)
        assert ("facts", "target", "p") in vector_search._LARGE_TENANTS
        (second,) = await nearest_live_facts(conn, "target", "p", [(QUERY, "user")], k=5)
    assert [f.object for f in first] == EXPECTED_TOP5
    assert [f.object for f in second] == EXPECTED_TOP5
