"""The episode ledger: the per-tenant queue (park, claim, release), failure counting,
summary columns."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest

from streams.events import EpisodeCompleted
from streams.store import episodes, gate
from streams.store.db import create_pool
from tests.support.db import create_fresh_database
from tests.support.episodes import episode, new_tenant

TIMEOUT = 600.0
STALE = "claimed_at = now() - interval '11 minutes'"


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


async def enqueue(pool: Any, *evs: EpisodeCompleted) -> list[str]:
    async with pool.acquire() as conn:
        return [(await episodes.enqueue_episode(conn, ev)).status for ev in evs]


async def claim(pool: Any, tenant: tuple[str, str], worker: str = "w1") -> str | None:
    """claim_next; the claimed episode's id, or None."""
    async with pool.acquire() as conn:
        got = await gate.claim_next(conn, *tenant, worker, TIMEOUT)
    return None if got is None else got.episode_id


async def released(pool: Any, tenant: tuple[str, str]) -> str | None:
    async with pool.acquire() as conn:
        got = await gate.next_to_release(conn, *tenant, TIMEOUT)
    return None if got is None else got.episode_id


async def done(pool: Any, ev: EpisodeCompleted) -> None:
    async with pool.acquire() as conn:
        await gate.mark_semantic_done(conn, ev.dataset, ev.project_id, ev.episode_id)


