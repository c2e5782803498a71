"""The episode ledger: claims, the per-tenant gate, failure counting, summary columns."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from streams.store import episodes
from streams.store.db import create_pool
from tests.db_support import create_fresh_database
from tests.integration.stages.helpers import episode, new_tenant

TIMEOUT = 600.0


@pytest.fixture(scope="module")
async def ledger_pool(database_url: str) -> AsyncIterator[Any]:
    p = await create_pool(await create_fresh_database(database_url), max_size=6)
    yield p
    await p.close()


async def row(pool: Any, ev: Any) -> Any:
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            "SELECT * FROM episodes WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


async def claim(pool: Any, ev: Any, worker: str = "w1") -> episodes.ClaimResult:
    async with pool.acquire() as conn:
        return await episodes.try_claim_extraction(conn, ev, worker, TIMEOUT)


async def upsert(pool: Any, ev: Any) -> None:
    async with pool.acquire() as conn:
        await episodes.upsert_episode(conn, ev)


async def set_cols(pool: Any, ev: Any, sql: str) -> None:
    async with pool.acquire() as conn:
        await conn.execute(
            f"UPDATE episodes SET {sql} WHERE dataset = $1 AND project_id = $2"
            " AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


async def test_claim_marks_processing_with_worker_and_time(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, ev)).claimed
    r = await row(ledger_pool, ev)
    assert r["semantic_status"] == "processing" and r["claimed_by"] == "w1"
    assert r["claimed_at"] is not None and r["claim_event_id"] == ev.event_id


async def test_done_or_skipped_is_not_claimed_unless_reprocess(ledger_pool: Any) -> None:
    tenant = new_tenant()
    for status in ("done", "skipped"):
        ev = episode(tenant)
        await upsert(ledger_pool, ev)
        await set_cols(ledger_pool, ev, f"semantic_status = '{status}'")
        result = await claim(ledger_pool, ev)
        assert result.outcome is episodes.ClaimOutcome.ALREADY_FINISHED
        assert (await row(ledger_pool, ev))["semantic_status"] == status
        again = ev.model_copy(update={"reprocess": True})
        assert (await claim(ledger_pool, again)).claimed
        await set_cols(ledger_pool, ev, "semantic_status = 'done'")  # let the gate open


async def test_fresh_claim_by_another_worker_is_not_taken(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, ev, "w1")).claimed
    other = await claim(ledger_pool, ev, "w2")
    assert other.outcome is episodes.ClaimOutcome.CLAIMED_ELSEWHERE and "w1" in other.detail
    # Even an event asking to reprocess does not take a fresh claim.
    forced = await claim(ledger_pool, ev.model_copy(update={"reprocess": True}), "w2")
    assert forced.outcome is episodes.ClaimOutcome.CLAIMED_ELSEWHERE
    assert (await row(ledger_pool, ev))["claimed_by"] == "w1"


async def test_claim_is_reentrant_for_the_same_worker_and_event_only(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, ev, "w1")).claimed
    assert (await claim(ledger_pool, ev, "w1")).claimed  # a runtime retry of this record
    duplicate = ev.model_copy(update={"event_id": "another-publish"})
    assert not (await claim(ledger_pool, duplicate, "w1")).claimed


async def test_orphaned_claim_is_reclaimed(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, ev, "dead-worker")).claimed
    await set_cols(ledger_pool, ev, "claimed_at = now() - interval '11 minutes'")
    assert (await claim(ledger_pool, ev, "w2")).claimed
    assert (await row(ledger_pool, ev))["claimed_by"] == "w2"


async def test_failure_is_counted_with_its_error(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    for attempt in (1, 2):
        assert (await claim(ledger_pool, ev)).claimed  # failed is claimable again
        async with ledger_pool.acquire() as conn:
            assert await episodes.mark_semantic_failed(conn, ev, "w1", f"boom {attempt}")
        r = await row(ledger_pool, ev)
        assert r["semantic_status"] == "failed" and r["semantic_retry_count"] == attempt
        assert r["semantic_last_error"] == f"boom {attempt}"


async def test_a_worker_that_lost_its_claim_does_not_count_a_failure(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, ev, "w1")).claimed
    await set_cols(ledger_pool, ev, "claimed_at = now() - interval '11 minutes'")
    assert (await claim(ledger_pool, ev, "w2")).claimed
    async with ledger_pool.acquire() as conn:
        assert not await episodes.mark_semantic_failed(conn, ev, "w1", "late failure")
    r = await row(ledger_pool, ev)
    assert r["semantic_status"] == "processing" and r["semantic_retry_count"] == 0


async def test_gate_blocks_the_same_tenant_until_the_writer_marks_done(ledger_pool: Any) -> None:
    tenant = new_tenant()
    first, second = episode(tenant), episode(tenant)
    other_tenant = episode(new_tenant())
    for ev in (first, second, other_tenant):
        await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, first)).claimed

    blocked = await claim(ledger_pool, second)
    assert blocked.outcome is episodes.ClaimOutcome.BLOCKED and first.episode_id in blocked.detail
    assert (await claim(ledger_pool, other_tenant)).claimed  # another tenant is not held

    waiter = asyncio.create_task(
        episodes.claim_extraction(ledger_pool, second, "w1", TIMEOUT, max_delay_s=0.05)
    )
    await asyncio.sleep(0.3)
    assert not waiter.done()
    assert (await row(ledger_pool, second))["semantic_status"] == "pending"
    async with ledger_pool.acquire() as conn:
        await episodes.mark_semantic_done(conn, *tenant, first.episode_id)
    result = await asyncio.wait_for(waiter, 5)
    assert result.claimed
    assert (await row(ledger_pool, first))["semantic_status"] == "done"


async def test_gate_ignores_a_stale_claim(ledger_pool: Any) -> None:
    tenant = new_tenant()
    dead, nxt = episode(tenant), episode(tenant)
    for ev in (dead, nxt):
        await upsert(ledger_pool, ev)
    assert (await claim(ledger_pool, dead, "dead-worker")).claimed
    await set_cols(ledger_pool, dead, "claimed_at = now() - interval '11 minutes'")
    assert (await claim(ledger_pool, nxt)).claimed


async def test_gate_does_not_delay_an_episode_that_is_already_done(ledger_pool: Any) -> None:
    tenant = new_tenant()
    busy, finished = episode(tenant), episode(tenant)
    for ev in (busy, finished):
        await upsert(ledger_pool, ev)
    await set_cols(ledger_pool, finished, "semantic_status = 'done'")
    assert (await claim(ledger_pool, busy)).claimed
    result = await claim(ledger_pool, finished)
    assert result.outcome is episodes.ClaimOutcome.ALREADY_FINISHED


async def test_skipped_and_summary_columns(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await upsert(ledger_pool, ev)
    key = (ev.dataset, ev.project_id, ev.episode_id)
    async with ledger_pool.acquire() as conn:
        await episodes.mark_semantic_skipped(conn, *key, "no messages in the window")
        await episodes.save_summary(conn, *key, "The user moved.")
        await episodes.mark_summary_failed(conn, *key, "embedding failed: 503")
        state = await episodes.summary_state(conn, *key)
        assert state == episodes.SummaryState("failed", "The user moved.", False, 1)
        await episodes.save_summary_embedding(conn, *key, [0.25] * 16)
        state = await episodes.summary_state(conn, *key)
    assert state == episodes.SummaryState("done", "The user moved.", True, 1)
    r = await row(ledger_pool, ev)
    assert r["semantic_status"] == "skipped" and r["last_error"] is None


async def test_upsert_refreshes_the_transcript_and_keeps_statuses(ledger_pool: Any) -> None:
    tenant = new_tenant()
    ev = episode(tenant, ["first"], episode_id="ep-fixed")
    await upsert(ledger_pool, ev)
    await set_cols(ledger_pool, ev, "semantic_status = 'done', status = 'done'")
    await upsert(ledger_pool, episode(tenant, ["first", "ok", "second"], episode_id="ep-fixed"))
    r = await row(ledger_pool, ev)
    assert [m["content"] for m in r["transcript"]] == ["first", "ok", "second"]
    assert (r["semantic_status"], r["status"], r["to_seq"]) == ("done", "done", 3)
