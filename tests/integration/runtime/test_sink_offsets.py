"""ConsumedOffsets against a real Postgres: both table shapes, and racing claimers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from streams.store.consumed_offsets import CREATE_TABLE, ConsumedOffsets

PER_TENANT = [  # what migration 004 does to the table of 001
    "ALTER TABLE consumed_offsets ADD COLUMN IF NOT EXISTS tenant text NOT NULL DEFAULT ''",
    "ALTER TABLE consumed_offsets DROP CONSTRAINT IF EXISTS consumed_offsets_pkey",
    "ALTER TABLE consumed_offsets ADD PRIMARY KEY (consumer_group, topic, partition, tenant)",
]


def with_db(url: str, name: str) -> str:
    p = urlsplit(url)
    return urlunsplit((p.scheme, p.netloc, "/" + name, p.query, p.fragment))


@pytest.fixture(params=["per_partition", "per_tenant"])
async def db(request: pytest.FixtureRequest, database_url: str) -> AsyncIterator[str]:
    name = f"rt_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(database_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    url = with_db(database_url, name)
    conn = await asyncpg.connect(url)
    await conn.execute(CREATE_TABLE)
    if request.param == "per_tenant":
        for stmt in PER_TENANT:
            await conn.execute(stmt)
    await conn.close()
    try:
        yield url
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_record_and_already_applied(db: str) -> None:
    offsets = ConsumedOffsets()
    conn = await asyncpg.connect(db)
    try:
        assert not await offsets.already_applied(conn, "g", "t", 0, 5, tenant="a")
        async with conn.transaction():
            await offsets.record(conn, "g", "t", 0, 5, tenant="a")
        assert await offsets.already_applied(conn, "g", "t", 0, 5, tenant="a")
        assert await offsets.already_applied(conn, "g", "t", 0, 4, tenant="a")
        assert not await offsets.already_applied(conn, "g", "t", 0, 6, tenant="a")
        assert not await offsets.already_applied(conn, "g", "t", 1, 5, tenant="a")
        async with conn.transaction():
            await offsets.record(conn, "g", "t", 0, 3, tenant="a")  # never moves back
        assert await offsets.already_applied(conn, "g", "t", 0, 5, tenant="a")
        rows = await conn.fetch("SELECT * FROM consumed_offsets")
        assert [(r["consumer_group"], r["topic"], r["partition"], r["last_offset"])
                for r in rows] == [("g", "t", 0, 5)]
    finally:
        await conn.close()


async def test_claim_lets_exactly_one_of_two_racers_apply(db: str) -> None:
    offsets = ConsumedOffsets()
    a, b = await asyncpg.connect(db), await asyncpg.connect(db)
    try:
        ta, tb = a.transaction(), b.transaction()
        await ta.start()
        await tb.start()
        assert await offsets.claim(a, "g", "t", 0, 10, tenant="x")
        racer = asyncio.create_task(offsets.claim(b, "g", "t", 0, 10, tenant="x"))
        await asyncio.sleep(0.2)
        assert not racer.done()  # blocked on a's row lock
        await ta.commit()
        assert await racer is False  # sees a's commit: already applied
        await tb.rollback()
        async with a.transaction():
            assert await offsets.claim(a, "g", "t", 0, 11, tenant="x")
        async with a.transaction():
            assert not await offsets.claim(a, "g", "t", 0, 11, tenant="x")
    finally:
        await a.close()
        await b.close()
