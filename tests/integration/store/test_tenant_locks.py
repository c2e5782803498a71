"""Two tenants whose '<dataset>:<project_id>' share a 32-bit hashtext never wait for each
other: the writer's and the gate's advisory locks use 64-bit keys (streams/store/locks.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from streams.store import gate
from streams.store.episodes import enqueue_episode
from streams.store.locks import gate_lock, writer_lock
from streams.store.writer import write_judged
from tests.integration.stages.test_write_isolation import colliding_tenants
from tests.support.episodes import episode
from tests.support.facts import cand, fact, judged, with_staged_inserts
from tests.support.stages import ctx


def key(t: tuple[str, str]) -> str:
    return f"{t[0]}:{t[1]}"


async def test_colliding_tenants_write_while_the_other_holds_its_lock(pool: Any) -> None:
    a, b = await colliding_tenants(pool)
    assert await pool.fetchval("SELECT hashtext($1) = hashtext($2)", key(a), key(b))
    event = await with_staged_inserts(pool, judged(b, [cand(fact("user", "likes", "tea"))]))
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(f"SELECT {writer_lock('$1')}", key(a))
        async with pool.acquire() as conn:
            result = await asyncio.wait_for(
                write_judged(conn, event, ctx(1), lock_timeout_ms=500, statement_timeout_ms=5000),
                timeout=10,
            )
    assert result.inserted == 1


async def test_colliding_tenants_pass_the_gate_while_the_other_holds_it(pool: Any) -> None:
    a, b = await colliding_tenants(pool)
    event = episode(b)
    async with pool.acquire() as conn:
        await enqueue_episode(conn, event)
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(f"SELECT {gate_lock('$1')}", key(a))
        async with pool.acquire() as conn:
            await conn.execute("SET lock_timeout = '500ms'")
            try:
                claimed = await gate.claim_next(conn, *b, "w-1", 600.0)
            finally:
                await conn.execute("RESET lock_timeout")
    assert claimed is not None and claimed.episode_id == event.episode_id


async def test_a_tenants_gate_and_writer_locks_are_apart(pool: Any) -> None:
    t = ("ds-locks", "p")
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(f"SELECT {gate_lock('$1')}", key(t))
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SET LOCAL lock_timeout = '500ms'")
            await conn.execute(f"SELECT {writer_lock('$1')}", key(t))


async def test_the_claim_waits_for_its_own_tenants_gate_lock(pool: Any) -> None:
    # The claim (one function, migration 017) locks the key gate_lock names: a holder of
    # that lock keeps the tenant's claim waiting, and the claim goes on once it is let go.
    t = ("ds-gate-key", "p")
    event = episode(t)
    async with pool.acquire() as conn:
        await enqueue_episode(conn, event)
    async with pool.acquire() as holder:
        tx = holder.transaction()
        await tx.start()
        await holder.execute(f"SELECT {gate_lock('$1')}", key(t))
        async with pool.acquire() as conn:
            waiting = asyncio.ensure_future(gate.claim_next(conn, *t, "w-1", 600.0))
            await asyncio.sleep(0.5)
            assert not waiting.done()
            await tx.rollback()
            claimed = await asyncio.wait_for(waiting, timeout=10)
    assert claimed is not None and claimed.episode_id == event.episode_id
