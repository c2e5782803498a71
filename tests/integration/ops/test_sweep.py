"""The sweep republishes orphaned claims and failed-under-cap episodes, and ends the rest."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import asyncpg
import pytest

from streams.events import EpisodeCompleted
from streams.ops.sweep import run_sweeper, sweep_once
from streams.settings import Settings
from streams.store.db import connect
from streams.store.sweep import SWEEPER_LOCK_KEY
from tests.support.db import create_fresh_database

TRANSCRIPT = [
    {"seq": 1, "role": "user", "content": "I live in Oslo", "created_at": "2026-01-01T00:00:00Z"}
]


async def add_episode(conn: asyncpg.Connection, episode_id: str, **columns: object) -> None:
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
        " to_seq, transcript, completed_at)"
        " VALUES ('ds', 'p', $1, 's', $2, 1, 1, $3::jsonb, now())",
        episode_id,
        f"evt-{episode_id}",
        TRANSCRIPT,
    )
    for column, value in columns.items():
        if isinstance(value, str) and value.startswith("now()"):
            await conn.execute(
                f"UPDATE episodes SET {column} = {value} WHERE episode_id = $1", episode_id
            )
        else:
            await conn.execute(
                f"UPDATE episodes SET {column} = $2 WHERE episode_id = $1", episode_id, value
            )


@pytest.fixture
async def db_url(database_url: str) -> str:
    return await create_fresh_database(database_url)


@pytest.fixture
async def conn(db_url: str) -> AsyncIterator[asyncpg.Connection]:
    connection = await connect(db_url)  # the project's codecs (jsonb, vector)
    yield connection
    await connection.close()


async def test_sweep_republishes_and_ends(conn: asyncpg.Connection) -> None:
    stale = "now() - interval '11 minutes'"
    await add_episode(
        conn, "orphan", semantic_status="processing", claimed_at=stale, claimed_by="dead-worker"
    )
    await add_episode(
        conn, "fresh-claim", semantic_status="processing", claimed_at="now()", claimed_by="alive"
    )
    await add_episode(
        conn,
        "failed-1",
        semantic_status="failed",
        semantic_retry_count=1,
        semantic_last_error="429",
    )
    await add_episode(
        conn,
        "failed-cap",
        semantic_status="failed",
        semantic_retry_count=3,
        semantic_last_error="boom",
    )
    await add_episode(
        conn,
        "orphan-cap",
        semantic_status="processing",
        claimed_at=stale,
        semantic_retry_count=2,
        semantic_last_error="500",
    )
    await add_episode(
        conn, "summary-failed", semantic_status="done", status="failed", retry_count=0
    )
    await add_episode(conn, "done", semantic_status="done", status="done")

    sent: list[EpisodeCompleted] = []

    def publish(events: Sequence[EpisodeCompleted]) -> None:
        sent.extend(events)

    report = await sweep_once(conn, Settings(), publish)

    assert sorted(e.episode_id for e in sent) == ["failed-1", "orphan", "summary-failed"]
    orphan_event = next(e for e in sent if e.episode_id == "orphan")
    assert orphan_event.tenant == "ds:p"
    assert orphan_event.messages[0].content == "I live in Oslo"
    assert orphan_event.event_id == "evt-orphan"
    assert report.ended_failed == [("ds", "p", "orphan-cap")]

    rows = {
        r["episode_id"]: r
        for r in await conn.fetch(
            "SELECT episode_id, semantic_status, semantic_retry_count, semantic_last_error,"
            " claimed_by FROM episodes"
        )
    }
    # The orphan was released (back to its tenant's queue, at its arrival place) and
    # counted as a retry; the fresh claim was left alone.
    assert rows["orphan"]["semantic_status"] == "queued"
    assert rows["orphan"]["semantic_retry_count"] == 1
    assert rows["orphan"]["claimed_by"] is None
    assert rows["fresh-claim"]["claimed_by"] == "alive"
    # Past the cap: failed, with the last error kept and the reason added.
    assert rows["orphan-cap"]["semantic_status"] == "failed"
    assert rows["orphan-cap"]["semantic_retry_count"] == 3
    assert "500" in rows["orphan-cap"]["semantic_last_error"]
    assert "claim expired" in rows["orphan-cap"]["semantic_last_error"]
    assert rows["failed-cap"]["semantic_status"] == "failed"

    # A second pass right away sends nothing new except failed ones still waiting.
    sent.clear()
    await sweep_once(conn, Settings(), publish)
    assert "orphan" not in [e.episode_id for e in sent]


async def test_only_one_sweeper_is_active(conn: asyncpg.Connection, db_url: str) -> None:
    await add_episode(conn, "failed-1", semantic_status="failed", semantic_retry_count=1)
    assert await conn.fetchval("SELECT pg_try_advisory_lock($1)", SWEEPER_LOCK_KEY)
    sent: list[EpisodeCompleted] = []
    try:
        report = await run_sweeper(db_url, Settings(), sent.extend, once=True)
        assert report is None  # stood by: another sweeper holds the lock
        assert sent == []
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", SWEEPER_LOCK_KEY)
    report = await run_sweeper(db_url, Settings(), sent.extend, once=True)
    assert report is not None
    assert [e.episode_id for e in sent] == ["failed-1"]


async def add_tenant_episode(
    conn: asyncpg.Connection, dataset: str, episode_id: str, status: str, sql: str = ""
) -> None:
    """An episode of tenant (dataset, 'p'), inserted now (so in arrival order), its summary
    done."""
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
        " to_seq, transcript, completed_at, semantic_status, status)"
        " VALUES ($1, 'p', $2, 's', $3, 1, 1, $4::jsonb, now(), $5, 'done')",
        dataset, episode_id, f"evt-{episode_id}", TRANSCRIPT, status,
    )  # fmt: skip
    if sql:
        await conn.execute(
            f"UPDATE episodes SET {sql} WHERE dataset = $1 AND episode_id = $2", dataset, episode_id
        )


async def test_sweep_wakes_a_parked_tenant_with_nothing_in_flight(
    conn: asyncpg.Connection,
) -> None:
    quiet = "updated_at = now() - interval '5 minutes'"
    stale = "claimed_at = now() - interval '11 minutes', claimed_by = 'dead'"
    await add_tenant_episode(conn, "lost", "l-1", "queued", quiet)  # its wake-up was lost
    await add_tenant_episode(conn, "lost", "l-2", "queued", "updated_at = now() - interval '1 day'")
    await add_tenant_episode(conn, "busy", "b-1", "processing", "claimed_at = now()")
    await add_tenant_episode(conn, "busy", "b-2", "queued", quiet)  # the writer will wake it
    await add_tenant_episode(conn, "recent", "r-1", "queued")  # a wake-up may be on its way
    await add_tenant_episode(conn, "dead", "d-1", "processing", stale)
    await add_tenant_episode(conn, "dead", "d-2", "queued", quiet)
    sent: list[EpisodeCompleted] = []

    report = await sweep_once(conn, Settings(), sent.extend)

    # The oldest queued episode by arrival, not by last update. The orphan goes back to
    # the queue ahead of d-2 and is itself republished, so d-2 needs no wake-up.
    assert [e.episode_id for e in sent] == ["d-1", "l-1"]
    assert all(not e.reprocess for e in sent)  # a wake-up: a done summary is not redone
    why = {ep: reason for _, _, ep, reason in report.republished}
    assert "lost wake-up" in why["l-1"] and why["d-1"] == "orphaned claim"
    statuses = dict(await conn.fetch("SELECT episode_id, semantic_status FROM episodes"))
    assert statuses["l-1"] == statuses["l-2"] == "queued"  # extraction claims, not the sweep
    sent.clear()
    await sweep_once(conn, Settings(), sent.extend)
    assert sent == []  # touched: not sent again before another interval has passed


async def test_a_pass_builds_the_index_of_one_tenant_that_outgrew_exact_search(
    conn: asyncpg.Connection,
) -> None:
    """streams/store/tenant_indexes.py: one missing index per pass, only for tenants past
    vector_index_min_rows live rows; a tenant's ended facts do not count."""
    settings = Settings(vector_index_min_rows=30)
    for dataset, live, ended in (("big", 31, 0), ("ended", 5, 40), ("small", 30, 0)):
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " confidence, episode_id, invalid_at, invalid_reason)"
            " SELECT $1, 'p', 'user', 'has', 'thing ' || g, 'literal', 0.9, 'e',"
            "  CASE WHEN g > $2::int THEN now() END, CASE WHEN g > $2::int THEN 'closed' END"
            " FROM generate_series(1, $2::int + $3::int) g",
            dataset, live, ended,
        )  # fmt: skip
    await conn.execute(
        "INSERT INTO entities (dataset, project_id, name, type)"
        " SELECT 'big', 'p', 'thing ' || g, 'THING' FROM generate_series(1, 31) g"
    )
    published: list[EpisodeCompleted] = []

    first = await sweep_once(conn, settings, published.extend)
    second = await sweep_once(conn, settings, published.extend)
    third = await sweep_once(conn, settings, published.extend)

    assert (first.indexes_built, second.indexes_built) == (
        [("big:p", "facts")],
        [("big:p", "entities")],
    )
    assert third.indexes_built == [] and published == []
    indexes = await conn.fetch(
        "SELECT indexdef FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%' ORDER BY 1"
    )
    assert len(indexes) == 2, indexes  # no index over all tenants (migration 009)
    assert all("'big'" in r["indexdef"] for r in indexes)

    # Facts the big tenant's writer stores from now on wait outside its index; the next
    # pass grafts them (streams/store/graph_tail.py).
    await conn.execute(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
        " confidence, episode_id, graph_pending)"
        " SELECT 'big', 'p', 'user', 'saw', 'film ' || g, 'literal', 0.9, 'e', true"
        " FROM generate_series(1, 3) g"
    )
    fourth = await sweep_once(conn, settings, published.extend)
    assert fourth.grafted == 3 and fourth.indexes_built == []
    assert await conn.fetchval("SELECT count(*) FROM facts WHERE graph_pending") == 0


