"""Micro-batched reads against real Postgres: concurrent records of several tenants ask
their entity names in one round trip, and each gets its own tenant's rows only."""

from __future__ import annotations

import asyncio
from typing import Any

from streams.domain.resolution import NewEntity
from streams.store.entities import NameLookup, names_finder, upsert_entities
from streams.store.round_trips import round_trips
from tests.support.events import new_tenant


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
