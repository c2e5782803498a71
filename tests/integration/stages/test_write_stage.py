"""The write stage against real Postgres: one transaction per judged episode (seed Step 5)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from streams.errors import is_transient
from streams.events import Closure, Dropped, DropStage
from streams.settings import Settings
from streams.stages.write import FACT_WRITES, create_stage
from streams.store.facts_query import as_of, live_facts
from streams.store.locks import writer_lock
from tests.support.events import new_tenant
from tests.support.facts import LIT, cand, deps, ends, fact, judged
from tests.support.stages import ctx
from tests.support.store_rows import live_triples, rows, seed_episode, seed_fact, snapshot

NOW = datetime.now(UTC)
SAID = (NOW - timedelta(hours=1)).replace(microsecond=0)


def writer(pool: Any, **settings: Any) -> Any:
    return create_stage(deps(Settings(**settings), pool))


async def test_supersedes_inserts_and_records_everything_in_one_go(pool: Any) -> None:
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    google = await seed_fact(pool, t, fact("user", "works at", "google"))
    dropped = Dropped(stage=DropStage.GUARD, reason="subject_not_allowed", subject="bob")
    before = FACT_WRITES.labels(outcome="invalidated")._value.get()
    event = judged(
        t,
        [cand(fact("user", "works at", "anthropic"))],
        [ends(google, fact("user", "works at", "google"))],
        dropped=[dropped],
        stated_at=SAID,
    )
    assert await writer(pool).handle(event, ctx(5)) == []
    by_id = {r["id"]: r for r in await rows(pool, t)}
    old = by_id[google]
    new = next(r for r in by_id.values() if r["object"] == "anthropic")
    copy = next(r for r in by_id.values() if r["copy_of"] == google)
    assert not new["ended"] and new["stated_at"] == SAID
    # Transaction time: the open row is retired, naming its replacement.
    assert (old["invalid_reason"], old["invalidated_by"]) == ("superseded", new["id"])
    assert old["invalid_at"] == new["created_at"] == copy["created_at"]  # one transaction
    # Valid time: a believed copy ends where the winner starts (when it was said).
    assert not copy["ended"] and copy["valid_until"] == SAID
    assert (copy["end_reason"], copy["ended_by"], copy["stated_at"]) == (
        "superseded", new["id"], old["stated_at"],
    )  # fmt: skip
    episode = await pool.fetchrow(
        "SELECT semantic_status, claimed_at FROM episodes WHERE dataset = $1 AND project_id = $2",
        *t,
    )
    assert (episode["semantic_status"], episode["claimed_at"]) == ("done", None)
    drops = await pool.fetch("SELECT stage, reason FROM fact_drops WHERE dataset = $1", t[0])
    assert [(d["stage"], d["reason"]) for d in drops] == [("guard", "subject_not_allowed")]
    offset = await pool.fetchval(
        "SELECT last_offset FROM consumed_offsets WHERE tenant = $1", f"{t[0]}:{t[1]}"
    )
    assert offset == 5
    assert FACT_WRITES.labels(outcome="invalidated")._value.get() == before + 1


async def test_same_event_twice_with_the_same_offset_changes_nothing(pool: Any) -> None:
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    google = await seed_fact(pool, t, fact("user", "works at", "google"))
    event = judged(
        t,
        [cand(fact("user", "works at", "anthropic")), cand(fact("user", "likes", "jazz"))],
        [ends(google, fact("user", "works at", "google"))],
        dropped=[Dropped(stage=DropStage.DEDUP, reason="near_duplicate")],
    )
    await writer(pool).handle(event, ctx(9, partition=3))
    once = await snapshot(pool)
    await writer(pool).handle(event, ctx(9, partition=3))  # redelivery after a crash
    assert await snapshot(pool) == once


async def test_offsets_are_kept_per_tenant(pool: Any) -> None:
    # Two tenants share a partition; B's later offset commits first. A must still apply.
    a, b = new_tenant(), new_tenant()
    await writer(pool).handle(judged(b, [cand(fact("user", "likes", "tea"))]), ctx(11))
    await writer(pool).handle(judged(a, [cand(fact("user", "likes", "coffee"))]), ctx(10))
    assert await live_triples(pool, a) == {("user", "likes", "coffee")}


async def test_an_expired_row_stays_history_and_the_new_row_lands_beside_it(pool: Any) -> None:
    t = new_tenant()
    expired = await seed_fact(
        pool, t, fact("user", "works at", "acme", until=NOW - timedelta(days=30))
    )
    await writer(pool).handle(judged(t, [cand(fact("user", "works at", "acme"))]), ctx(1))
    old, new = await rows(pool, t)
    assert old["id"] == expired
    assert not old["ended"] and old["valid_until"] == NOW - timedelta(days=30)  # still true then
    assert not new["ended"] and new["valid_until"] is None
    assert await live_triples(pool, t) == {("user", "works at", "acme")}


async def test_selling_the_last_link_cascades_to_the_entitys_facts(pool: Any) -> None:
    t = new_tenant()
    drives = await seed_fact(pool, t, fact("user", "drives", "honda civic"))
    mileage = await seed_fact(pool, t, fact("honda civic", "has mileage of", "80000 km", LIT))
    await seed_fact(pool, t, fact("user", "lives in", "oslo"))
    yesterday = NOW - timedelta(days=1)
    sold = cand(fact("user", "sold", "honda civic", until=yesterday))
    event = judged(
        t, [sold], [ends(drives, fact("user", "drives", "honda civic"), until=yesterday)]
    )
    await writer(pool).handle(event, ctx(1))
    by_id = {r["id"]: r for r in await rows(pool, t)}
    sold_id = next(i for i, r in by_id.items() if r["predicate"] == "sold")
    copies = {r["copy_of"]: r for r in by_id.values() if r["copy_of"] is not None}
    assert by_id[drives]["invalid_reason"] == "superseded"
    assert copies[drives]["valid_until"] == yesterday
    # The entity's own fact ends where the user's last link to it ended, by a copy.
    assert (by_id[mileage]["invalid_reason"], by_id[mileage]["invalidated_by"]) == (
        "cascade", copies[mileage]["id"],
    )  # fmt: skip
    assert (copies[mileage]["valid_until"], copies[mileage]["end_reason"]) == (yesterday, "cascade")
    assert copies[mileage]["ended_by"] == sold_id
    assert await live_triples(pool, t) == {("user", "lives in", "oslo")}


async def test_no_cascade_while_another_link_to_the_entity_lives(pool: Any) -> None:
    t = new_tenant()
    leases = await seed_fact(pool, t, fact("user", "leases", "honda civic"))
    await seed_fact(pool, t, fact("honda civic", "has mileage of", "80000 km", LIT))
    owns = cand(fact("user", "owns", "honda civic"))
    await writer(pool).handle(
        judged(t, [owns], [ends(leases, fact("user", "leases", "honda civic"))]), ctx(1)
    )
    assert await live_triples(pool, t) == {
        ("user", "owns", "honda civic"),
        ("honda civic", "has mileage of", "80000 km"),
    }


async def test_closure_keeps_both_clocks_and_closes_the_anchored_facts(pool: Any) -> None:
    t = new_tenant()
    t0 = NOW - timedelta(days=100)
    drives = await seed_fact(pool, t, fact("user", "drives", "honda civic"), created_at=t0)
    mileage = await seed_fact(
        pool, t, fact("honda civic", "has mileage of", "80000 km", LIT), created_at=t0
    )
    ended_on = NOW - timedelta(days=3)
    closure = Closure(
        fact_id=drives, subject="user", predicate="drives", object="honda civic",
        valid_until=ended_on,
    )  # fmt: skip
    await writer(pool).handle(judged(t, closures=[closure]), ctx(1))
    by_id = {r["id"]: r for r in await rows(pool, t)}
    copies = {r["object"]: r for r in by_id.values() if r["id"] not in (drives, mileage)}
    assert by_id[drives]["invalid_reason"] == "closed"
    assert by_id[drives]["invalidated_by"] == copies["honda civic"]["id"]
    assert copies["honda civic"]["valid_until"] == ended_on
    assert by_id[mileage]["invalid_reason"] == "cascade"
    assert copies["80000 km"]["valid_until"] == ended_on
    assert await live_facts(pool, *t) == []
    # What the store believed before the closure: both facts, no end.
    before = await as_of(pool, *t, NOW - timedelta(days=50))
    assert [(r.object, r.valid_until) for r in before] == [
        ("80000 km", None),
        ("honda civic", None),
    ]
    after = await as_of(pool, *t, datetime.now(UTC))
    assert {(r.object, r.valid_until) for r in after} == {
        ("80000 km", ended_on),
        ("honda civic", ended_on),
    }


async def test_race_recheck_drops_a_collision_committed_meanwhile(pool: Any) -> None:
    t = new_tenant()
    google = await seed_fact(pool, t, fact("user", "works at", "google"))
    event = judged(
        t,
        [cand(fact("user", "works at", "anthropic"))],
        [ends(google, fact("user", "works at", "google"))],
    )
    # A concurrent job committed the same fact after this one was judged.
    concurrent = await seed_fact(pool, t, fact("user", "works at", "anthropic"))
    await writer(pool).handle(event, ctx(1))
    by_id = {r["id"]: r for r in await rows(pool, t)}
    assert [r["object"] for r in by_id.values()].count("anthropic") == 1  # nothing inserted
    assert (by_id[google]["invalid_reason"], by_id[google]["invalidated_by"]) == (
        "superseded",
        concurrent,
    )
    drops = await pool.fetch(
        "SELECT stage, reason, object FROM fact_drops WHERE dataset = $1 AND project_id = $2", *t
    )
    assert [tuple(d.values()) for d in drops] == [("write", "race_recheck", "anthropic")]


async def waiting_for_advisory_locks(pool: Any, count: int) -> None:
    for _ in range(200):
        waiting = await pool.fetchval(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        if waiting == count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{waiting} transactions wait for an advisory lock, not {count}")


async def test_two_writers_of_one_tenant_serialise_on_the_lock(pool: Any) -> None:
    t = new_tenant()
    google = await seed_fact(pool, t, fact("user", "works at", "google"))
    lose = ends(google, fact("user", "works at", "google"))
    first = judged(t, [cand(fact("user", "works at", "anthropic"))], [lose], episode="e1")
    second = judged(t, [cand(fact("user", "works at", "anthropic"))], [lose], episode="e2")
    stage = writer(pool)
    # Two jobs (say a replay beside the live group: other partitions) for one tenant. Hold
    # the tenant's lock so both writer transactions are open and queued at once.
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(f"SELECT {writer_lock('$1')}", f"{t[0]}:{t[1]}")
        both = asyncio.gather(stage.handle(first, ctx(1)), stage.handle(second, ctx(1, 1)))
        await waiting_for_advisory_locks(pool, 2)
    await both
    live = await pool.fetchval(
        "SELECT count(*) FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND invalid_at IS NULL AND object = 'anthropic'",
        *t,
    )
    assert live == 1
    # The second saw the first's commit through the lock: a re-check drop, not a conflict.
    drops = await pool.fetch(
        "SELECT reason FROM fact_drops WHERE dataset = $1 AND project_id = $2", *t
    )
    assert [d["reason"] for d in drops] == ["race_recheck"]
    ended = await pool.fetchrow("SELECT invalid_reason FROM facts WHERE id = $1", google)
    assert ended["invalid_reason"] == "superseded"


async def test_the_partial_unique_index_is_the_final_backstop(pool: Any) -> None:
    t = new_tenant()
    twice = [cand(fact("user", "likes", "tea")), cand(fact("user", "likes", "tea"))]
    await writer(pool).handle(judged(t, twice), ctx(1))
    assert [r["object"] for r in await rows(pool, t)] == ["tea"]
    drops = await pool.fetch(
        "SELECT reason FROM fact_drops WHERE dataset = $1 AND project_id = $2", *t
    )
    assert [d["reason"] for d in drops] == ["live_conflict"]


async def test_a_lock_timeout_is_transient_and_changes_nothing(pool: Any) -> None:
    t = new_tenant()
    before = await snapshot(pool)
    async with pool.acquire() as holder, holder.transaction():
        await holder.execute(f"SELECT {writer_lock('$1')}", f"{t[0]}:{t[1]}")
        with pytest.raises(asyncpg.PostgresError) as caught:
            await writer(pool, writer_lock_timeout_ms=200).handle(
                judged(t, [cand(fact("user", "likes", "tea"))]), ctx(1)
            )
    assert caught.value.sqlstate == "55P03" and is_transient(caught.value)
    assert await snapshot(pool) == before
