"""Reading the result: live facts, full history and as-of, via the API and `factstream facts`."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from typer.testing import CliRunner

from streams.cli.main import app
from streams.settings import Settings
from streams.stages.write import create_stage
from streams.store.db import create_pool
from streams.store.facts_query import as_of, history, live_facts
from tests.support.db import create_fresh_database
from tests.support.events import new_tenant
from tests.support.facts import cand, deps, ends, fact, judged
from tests.support.stages import ctx


@pytest.fixture(scope="module")
async def db(database_url: str) -> AsyncIterator[tuple[str, Any]]:
    url = await create_fresh_database(database_url)
    pool = await create_pool(url)
    yield url, pool
    await pool.close()


async def job_change(pool: Any, t: tuple[str, str]) -> tuple[datetime, datetime, datetime]:
    """google, then anthropic replacing it; returns times before, between and after."""
    writer = create_stage(deps(Settings(), pool))
    before = datetime.now(UTC)
    await asyncio.sleep(0.01)
    await writer.handle(judged(t, [cand(fact("user", "works at", "google"))], episode="e1"), ctx(1))
    await asyncio.sleep(0.01)
    between = datetime.now(UTC)
    await asyncio.sleep(0.01)
    (google,) = [r.id for r in await live_facts(pool, *t)]
    change = judged(
        t,
        [cand(fact("user", "works at", "anthropic", since=datetime(2026, 3, 1, tzinfo=UTC)))],
        [ends(google, fact("user", "works at", "google"))],
        episode="e2",
    )
    await writer.handle(change, ctx(2))
    await asyncio.sleep(0.01)
    return before, between, datetime.now(UTC)


async def test_live_history_and_as_of(db: tuple[str, Any]) -> None:
    _, pool = db
    t, other = new_tenant(), new_tenant()
    before, between, after = await job_change(pool, t)
    await job_change(pool, other)

    live = await live_facts(pool, *t)
    assert [(r.object, r.valid_from) for r in live] == [
        ("anthropic", datetime(2026, 3, 1, tzinfo=UTC))
    ]
    rows = await history(pool, *t)
    assert [(r.object, r.invalid_reason) for r in rows] == [
        ("google", "superseded"),
        ("anthropic", None),
    ]
    google, anthropic = rows
    assert google.invalidated_by == anthropic.id and google.invalid_at == anthropic.created_at
    assert {r.id for r in rows}.isdisjoint({r.id for r in await history(pool, *other)})

    assert await as_of(pool, *t, before) == []
    assert [r.object for r in await as_of(pool, *t, between)] == ["google"]
    assert [r.object for r in await as_of(pool, *t, after)] == ["anthropic"]


async def test_live_excludes_facts_past_their_valid_until(db: tuple[str, Any]) -> None:
    _, pool = db
    t = new_tenant()
    ended = fact("user", "works at", "acme", until=datetime.now(UTC) - timedelta(days=1))
    await create_stage(deps(Settings(), pool)).handle(judged(t, [cand(ended)]), ctx(1))
    assert await live_facts(pool, *t) == []
    assert [r.object for r in await history(pool, *t)] == ["acme"]  # still history


def test_the_facts_command(db: tuple[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    url, _ = db
    t = new_tenant()

    async def prepare() -> datetime:
        pool = await create_pool(url)
        try:
            _, between, _ = await job_change(pool, t)
            return between
        finally:
            await pool.close()

    between = asyncio.run(prepare())
    monkeypatch.setenv("FACTSTREAM_DATABASE_URL", url)
    runner = CliRunner()

    live = runner.invoke(app, ["facts", *t, "--json"])
    assert live.exit_code == 0, live.output
    assert [(r["subject"], r["predicate"], r["object"]) for r in json.loads(live.output)] == [
        ("user", "works at", "anthropic")
    ]

    table = runner.invoke(app, ["facts", *t, "--history"])
    assert table.exit_code == 0, table.output
    assert "google" in table.output and "superseded" in table.output
    assert "anthropic" in table.output and "2 rows" in table.output

    then = runner.invoke(app, ["facts", *t, "--as-of", between.isoformat(), "--json"])
    assert then.exit_code == 0, then.output
    assert [r["object"] for r in json.loads(then.output)] == ["google"]

    bad = runner.invoke(app, ["facts", *t, "--as-of", "yesterday-ish"])
    assert bad.exit_code != 0
