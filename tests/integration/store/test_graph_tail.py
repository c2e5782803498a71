"""A big tenant's rows written after its vector index was built wait outside the index
(streams/store/graph_tail.py): the writer pays no graph insert, searches still find them
at once, and the sweep grafts them into the index."""

from __future__ import annotations

from typing import Any

from pgvector import Vector

from streams.domain.entity_rows import NewEntity
from streams.settings import Settings
from streams.stages.write import create_stage
from streams.store import graph_tail
from streams.store.entities import nearest_same_type, upsert_entities
from streams.store.live_facts import nearest_live_facts
from streams.store.tenant_indexes import TenantIndex, build_index
from streams.store.vector_search import ScanTuning, nearest
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.events import new_tenant
from tests.support.facts import cand, deps, fact, judged
from tests.support.stages import ctx
from tests.support.store_rows import seed_episode

DIM = TEST_EMBEDDING_DIM
BIG = 60
INDEX_PATH = ScanTuning(exact_below=0)  # big tenants' path: the graph and its tail


def _vector(i: int) -> list[float]:
    return [((i * 7 + d * 13) % 17 - 8) / 8 + (0.5 if d == i % DIM else 0) for d in range(DIM)]


async def _big_tenant(pool: Any) -> tuple[str, str]:
    """A tenant with BIG live facts and BIG entities, and a vector index of each."""
    t = new_tenant()
    columns = ["dataset", "project_id", "subject", "predicate", "object", "kind", "confidence"]
    await pool.copy_records_to_table(
        "facts",
        records=[
            (*t, "user", "has", f"thing {i}", "literal", 0.9, "e0", Vector(_vector(i)))
            for i in range(BIG)
        ],
        columns=[*columns, "episode_id", "embedding"],
    )
    await pool.copy_records_to_table(
        "entities",
        records=[(*t, f"place {i}", "PLACE", Vector(_vector(i))) for i in range(BIG)],
        columns=["dataset", "project_id", "name", "type", "embedding"],
    )
    async with pool.acquire() as conn:
        for relation in ("facts", "entities"):
            await build_index(conn, TenantIndex(relation, *t))
    return t


async def _graph_nearest(pool: Any, relation: str, t: tuple[str, str], v: list[float]) -> str:
    """The nearest row the tenant's index itself holds: the planner is left no other path."""
    label = "object" if relation == "facts" else "name"
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off;"
            " SET LOCAL enable_bitmapscan = off; SET LOCAL plan_cache_mode = force_custom_plan"
        )
        query = (
            f"SELECT {label} FROM {relation} t WHERE dataset = $2 AND project_id = $3"
            f" AND {'invalid_at IS NULL AND ' if relation == 'facts' else ''}"
            f"{graph_tail.in_graph()} ORDER BY embedding <=> $1 LIMIT 1"
        )
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + query, Vector(v), *t))
        assert TenantIndex(relation, *t).name in plan, plan
        return str(await conn.fetchval(query, Vector(v), *t))


async def test_a_fact_written_after_the_index_is_found_before_and_after_the_graft(
    pool: Any,
) -> None:
    t = await _big_tenant(pool)
    await seed_episode(pool, t, "e1")
    sailing = fact("user", "likes", "sailing")
    await create_stage(deps(Settings(), pool)).handle(judged(t, [cand(sailing)]), ctx(1))
    row = await pool.fetchrow(
        "SELECT embedding, graph_pending FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND object = 'sailing'",
        *t,
    )
    vector = row["embedding"].to_list()

    # Written while the tenant has an index: outside it, so the insert cost no graph walk.
    assert row["graph_pending"] is True
    assert await graph_tail.pending(pool, "facts", *t) == 1
    assert await _graph_nearest(pool, "facts", t, vector) != "sailing"
    # Searches find it anyway: the tail is scanned beside the index.
    async with pool.acquire() as conn:
        (near,) = await nearest_live_facts(conn, *t, [(vector, "user")], k=3, tuning=INDEX_PATH)
        (plain,) = await nearest(
            conn, source="facts", columns="t.object",
            where="t.dataset = $2 AND t.project_id = $3 AND t.invalid_at IS NULL",
            args=t, vectors=[vector], k=3, tuning=INDEX_PATH,
        )  # fmt: skip
    assert near[0].object == "sailing" and round(near[0].similarity or 0, 3) == 1.0
    assert len(near) == 3
    assert plain[0]["object"] == "sailing"

    async with pool.acquire() as conn:
        grafted = await graph_tail.graft(conn)
    assert grafted.facts >= 1
    assert await graph_tail.pending(pool, "facts", *t) == 0
    assert await _graph_nearest(pool, "facts", t, vector) == "sailing"
    async with pool.acquire() as conn:
        (near,) = await nearest_live_facts(conn, *t, [(vector, "user")], k=3, tuning=INDEX_PATH)
    assert [f.object for f in near].count("sailing") == 1 and near[0].object == "sailing"