async def test_a_pass_ends_what_cannot_be_republished_and_sends_the_rest(
    conn: asyncpg.Connection,
) -> None:
    """A ledger copy over the record limit (it would fail with MSG_SIZE_TOO_LARGE on every
    pass), and a row an older version stored under looser rules, end failed with the
    reason; the tenant's other due episode still goes out."""
    failed = {"semantic_status": "failed", "semantic_retry_count": 1}
    await add_episode(conn, "fine", **failed)
    await add_episode(conn, "too-large", **failed)
    big = [{**TRANSCRIPT[0], "seq": 1, "content": "z" * 19_000}] * 20
    await conn.execute("UPDATE episodes SET transcript = $1::jsonb WHERE episode_id = 'too-large'",
                       big)  # fmt: skip
    await add_episode(conn, "naive", **failed)
    naive = [{**TRANSCRIPT[0], "created_at": "2026-01-01T00:00:00"}]
    await conn.execute("UPDATE episodes SET transcript = $1::jsonb WHERE episode_id = 'naive'",
                       naive)  # fmt: skip
    sent: list[EpisodeCompleted] = []

    report = await sweep_once(conn, Settings(max_record_bytes=100_000), sent.extend)

    assert [e.episode_id for e in sent] == ["fine"]
    assert sorted(e for _, _, e in report.ended_failed) == ["naive", "too-large"]
    rows = {r["episode_id"]: r for r in await conn.fetch("SELECT * FROM episodes")}
    assert "over the record limit" in rows["too-large"]["semantic_last_error"]
    assert "cannot be rebuilt" in rows["naive"]["semantic_last_error"]
    for episode in ("too-large", "naive"):
        assert rows[episode]["semantic_status"] == "failed"
        assert rows[episode]["semantic_retry_count"] == Settings().max_retries
    sent.clear()
    await conn.execute("UPDATE episodes SET updated_at = now() - interval '1 day'")
    await sweep_once(conn, Settings(max_record_bytes=100_000), sent.extend)
    assert [e.episode_id for e in sent] == ["fine"]  # the other two are not tried again


