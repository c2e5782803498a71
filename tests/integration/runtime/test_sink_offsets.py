"""ConsumedOffsets against a real Postgres: the per-tenant watermark, and racing claimers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from streams.store.consumed_offsets import ConsumedOffsets
from streams.store.databases import drop_database
from tests.support.db import create_fresh_database


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[str]:
    url = await create_fresh_database(database_url, prefix="rt")
    try:
        yield url
    finally:
        await drop_database(database_url, url)


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
        assert [
            (r["consumer_group"], r["topic"], r["partition"], r["last_offset"]) for r in rows
        ] == [("g", "t", 0, 5)]
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