async def set_cols(pool: Any, ev: Any, sql: str) -> None:
    async with pool.acquire() as conn:
        await conn.execute(
            f"UPDATE episodes SET {sql} WHERE dataset = $1 AND project_id = $2"
            " AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


def tenant_of(ev: EpisodeCompleted) -> tuple[str, str]:
    return ev.dataset, ev.project_id


async def test_claim_next_starts_the_oldest_queued_episode(ledger_pool: Any) -> None:
    tenant = new_tenant()
    first = episode(tenant, ["I moved to Oslo."], episode_id="ep-b")
    second = episode(tenant, ["I moved to Rome."], episode_id="ep-a")  # names sort first
    assert await enqueue(ledger_pool, first, second) == ["queued", "queued"]

    async with ledger_pool.acquire() as conn:
        claimed = await gate.claim_next(conn, *tenant, "w1", TIMEOUT)
    # The oldest by arrival, rebuilt from its row with its own event id and transcript.
    assert claimed == first
    r = await row(ledger_pool, first)
    assert (r["semantic_status"], r["claimed_by"], r["claim_event_id"]) == (
        "processing", "w1", first.event_id,
    )  # fmt: skip
    assert r["claimed_at"] is not None
    assert (await row(ledger_pool, second))["semantic_status"] == "queued"


async def test_a_fresh_claim_holds_the_tenant_and_done_lets_the_next_in_order(
    ledger_pool: Any,
) -> None:
    tenant = new_tenant()
    evs = [episode(tenant, [f"move {i}"], episode_id=f"ep-{i}") for i in range(4)]
    other = episode(new_tenant())
    await enqueue(ledger_pool, *evs, other)
    order = []
    for ev in evs:
        assert await claim(ledger_pool, tenant) == ev.episode_id
        order.append(ev.episode_id)
        # In flight: nothing else of the tenant starts, nothing is due to be woken.
        assert await claim(ledger_pool, tenant, "w2") is None
        assert await released(ledger_pool, tenant) is None
        await done(ledger_pool, ev)
        nxt = evs[len(order)].episode_id if len(order) < len(evs) else None
        assert await released(ledger_pool, tenant) == nxt  # what the writer wakes
    assert order == ["ep-0", "ep-1", "ep-2", "ep-3"]
    # Another tenant was never held by any of it.
    assert await claim(ledger_pool, tenant_of(other)) == other.episode_id


async def test_a_stale_claim_blocks_nothing_and_runs_again_first(ledger_pool: Any) -> None:
    tenant = new_tenant()
    dead, nxt = episode(tenant), episode(tenant)
    await enqueue(ledger_pool, dead, nxt)
    assert await claim(ledger_pool, tenant, "dead-worker") == dead.episode_id
    await set_cols(ledger_pool, dead, STALE)
    # Its worker died or was fenced as a zombie, so its output never landed: it runs
    # again BEFORE the later episode, which must not overtake it (chaos drill finding).
    assert await claim(ledger_pool, tenant) == dead.episode_id
    assert (await row(ledger_pool, dead))["claimed_by"] == "w1"
    assert (await row(ledger_pool, nxt))["semantic_status"] == "queued"


async def test_done_and_skipped_stay_unless_reprocess(ledger_pool: Any) -> None:
    tenant = new_tenant()
    for status in ("done", "skipped"):
        ev = episode(tenant)
        await enqueue(ledger_pool, ev)
        await set_cols(ledger_pool, ev, f"semantic_status = '{status}'")
        assert await enqueue(ledger_pool, ev) == [status]  # a duplicate or a wake-up
        assert await claim(ledger_pool, tenant) is None
        assert await enqueue(ledger_pool, ev.model_copy(update={"reprocess": True})) == ["queued"]
        assert await claim(ledger_pool, tenant) == ev.episode_id
        await done(ledger_pool, ev)


async def test_a_failed_episode_is_queued_again_and_keeps_its_place(ledger_pool: Any) -> None:
    tenant = new_tenant()
    failing, later = episode(tenant), episode(tenant)
    await enqueue(ledger_pool, failing)
    assert await claim(ledger_pool, tenant) == failing.episode_id
    async with ledger_pool.acquire() as conn:
        assert await gate.count_extraction_failure(conn, failing, "w1", "503", max_retries=1)
    await enqueue(ledger_pool, later)
    assert await enqueue(ledger_pool, failing) == ["queued"]  # the sweep republished it
    assert await claim(ledger_pool, tenant) == failing.episode_id  # arrived first
    r = await row(ledger_pool, failing)
    assert r["semantic_retry_count"] == 1 and r["semantic_last_error"] is None


async def test_a_failed_episode_at_the_cap_stays_failed_unless_reprocess(
    ledger_pool: Any,
) -> None:
    """Seed: retried up to maxRetries. A duplicate event (or the sweep republishing the
    episode for its summary) must not start extraction a fourth time."""
    tenant = new_tenant()
    ev = episode(tenant)
    for attempt in range(1, 4):
        async with ledger_pool.acquire() as conn:
            assert (await episodes.enqueue_episode(conn, ev, max_retries=3)).status == "queued"
        assert await claim(ledger_pool, tenant) == ev.episode_id
        async with ledger_pool.acquire() as conn:
            failed = await gate.count_extraction_failure(conn, ev, "w1", "503", max_retries=1)
            assert failed == attempt
    async with ledger_pool.acquire() as conn:
        assert (await episodes.enqueue_episode(conn, ev, max_retries=3)).status == "failed"
        again = ev.model_copy(update={"reprocess": True})
        assert (await episodes.enqueue_episode(conn, again, max_retries=3)).status == "queued"


async def test_a_claim_stays_even_for_reprocess_and_a_stale_one_is_taken_over(
    ledger_pool: Any,
) -> None:
    tenant = new_tenant()
    ev = episode(tenant)
    await enqueue(ledger_pool, ev)
    assert await claim(ledger_pool, tenant) == ev.episode_id
    again = ev.model_copy(update={"reprocess": True})
    assert await enqueue(ledger_pool, again) == ["processing"]
    assert (await row(ledger_pool, ev))["claimed_by"] == "w1"
    await set_cols(ledger_pool, ev, STALE)
    assert await enqueue(ledger_pool, ev) == ["processing"]  # the claim is claim_next's
    assert await claim(ledger_pool, tenant, "w2") == ev.episode_id  # its worker died
    r = await row(ledger_pool, ev)
    assert (r["claimed_by"], r["semantic_retry_count"]) == ("w2", 1)  # counted, as the sweep


async def test_released_claim_is_first_in_line(ledger_pool: Any) -> None:
    tenant = new_tenant()
    first, second = episode(tenant), episode(tenant)
    await enqueue(ledger_pool, first, second)
    async with ledger_pool.acquire() as conn:
        claimed = await gate.claim_next(conn, *tenant, "leaving", TIMEOUT)
        assert claimed is not None
        assert not await gate.release_claim(conn, claimed, "someone-else")
        assert await gate.release_claim(conn, claimed, "leaving")
    r = await row(ledger_pool, first)
    assert (r["semantic_status"], r["semantic_retry_count"]) == ("queued", 0)
    assert await claim(ledger_pool, tenant, "next-owner") == first.episode_id


async def test_a_claim_is_taken_back_by_the_same_worker_for_the_same_record_only(
    ledger_pool: Any,
) -> None:
    tenant = new_tenant()
    ev, later = episode(tenant), episode(tenant)
    await enqueue(ledger_pool, ev, later)

    async def take(worker: str, record: str) -> str | None:
        async with ledger_pool.acquire() as conn:
            got = await gate.claim_next(conn, *tenant, worker, TIMEOUT, record=record)
        return None if got is None else got.episode_id

    assert await take("extract-0", "t/0/5") == ev.episode_id
    # The same record again on the same worker (restarted with its stable instance id):
    # its output never committed, so the claim it took is its to finish.
    assert await take("extract-0", "t/0/5") == ev.episode_id
    assert await take("extract-0", "t/0/6") is None  # the next record waits at the gate
    assert await take("extract-1", "t/0/5") is None  # another worker does not take it
    r = await row(ledger_pool, ev)
    assert (r["claimed_by"], r["claim_record"]) == ("extract-0", "t/0/5")


async def test_concurrent_claimers_start_one_episode(ledger_pool: Any) -> None:
    tenant = new_tenant()
    await enqueue(ledger_pool, *[episode(tenant) for _ in range(3)])
    got = await asyncio.gather(*(claim(ledger_pool, tenant, f"w{i}") for i in range(5)))
    assert len([g for g in got if g is not None]) == 1
    async with ledger_pool.acquire() as conn:
        processing = await conn.fetchval(
            "SELECT count(*) FROM episodes WHERE dataset = $1 AND project_id = $2"
            " AND semantic_status = 'processing'",
            *tenant,
        )  # fmt: skip
    assert processing == 1


async def test_a_worker_that_lost_its_claim_does_not_count_a_failure(ledger_pool: Any) -> None:
    tenant = new_tenant()
    ev = episode(tenant)
    await enqueue(ledger_pool, ev)
    assert await claim(ledger_pool, tenant, "w1") == ev.episode_id
    await set_cols(ledger_pool, ev, STALE)
    assert await claim(ledger_pool, tenant, "w2") == ev.episode_id  # 1 retry: taken over
    async with ledger_pool.acquire() as conn:
        assert await gate.count_extraction_failure(conn, ev, "w1", "late", max_retries=1) is None
        assert await gate.count_extraction_failure(conn, ev, "w2", "boom", max_retries=1) == 2
    r = await row(ledger_pool, ev)
    assert (r["semantic_status"], r["semantic_retry_count"], r["semantic_last_error"]) == (
        "failed", 2, "boom",
    )  # fmt: skip


async def test_skipped_and_summary_columns(ledger_pool: Any) -> None:
    ev = episode(new_tenant())
    await enqueue(ledger_pool, ev)
    key = (ev.dataset, ev.project_id, ev.episode_id)
    async with ledger_pool.acquire() as conn:
        await gate.mark_semantic_skipped(conn, *key, "no messages in the window")
        await episodes.save_summary(conn, *key, "The user moved.")
        await episodes.mark_summary_failed(conn, *key, "embedding failed: 503")
        state = await episodes.summary_state(conn, *key)
        assert state == episodes.SummaryState(
            "failed", "The user moved.", False, 1, ev.completed_at
        )
        await episodes.save_summary_embedding(conn, *key, [0.25] * 16)
        state = await episodes.summary_state(conn, *key)
    assert state == episodes.SummaryState("done", "The user moved.", True, 1, ev.completed_at)
    r = await row(ledger_pool, ev)
    assert r["semantic_status"] == "skipped" and r["last_error"] is None


async def test_an_older_or_equal_resend_of_a_done_episode_changes_nothing(
    ledger_pool: Any,
) -> None:
    tenant = new_tenant()
    ev = episode(tenant, ["first", "ok", "second"], episode_id="ep-fixed")
    async with ledger_pool.acquire() as conn:
        await episodes.upsert_episode(conn, ev)
    assert (await row(ledger_pool, ev))["semantic_status"] == "pending"  # summarize's upsert
    await set_cols(ledger_pool, ev, "semantic_status = 'done', status = 'done'")
    before = dict(await row(ledger_pool, ev))
    for version in (ev.completed_at, ev.completed_at - timedelta(days=3)):
        resend = episode(tenant, ["first"], episode_id="ep-fixed", completed_at=version,
                         event_id=f"evt-{uuid.uuid4().hex[:6]}")  # fmt: skip
        async with ledger_pool.acquire() as conn:
            got = await episodes.enqueue_episode(conn, resend)
            await episodes.upsert_episode(conn, resend)
        assert got.older_resend_of(resend)
        after = dict(await row(ledger_pool, ev))
        assert {k: v for k, v in after.items() if k != "updated_at"} == {
            k: v for k, v in before.items() if k != "updated_at"
        }


async def test_a_newer_version_replaces_the_episode_and_runs_again(ledger_pool: Any) -> None:
    tenant = new_tenant()
    ev = episode(tenant, ["first"], episode_id="ep-newer")
    await enqueue(ledger_pool, ev)
    await set_cols(ledger_pool, ev, "semantic_status = 'done', status = 'done'")
    later = ev.completed_at + timedelta(hours=2)
    newer = episode(tenant, ["first", "ok", "second"], episode_id="ep-newer",
                    completed_at=later, event_id="evt-newer")  # fmt: skip
    assert await enqueue(ledger_pool, newer) == ["queued"]
    async with ledger_pool.acquire() as conn:
        summary = await episodes.upsert_episode(conn, newer)
    assert summary.status == "pending"  # summarised again too
    r = await row(ledger_pool, ev)
    assert [m["content"] for m in r["transcript"]] == ["first", "ok", "second"]
    assert (r["completed_at"], r["event_id"], r["to_seq"]) == (newer.completed_at, "evt-newer", 3)


async def test_a_newer_version_arriving_mid_flight_is_queued_when_the_claim_ends(
    ledger_pool: Any,
) -> None:
    tenant = new_tenant()
    ev = episode(tenant, ["first"], episode_id="ep-mid")
    await enqueue(ledger_pool, ev)
    assert await claim(ledger_pool, tenant) == "ep-mid"
    newer = episode(tenant, ["first", "ok", "more"], episode_id="ep-mid",
                    completed_at=ev.completed_at + timedelta(hours=1))  # fmt: skip
    assert await enqueue(ledger_pool, newer) == ["processing"]  # the claim stays
    await done(ledger_pool, ev)  # the writer ends the claim of the older version
    assert (await row(ledger_pool, ev))["semantic_status"] == "queued"
    assert await released(ledger_pool, tenant) == "ep-mid"
