"""The looping sweeper survives a lost Postgres connection (real Postgres,
pg_terminate_backend), and two sweepers are still never active at once."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from streams.events import EpisodeCompleted
from streams.ops.sweep import SweepReport, run_sweeper
from streams.settings import Settings
from streams.store.db import connect
from streams.store.sweep import SWEEPER_LOCK_KEY
from tests.support.db import create_fresh_database

pytestmark = pytest.mark.timeout(120)
# A pass every 0.3 s; a pending episode is due again 0.2 s after the last pass sent it.
SETTINGS = Settings(sweep_interval_s=0.3, claim_timeout_s=0.2)
TRANSCRIPT = [
    {"seq": 1, "role": "user", "content": "I live in Oslo", "created_at": "2026-01-01T00:00:00Z"}
]


@pytest.fixture
async def db_url(database_url: str) -> str:
    return await create_fresh_database(database_url)


@pytest.fixture
async def admin(db_url: str) -> AsyncIterator[asyncpg.Connection]:
    conn = await connect(db_url)  # the project's codecs (jsonb, vector), as the sweeper's
    yield conn
    await conn.close()


async def add_pending(conn: asyncpg.Connection, episode_id: str) -> None:
    """A published episode nobody picked up, due for the sweep."""
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
        " to_seq, transcript, completed_at, updated_at)"
        " VALUES ('ds', 'p', $1, 's', $2, 1, 1, $3::jsonb, now(), now() - interval '1 hour')",
        episode_id, f"evt-{episode_id}", TRANSCRIPT,
    )  # fmt: skip


def named(name: str) -> Callable[[str], Awaitable[Any]]:
    """streams.store.db.connect, with an application_name to tell the sweepers apart."""

    async def open_conn(url: str) -> Any:
        sep = "&" if "?" in url else "?"
        return await connect(f"{url}{sep}application_name={name}")

    return open_conn


async def holder(admin: asyncpg.Connection) -> tuple[int, str] | None:
    """(pid, application_name) of the session holding the sweep lock in this database."""
    row = await admin.fetchrow(
        "SELECT l.pid, a.application_name FROM pg_locks l"
        " JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.objid = $1"
        "   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        SWEEPER_LOCK_KEY,
    )
    return None if row is None else (row["pid"], row["application_name"])


async def wait_holder(
    admin: asyncpg.Connection, not_pid: int | None = None, timeout: float = 20
) -> tuple[int, str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        h = await holder(admin)
        if h is not None and h[0] != not_pid:
            return h
        await asyncio.sleep(0.05)
    raise AssertionError("no sweeper took the lock")


async def wait_sent(sent: list[EpisodeCompleted], episode_id: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while episode_id not in {e.episode_id for e in sent}:
        assert time.monotonic() < deadline, f"{episode_id} was never republished"
        await asyncio.sleep(0.05)


async def stop(*tasks: asyncio.Task[Any]) -> None:
    for t in tasks:
        assert not t.done(), f"a sweeper exited: {t.exception() if not t.cancelled() else ''}"
        t.cancel()
    for t in tasks:
        with contextlib.suppress(asyncio.CancelledError):
            await t


async def test_the_sweeper_reconnects_after_its_connection_is_killed(
    db_url: str, admin: asyncpg.Connection
) -> None:
    sent: list[EpisodeCompleted] = []
    task = asyncio.create_task(run_sweeper(db_url, SETTINGS, sent.extend))
    try:
        pid, _ = await wait_holder(admin)
        await add_pending(admin, "before")
        await wait_sent(sent, "before")

        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        await add_pending(admin, "after-kill")

        # A later pass, on a new connection that holds the lock again.
        await wait_sent(sent, "after-kill")
        new_pid, _ = await wait_holder(admin, not_pid=pid)
        assert new_pid != pid
        assert not task.done()
    finally:
        await stop(task)


async def test_two_sweepers_are_never_active_together_across_kills(
    db_url: str, admin: asyncpg.Connection
) -> None:
    await add_pending(admin, "pending")
    passes: dict[str, list[SweepReport]] = {"sweeper-a": [], "sweeper-b": []}
    sent: list[EpisodeCompleted] = []
    tasks = [
        asyncio.create_task(
            run_sweeper(
                db_url, SETTINGS, sent.extend, connect=named(name), on_pass=passes[name].append
            )
        )
        for name in passes
    ]
    try:
        pid: int | None = None
        for _ in range(3):
            pid, active = await wait_holder(admin, not_pid=pid)
            await asyncio.sleep(0.5)  # a sweeper that lost the lock has noticed by now
            before = {name: len(reports) for name, reports in passes.items()}
            await asyncio.sleep(1.5)  # about five passes
            swept = {name for name, reports in passes.items() if len(reports) > before[name]}
            assert swept == {active}, f"lock held by {active}, sweeping: {sorted(swept)}"
            assert await holder(admin) == (pid, active)
            assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        assert "pending" in {e.episode_id for e in sent}
    finally:
        await stop(*tasks)


async def test_a_sweeper_started_while_the_database_is_unreachable_keeps_trying(
    db_url: str, admin: asyncpg.Connection
) -> None:
    attempts: list[float] = []

    async def flaky(url: str) -> Any:
        attempts.append(time.monotonic())
        if len(attempts) < 3:
            raise ConnectionRefusedError("Postgres is restarting")
        return await connect(url)

    sent: list[EpisodeCompleted] = []
    await add_pending(admin, "waiting")
    task = asyncio.create_task(
        run_sweeper(db_url, SETTINGS, sent.extend, connect=functools.partial(flaky))
    )
    try:
        await wait_sent(sent, "waiting")
        assert len(attempts) == 3
    finally:
        await stop(task)
