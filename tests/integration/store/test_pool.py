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


_PROBE = "SELECT count(*) FROM facts WHERE dataset = $1 AND project_id = $2"


async def _plans_made(pool: Any) -> tuple[int, int]:
    """How many of three runs of a statement used its generic plan, and how many were
    planned for their values (Postgres' counters for the session's statement)."""
    async with pool.acquire() as conn:
        for tenant in ("a", "b", "c"):
            await conn.fetchval(_PROBE, tenant, "p")
        row = await conn.fetchrow(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement = $1", _PROBE,
        )  # fmt: skip
    return int(row["generic_plans"]), int(row["custom_plans"])


async def test_a_pool_that_plans_once_plans_a_statement_once(database_url: str) -> None:
    """``plans_once`` (streams/pipeline.py: stages whose statements need no plan per
    value): a session plans a statement once and reuses it; other pools leave the choice
    to Postgres, which plans the first runs for their values."""
    url = await create_fresh_database(database_url)
    once: Any = await create_pool(url, max_size=1, plans_once=True)
    default: Any = await create_pool(url, max_size=1)
    try:
        assert await _plans_made(once) == (3, 0)
        assert await _plans_made(default) == (0, 3)
    finally:
        await once.close()
        await default.close()
