"""`factstream trace` on a real pipeline result: carol's two demo episodes run through every
stage's handler in-process (real Postgres, the scripted demo model), then the trace of
carol-2 must show its ledger, model calls, the guard's drop of the injected
"dave lives in paris", the fact it added and the fact it superseded."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from typer.testing import CliRunner

from streams.cli.main import app
from streams.demo.setup import EPISODES
from streams.events import EpisodeCompleted
from streams.model.fakes.demo import create_models
from streams.runtime.stage import RecordContext, StageDeps
from streams.settings import Settings
from streams.stages import dedup, extract, judge, resolve, write
from streams.store.db import create_pool
from tests.support.db import create_fresh_database
from tests.support.fixtures import Tenant

DIM = 64  # as the demo: hashed vectors of unrelated texts stay far apart


def carol_episodes(dataset: str) -> list[EpisodeCompleted]:
    rows = [json.loads(line) for line in EPISODES.read_text().splitlines() if line.strip()]
    return [
        EpisodeCompleted.model_validate({**r, "dataset": dataset})
        for r in rows
        if r["episode_id"] in ("carol-1", "carol-2")
    ]


async def run_pipeline(db_url: str, dataset: str) -> None:
    settings = Settings(embedding_dim=DIM, topic_prefix="trace-test.")
    pool = await create_pool(db_url)
    try:
        deps = StageDeps(
            settings=settings, pool=pool, models=create_models(settings), worker_id="trace-test"
        )
        chain = [m.create_stage(deps) for m in (extract, resolve, dedup, judge, write)]
        for offset, episode in enumerate(carol_episodes(dataset)):
            ctx = RecordContext(
                group="g", topic="t", partition=0, offset=offset, key=episode.tenant, timestamp_ms=0
            )
            events: list[Any] = [episode]
            for stage in chain:
                assert len(events) == 1, f"{stage.name} got {events}"
                events = list(await stage.handle(events[0], ctx))
            assert events == []
    finally:
        await pool.close()


def test_trace_shows_the_path_of_a_real_episode(database_url: str, tenant: Tenant) -> None:
    db_url = asyncio.run(create_fresh_database(database_url, DIM))
    asyncio.run(run_pipeline(db_url, tenant.dataset))
    env = {"FACTSTREAM_DATABASE_URL": db_url}
    runner = CliRunner()
    args = ["trace", "carol-2", "--dataset", tenant.dataset, "--project", "carol"]

    shown = runner.invoke(app, args, env=env)

    assert shown.exit_code == 0, shown.output
    text = shown.output
    assert f"episode carol-2 of {tenant.dataset}:carol" in text
    assert "dropped by guard" in text and "subject_not_allowed" in text
    assert "dave" in text and "paris" in text
    # bangalore, and the copy of chennai that carries where living in chennai ended
    assert "facts added (2)" in text and "bangalore" in text and "valid time ends" in text
    assert "0.95" in text and "trusted" in text and "untrusted" not in text
    assert "facts ended (1)" in text and "superseded" in text
    for title in ("extract · extract", "resolve · embed", "dedup · embed", "judge · judge"):
        assert title in text
    assert "more characters (--full)" in text  # the extract request is long
    assert "more characters" not in runner.invoke(app, [*args, "--full"], env=env).output

    as_json = runner.invoke(app, [*args, "--json"], env=env)
    assert as_json.exit_code == 0, as_json.output
    [trace] = json.loads(as_json.output)
    assert trace["ledger"]["semantic_status"] == "done"
    assert [c["kind"] for c in trace["calls"]] == ["extract", "embed", "embed", "judge"]
    assert {
        "stage": "guard",
        "reason": "subject_not_allowed",
        "subject": "dave",
        "predicate": "lives in",
        "object": "paris",
    }.items() <= trace["drops"][0].items()
    assert [(f["predicate"], f["object"], f["end_reason"]) for f in trace["facts_added"]] == [
        ("lives in", "bangalore", None),
        ("lives in", "chennai", "superseded"),
    ]
    assert [(f["object"], f["invalid_reason"]) for f in trace["facts_ended"]] == [
        ("chennai", "superseded")
    ]


def test_trace_of_an_unknown_episode_fails_clearly(database_url: str) -> None:
    db_url = asyncio.run(create_fresh_database(database_url))
    result = CliRunner().invoke(app, ["trace", "nope"], env={"FACTSTREAM_DATABASE_URL": db_url})
    assert result.exit_code == 1
    assert "no episode 'nope'" in result.output
