"""Micro-batched reads against real Postgres: concurrent records of several tenants ask
their entity names in one round trip, and each gets its own tenant's rows only."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.domain.resolution import NewEntity
from streams.store.entities import NameLookup, names_finder, upsert_entities
from streams.store.judge_reads import ConflictLookup, conflicts_finder
from streams.store.live_facts import TriplesLookup, believed_finder
from streams.store.round_trips import round_trips
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