async def test_a_small_tenants_rows_are_never_pending(pool: Any) -> None:
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    await create_stage(deps(Settings(), pool)).handle(
        judged(t, [cand(fact("user", "likes", "tea"))]), ctx(1)
    )
    ids = await upsert_entities(pool, *t, [NewEntity("kyoto", "PLACE", _vector(1))])
    assert ids
    assert await graph_tail.pending(pool, "facts", *t) == 0
    assert await graph_tail.pending(pool, "entities", *t) == 0


async def test_an_entity_inserted_after_the_index_is_resolved_before_and_after_the_graft(
    pool: Any,
) -> None:
    t = await _big_tenant(pool)
    v = [0.5 if d % 2 else -0.5 for d in range(DIM)]
    await upsert_entities(pool, *t, [NewEntity("lisbon", "PLACE", v)])
    assert await graph_tail.pending(pool, "entities", *t) == 1
    assert await _graph_nearest(pool, "entities", t, v) != "lisbon"
    async with pool.acquire() as conn:
        (found,) = await nearest_same_type(conn, *t, [(v, "PLACE")], k=2, tuning=INDEX_PATH)
    assert found[0].name == "lisbon" and len(found) == 2

    async with pool.acquire() as conn:
        await graph_tail.graft(conn)
    assert await graph_tail.pending(pool, "entities", *t) == 0
    assert await _graph_nearest(pool, "entities", t, v) == "lisbon"


async def test_a_graft_pass_is_bounded_and_the_next_pass_finishes(pool: Any) -> None:
    t = await _big_tenant(pool)
    await pool.execute(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " episode_id, embedding, graph_pending)"
        " SELECT $1, $2, 'user', 'saw', 'film ' || g, 'literal', 0.9, 'e2', $3, true"
        " FROM generate_series(1, 7) g",
        *t, Vector(_vector(3)),
    )  # fmt: skip
    async with pool.acquire() as conn:
        await graph_tail.graft(conn)  # whatever other tests left pending
        await pool.execute(
            "UPDATE facts SET graph_pending = true WHERE dataset = $1 AND project_id = $2"
            " AND predicate = 'saw'",
            *t,
        )
        first = await graph_tail.graft(conn, batch=2, limit=5)
        left = await graph_tail.pending(conn, "facts", *t)
        second = await graph_tail.graft(conn, batch=2, limit=5)
    assert (first.facts, left, second.facts) == (5, 2, 2)
    assert await graph_tail.pending(pool, "facts", *t) == 0


async def test_an_index_built_before_the_tail_existed_gives_way_to_the_new_one(
    pool: Any,
) -> None:
    t = new_tenant()
    index = TenantIndex("facts", *t)
    await pool.execute(
        f"CREATE INDEX {index.former_name} ON facts USING hnsw (embedding vector_cosine_ops)"
        f" WHERE dataset = '{t[0]}' AND project_id = '{t[1]}' AND invalid_at IS NULL"
    )
    async with pool.acquire() as conn:
        await build_index(conn, index)
    names = {
        r["indexname"]
        for r in await pool.fetch(
            "SELECT indexname FROM pg_indexes WHERE indexname = ANY($1::text[])",
            [index.name, index.former_name],
        )
    }
    assert names == {index.name}


async def test_the_graft_skips_rows_another_transaction_holds(pool: Any) -> None:
    t = await _big_tenant(pool)
    await pool.execute(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " episode_id, embedding, graph_pending)"
        " VALUES ($1, $2, 'user', 'reads', 'dune', 'literal', 0.9, 'e3', $3, true)",
        *t, Vector(_vector(5)),
    )  # fmt: skip
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(
            "SELECT 1 FROM facts WHERE dataset = $1 AND project_id = $2 AND object = 'dune'"
            " FOR UPDATE",
            *t,
        )
        async with pool.acquire() as conn:
            await graph_tail.graft(conn)  # returns: a locked row waits for a later pass
        assert await graph_tail.pending(pool, "facts", *t) == 1
    async with pool.acquire() as conn:
        await graph_tail.graft(conn)
    assert await graph_tail.pending(pool, "facts", *t) == 0
