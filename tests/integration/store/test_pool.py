"""The pool releases connections without asyncpg's reset query (streams/store/db.py):
what a handler leaves behind must still not reach the next one."""

from __future__ import annotations

from typing import Any

from streams.store.db import create_pool
from tests.support.db import create_fresh_database


async def test_open_transaction_is_rolled_back_on_release(database_url: str) -> None:
    pool: Any = await create_pool(await create_fresh_database(database_url), max_size=1)
    try:
        async with pool.acquire() as conn:
            await conn.execute("CREATE TABLE pool_probe (n int)")
        async with pool.acquire() as conn:
            tx = conn.transaction()
            await tx.start()  # a handler that failed before it could commit or roll back
            await conn.execute("INSERT INTO pool_probe VALUES (1)")
            await conn.execute("SET LOCAL statement_timeout = '1234ms'")
            await conn.fetchval("SELECT pg_advisory_xact_lock(42)")
        async with pool.acquire() as conn:  # max_size=1: the very same connection
            assert not conn.is_in_transaction()
            assert await conn.fetchval("SELECT count(*) FROM pool_probe") == 0
            assert await conn.fetchval("SHOW statement_timeout") == "0"
            held = await conn.fetchval(
                "SELECT count(*) FROM pg_locks"
                " WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
            )
            assert held == 0
    finally:
        await pool.close()


async def test_released_connection_skips_the_reset_round_trip(database_url: str) -> None:
    """The saving itself: a release sends no reset query, so session state survives it
    (the default reset's RESET ALL would clear this setting)."""
    pool: Any = await create_pool(await create_fresh_database(database_url), max_size=1)
    try:
        async with pool.acquire() as conn:
            await conn.execute("SET application_name = 'pool-probe'")
        async with pool.acquire() as conn:
            assert await conn.fetchval("SHOW application_name") == "pool-probe"
    finally:
        await pool.close()