async def test_the_sweeper_survives_publishes_that_raise(db_url: str) -> None:
    """One episode's publish raises (as librdkafka's MSG_SIZE_TOO_LARGE does at produce
    time), then every publish does (a bug, an outage): the loop logs, reports which
    episode, keeps sending the others and keeps sweeping."""
    conn = await connect(db_url)
    await add_episode(conn, "refused", semantic_status="failed", semantic_retry_count=1)
    await add_episode(conn, "fine", semantic_status="failed", semantic_retry_count=1)
    await conn.close()
    sent: list[str] = []
    reports = []
    broken = False

    def publish(events: Sequence[EpisodeCompleted]) -> None:
        if broken or any(e.episode_id == "refused" for e in events):
            raise RuntimeError("KafkaError{code=MSG_SIZE_TOO_LARGE}")
        sent.extend(e.episode_id for e in events)

    def on_pass(report: object) -> None:
        nonlocal broken
        reports.append(report)
        broken = True  # from the second pass on, everything fails
        if len(reports) == 3:
            raise asyncio.CancelledError

    settings = Settings(sweep_interval_s=0.05, claim_timeout_s=0.01)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(run_sweeper(db_url, settings, publish, on_pass=on_pass), timeout=20)
    assert sent == ["fine"]
    assert [f[2] for f in reports[0].publish_failed] == ["refused"]
    assert len(reports) == 3  # it went on sweeping after every failure
