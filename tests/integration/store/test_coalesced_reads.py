"""Micro-batched reads against real Postgres: concurrent records of several tenants ask
their entity names in one round trip, and each gets its own tenant's rows only."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.domain.entity_rows import NewEntity
from streams.model.fakes.scripted import hashed_vector
from streams.store.batched_search import TenantSearch, search_many
from streams.store.entities import NameLookup, names_finder, upsert_entities
from streams.store.judge_reads import ConflictLookup, conflicts_finder
from streams.store.live_facts import (
    FACTS_BY_SUBJECT,
    TriplesLookup,
    believed_finder,
    nearest_live_facts,
    nearest_live_facts_batched,
    subject_searcher,
)
from streams.store.round_trips import round_trips
from streams.store.vector_search import DEFAULT_TUNING, is_large
from tests.support.db import TEST_EMBEDDING_DIM as DIM
from tests.support.events import new_tenant
from tests.support.facts import cand, fact
from tests.support.store_rows import seed_fact


async def test_several_tenants_lookups_share_one_statement_and_see_only_their_own(
    pool: Any,
) -> None:
    tenants = [new_tenant() for _ in range(4)]
    ids = {}
    for t in tenants:  # the same names in every tenant
        ids[t] = await upsert_entities(
            pool, *t, [NewEntity("acme", "ORG", None), NewEntity("lisbon", "PLACE", None)]
        )
    find = names_finder(pool)
    before = round_trips(pool)

    found = await asyncio.gather(
        *(find(NameLookup(*t, ("acme", "lisbon", "nowhere"))) for t in tenants)
    )

    assert round_trips(pool) - before == 1
    assert (find.batches, find.requests) == (1, 4)
    for t, rows in zip(tenants, found, strict=True):
        assert {(r.name, r.type): r.id for r in rows} == ids[t]


async def test_a_tenant_with_nothing_stored_gets_nothing_beside_one_that_has_rows(
    pool: Any,
) -> None:
    stored, empty = new_tenant(), new_tenant()
    await upsert_entities(pool, *stored, [NewEntity("acme", "ORG", None)])
    find = names_finder(pool)
    got_stored, got_empty, got_none = await asyncio.gather(
        find(NameLookup(*stored, ("acme",))),
        find(NameLookup(*empty, ("acme",))),
        find(NameLookup(*stored, ())),
    )
    assert [r.name for r in got_stored] == ["acme"]
    assert got_empty == [] and got_none == []


async def test_dedups_triple_reads_of_several_tenants_share_one_statement(pool: Any) -> None:
    a, b, quiet = new_tenant(), new_tenant(), new_tenant()
    jazz = fact("user", "likes", "jazz")
    a_id = await seed_fact(pool, a, jazz)
    await seed_fact(pool, b, fact("user", "likes", "tea"))
    watermark = {
        t: await pool.fetchval(
            "SELECT max(created_at) FROM facts WHERE dataset = $1 AND project_id = $2", *t
        )
        for t in (a, b)
    }
    find = believed_finder(pool)
    triple = ("user", "likes", "jazz")
    before = round_trips(pool)

    (in_a, at_a), (in_b, at_b), (in_quiet, at_quiet), (nothing, at_nothing) = await asyncio.gather(
        find(TriplesLookup(*a, (triple,))),
        find(TriplesLookup(*b, (triple,))),
        find(TriplesLookup(*quiet, (triple,))),
        find(TriplesLookup(*a, ())),
    )

    assert round_trips(pool) - before == 1 and find.batches == 1
    assert [f.id for f in in_a[triple]] == [a_id] and at_a == watermark[a]
    assert in_b == {} and at_b == watermark[b]  # b's own tea, not a's jazz
    assert in_quiet == {} and at_quiet is None
    assert nothing == {} and at_nothing is None  # no triples: nothing read


async def test_the_judges_reads_of_several_tenants_share_one_statement(pool: Any) -> None:
    a, b = new_tenant(), new_tenant()
    google_a = await seed_fact(pool, a, fact("user", "works at", "google"))
    google_b = await seed_fact(pool, b, fact("user", "works at", "google"))
    ibm_b = await seed_fact(pool, b, fact("user", "likes", "ibm"))
    now = datetime.now(UTC)
    find = conflicts_finder(pool)
    before = round_trips(pool)

    (live_a, at_a), (live_b, at_b), (none, at_none) = await asyncio.gather(
        find(ConflictLookup(*a, (cand(fact("user", "works at", "acme")),), now)),
        find(
            ConflictLookup(
                *b,
                (
                    cand(fact("user", "works at", "acme")),
                    cand(fact("user", "sold", "ibm", until=now - timedelta(days=1))),
                ),
                now,
            )
        ),
        find(ConflictLookup(*a, (), now)),
    )

    assert round_trips(pool) - before == 1 and find.batches == 1
    assert [f.id for f in live_a] == [google_a]  # same predicate; not b's google
    assert [f.id for f in live_b] == [google_b, ibm_b]  # and same object with an end
    assert at_a is not None and at_b is not None and at_a != at_b
    assert none == [] and at_none is None


async def test_small_tenants_searches_share_one_statement_and_match_the_planned_search(
    pool: Any,
) -> None:
    a, b = new_tenant(), new_tenant()
    for t, objects in ((a, ("jazz", "tea", "rome")), (b, ("jazz", "chess"))):
        for o in objects:
            await seed_fact(pool, t, fact("user", "likes", o), embedding=hashed_vector(o, DIM))
    await seed_fact(pool, a, fact("sister", "likes", "jazz"), embedding=hashed_vector("j", DIM))
    query = hashed_vector("jazz", DIM)
    search = subject_searcher(pool)
    before = round_trips(pool)

    near_a, near_b = await asyncio.gather(
        nearest_live_facts_batched(search, pool, *a, [(query, "user"), (query, "sister")]),
        nearest_live_facts_batched(search, pool, *b, [(query, "user")]),
    )

    assert round_trips(pool) - before == 1 and search.batches == 1
    async with pool.acquire() as conn:
        planned_a = await nearest_live_facts(conn, *a, [(query, "user"), (query, "sister")])
        planned_b = await nearest_live_facts(conn, *b, [(query, "user")])
    assert near_a == planned_a and near_b == planned_b
    assert near_a[0][0].object == "jazz" and len(near_a[0]) == 3
    assert [(f.subject, f.object) for f in near_a[1]] == [("sister", "jazz")]
    assert sorted(f.object for f in near_b[0]) == ["chess", "jazz"]  # b's own only


async def test_a_tenant_past_the_exact_limit_is_answered_none_and_remembered(pool: Any) -> None:
    big = new_tenant()
    await pool.execute(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " episode_id) SELECT $1, $2, 'user', 'saw', 'film ' || g, 'literal', 0.9, 'e'"
        " FROM generate_series(1, $3::int) g",
        *big, DEFAULT_TUNING.exact_below + 1,
    )  # fmt: skip
    async with pool.acquire() as conn:
        (answer,) = await search_many(
            conn, FACTS_BY_SUBJECT, [TenantSearch(*big, ((hashed_vector("x", DIM), "user"),))]
        )
    assert answer is None
    search = subject_searcher(pool)
    found = await nearest_live_facts_batched(
        search, pool, *big, [(hashed_vector("x", DIM), "user")]
    )
    assert found == [[]]  # no vectors stored; searched the planned way
    assert is_large(("facts", *big)) and search.batches == 1
