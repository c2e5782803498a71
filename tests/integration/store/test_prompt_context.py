"""The prompt context's entity names: ranked by their latest live fact, newest first.

An entity's latest live fact is the newest one naming it as subject or object (ended and
expired facts do not count); ties go to the newer entity, and entities without a live
fact come last, newest first. Hundreds of newer facts about the user alone, and a
hundred naming one entity, push the other entities' facts far down the tenant's history,
which is what a big tenant looks like to the ranking.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from streams.events import EntityType
from streams.store.context import load_entity_types, load_prompt_context
from streams.store.db import create_pool, round_trips
from tests.support.db import create_fresh_database

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CLUB = 100  # facts naming one entity, more than the first window reads
FILLER = 600  # facts about the user alone, newer than all the others


@pytest.fixture(scope="module")
async def pool(database_url: str) -> AsyncIterator[Any]:
    p = await create_pool(await create_fresh_database(database_url), max_size=2)
    ids: dict[str, int] = {}
    entities = [
        ("oldco", "ORG"),
        ("user", "PERSON"),
        ("acme", "ORG"),
        ("honda civic", "VEHICLE"),
        ("berlin", "PLACE"),
        ("sister", "PERSON"),
        ("loner", "THING"),
        ("club", "ORG"),
    ]
    for name, etype in entities:  # ids rise in this order
        ids[name] = await p.fetchval(
            "INSERT INTO entities (dataset, project_id, name, type) VALUES ('t', 'p', $1, $2)"
            " RETURNING id", name, etype,
        )  # fmt: skip
    # (minute, subject, predicate, object, object entity, invalid, valid_until in past)
    facts = [
        (1, "user", "works at", "oldco", "oldco", True, False),
        (2, "user", "drives", "honda civic", "honda civic", False, False),
        (3, "honda civic", "has mileage of", "80000 km", None, False, False),
        (4, "user", "lives in", "berlin", "berlin", False, False),
        (5, "user", "worked at", "acme", "acme", False, True),
        (6, "sister", "works at", "acme", "acme", False, False),
        (7, "user", "is sibling of", "sister", "sister", False, False),
    ]
    facts += [(9 + i, "user", f"visited club on day {i}", "club", "club", False, False)
              for i in range(1, CLUB + 1)]  # fmt: skip
    facts += [(200 + i, "user", f"likes thing {i}", f"thing {i}", None, False, False)
              for i in range(1, FILLER + 1)]  # fmt: skip
    rows = [
        ("t", "p", s, pred, obj, "relationship" if oe else "literal", ids[s],
         ids[oe] if oe else None, 0.9, "e", T0 + timedelta(minutes=m),
         T0 if invalid else None, "superseded" if invalid else None, T0 if expired else None)
        for m, s, pred, obj, oe, invalid, expired in facts
    ]  # fmt: skip
    await p.copy_records_to_table(
        "facts", records=rows,
        columns=["dataset", "project_id", "subject", "predicate", "object", "kind",
                 "subject_entity_id", "object_entity_id", "confidence", "episode_id",
                 "created_at", "invalid_at", "invalid_reason", "valid_until"],
    )  # fmt: skip
    await p.execute(
        "INSERT INTO entities (dataset, project_id, name, type) VALUES ('other', 'p', 'x', 'ORG')"
    )
    yield p
    await p.close()


async def test_names_rank_by_their_latest_live_fact(pool: Any) -> None:
    async with pool.acquire() as conn:
        context = await load_prompt_context(conn, "t", "p", entity_limit=200, fact_limit=3)
    # user: minute 200 + FILLER (facts about the user alone); club: 9 + CLUB; sister: 7;
    # acme: 6 (its minute-5 fact expired); berlin: 4; honda civic: 3 (as subject); then
    # no live fact: loner, oldco (newest first).
    assert context.entity_names == [
        "user",
        "club",
        "sister",
        "acme",
        "berlin",
        "honda civic",
        "loner",
        "oldco",
    ]
    assert context.recent_facts == [
        f"user likes thing {i} thing {i}" for i in (FILLER, FILLER - 1, FILLER - 2)
    ]


async def test_a_short_list_takes_the_top_of_the_same_ranking(pool: Any) -> None:
    async with pool.acquire() as conn:
        for limit, expected in [(1, ["user"]), (3, ["user", "club", "sister"])]:
            context = await load_prompt_context(conn, "t", "p", entity_limit=limit, fact_limit=0)
            assert context.entity_names == expected


async def test_a_window_that_settles_the_names_is_one_round_trip(pool: Any) -> None:
    before = round_trips(pool)
    async with pool.acquire() as conn:
        context = await load_prompt_context(conn, "t", "p", entity_limit=200, fact_limit=3)
    assert len(context.entity_names) == 8 and len(context.recent_facts) == 3
    assert round_trips(pool) - before == 1


async def test_the_guards_read_each_names_newest_type_in_its_own_tenant(pool: Any) -> None:
    """The extraction guards' stored types: a name stored under two types reads as the
    newer one, a name the tenant never stored is absent, and another tenant's entity of
    the same name is not seen. Run six times on one connection, so the prepared
    statement is also run by the generic plan Postgres switches to."""
    rows = [("t-types", "maple", "PLACE"), ("t-types", "maple", "ORG"),
            ("t-types", "rex", "ANIMAL"), ("t-other", "quill", "PRODUCT")]  # fmt: skip
    await pool.executemany(
        "INSERT INTO entities (dataset, project_id, name, type) VALUES ($1, 'p', $2, $3)", rows
    )
    async with pool.acquire() as conn:
        for _ in range(6):
            got = await load_entity_types(conn, "t-types", "p", ["maple", "rex", "quill", "nobody"])
            assert got == {"maple": EntityType.ORG, "rex": EntityType.ANIMAL}
