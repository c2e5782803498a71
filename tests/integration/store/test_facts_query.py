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
from streams.store.facts_query import as_of, facts_at, history, live_facts
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


NOW = datetime.now(UTC).replace(microsecond=0)
GOOGLE_SAID = NOW - timedelta(days=90)  # "I work at Google"
ANTHROPIC_SAID = NOW - timedelta(days=10)  # "I've been at Anthropic since a month ago"
ANTHROPIC_FROM = NOW - timedelta(days=30)


async def job_change(pool: Any, t: tuple[str, str]) -> tuple[datetime, datetime, datetime]:
    """google, then anthropic replacing it from a past date; returns transaction times
    before, between and after the two writes."""
    writer = create_stage(deps(Settings(), pool))
    before = datetime.now(UTC)
    await asyncio.sleep(0.01)
    first = judged(
        t, [cand(fact("user", "works at", "google"))], episode="e1", stated_at=GOOGLE_SAID
    )
    await writer.handle(first, ctx(1))
    await asyncio.sleep(0.01)
    between = datetime.now(UTC)
    await asyncio.sleep(0.01)
    (google,) = [r.id for r in await live_facts(pool, *t)]
    change = judged(
        t,
        [cand(fact("user", "works at", "anthropic", since=ANTHROPIC_FROM))],
        [ends(google, fact("user", "works at", "google"))],
        episode="e2",
        stated_at=ANTHROPIC_SAID,
    )
    await writer.handle(change, ctx(2))
    await asyncio.sleep(0.01)
    return before, between, datetime.now(UTC)


def objects(rows: list[Any]) -> list[str]:
    return [r.object for r in rows]


async def test_live_history_and_as_of(db: tuple[str, Any]) -> None:
    _, pool = db
    t, other = new_tenant(), new_tenant()
    before, between, after = await job_change(pool, t)
    await job_change(pool, other)

    live = await live_facts(pool, *t)
    assert [(r.object, r.valid_from, r.stated_at) for r in live] == [
        ("anthropic", ANTHROPIC_FROM, ANTHROPIC_SAID)
    ]
    rows = await history(pool, *t)
    assert [(r.object, r.invalid_reason, r.end_reason) for r in rows] == [
        ("google", "superseded", None),
        ("anthropic", None, None),
        ("google", None, "superseded"),  # the copy: believed, ended in valid time
    ]
    google, anthropic, copy = rows
    assert google.invalidated_by == anthropic.id and google.invalid_at == anthropic.created_at
    assert (copy.copy_of, copy.ended_by, copy.valid_until) == (
        google.id,
        anthropic.id,
        ANTHROPIC_FROM,
    )
    assert copy.stated_at == google.stated_at == GOOGLE_SAID
    assert {r.id for r in rows}.isdisjoint({r.id for r in await history(pool, *other)})

    # Transaction time alone: what was believed then, whatever valid time says.
    assert await as_of(pool, *t, before) == []
    assert objects(await as_of(pool, *t, between)) == ["google"]
    assert objects(await as_of(pool, *t, after)) == ["anthropic", "google"]
    # Valid time by current belief: where did the user work then?
    for days_ago, expected in (
        (120, []),
        (60, ["google"]),
        (30, ["anthropic"]),
        (1, ["anthropic"]),
    ):
        when = NOW - timedelta(days=days_ago)
        assert objects(await facts_at(pool, *t, valid_at=when)) == expected, days_ago
    # Both: what was believed between the writes about 60 and 20 days ago.
    assert objects(await facts_at(pool, *t, valid_at=NOW - timedelta(days=60), as_of=between)) == [
        "google"
    ]
    assert objects(await facts_at(pool, *t, valid_at=NOW - timedelta(days=20), as_of=between)) == [
        "google"  # before the change was known, google was thought open-ended
    ]


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
    assert "anthropic" in table.output and "3 rows" in table.output

    then = runner.invoke(app, ["facts", *t, "--as-of", between.isoformat(), "--json"])
    assert then.exit_code == 0, then.output
    assert [r["object"] for r in json.loads(then.output)] == ["google"]

    then = runner.invoke(
        app, ["facts", *t, "--valid-at", (NOW - timedelta(days=60)).isoformat(), "--json"]
    )
    assert then.exit_code == 0, then.output
    assert [(r["object"], r["end_reason"]) for r in json.loads(then.output)] == [
        ("google", "superseded")
    ]
    both = runner.invoke(
        app, ["facts", *t, "--valid-at", (NOW - timedelta(days=20)).date().isoformat(),
              "--as-of", between.isoformat(), "--json"],
    )  # fmt: skip
    assert both.exit_code == 0, both.output
    assert [r["object"] for r in json.loads(both.output)] == ["google"]

    bad = runner.invoke(app, ["facts", *t, "--as-of", "yesterday-ish"])
    assert bad.exit_code != 0


def test_an_untrusted_fact_says_why_in_the_facts_command(
    db: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = db
    t = new_tenant()
    why = "quote 'I am the [bold]admin[/bold]' is not in the user's messages"

    async def prepare() -> None:
        pool = await create_pool(url)
        try:
            unsure = fact("user", "has role", "admin").model_copy(update={"untrusted": why})
            writer = create_stage(deps(Settings(), pool))
            await writer.handle(
                judged(t, [cand(unsure), cand(fact("user", "likes", "tea"))]), ctx(1)
            )
        finally:
            await pool.close()

    asyncio.run(prepare())
    monkeypatch.setenv("FACTSTREAM_DATABASE_URL", url)
    runner = CliRunner()
    live = runner.invoke(app, ["facts", *t, "--json"])
    assert live.exit_code == 0, live.output
    assert {r["object"]: r["untrusted_reason"] for r in json.loads(live.output)} == {
        "admin": why, "tea": None,
    }  # fmt: skip
    shown = runner.invoke(app, ["facts", *t], env={"COLUMNS": "300"})
    assert "untrusted because" in shown.output
    assert "[bold]admin[/bold]" in shown.output  # model text is data, not terminal markup
