"""`factstream trace --json` shows what the guards mended silently, derived on read from the
extract call stored in llm_calls: carol-1 run through every stage's handler in-process (real
Postgres), its extract answered by a scripted model with a type alias, an unknown type, a
"Works-At!" predicate, a confidence of 1.7, a bare year and no user entity."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from typer.testing import CliRunner

from streams.cli.main import app
from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.model.fakes.scripted import scripted_models
from streams.model.ports import ExtractInput
from streams.runtime.stage import RecordContext, StageDeps
from streams.settings import Settings
from streams.stages import dedup, extract, judge, resolve, write
from streams.store.db import create_pool
from tests.integration.cli.test_trace import DIM, carol_episodes
from tests.support.db import create_fresh_database
from tests.support.fixtures import Tenant

ANSWER = RawGraph(
    entities=[RawEntity(name="Chennai", type="city"), RawEntity(name="Remote", type="vibe")],
    relationships=[
        RawClaim(subject="user", predicate="Lives-In!", object="Chennai", confidence=1.7,
                 sourceQuote="I live in Chennai", validFrom="2015"),
        RawClaim(subject="user", predicate="works for", object="a Berlin startup",
                 confidence="high", sourceQuote="remote for a Berlin startup"),
    ],
)  # fmt: skip


def _extract(_request: ExtractInput) -> RawGraph:
    return ANSWER


async def run_carol_1(db_url: str, dataset: str) -> None:
    settings = Settings(embedding_dim=DIM, topic_prefix="trace-mends-test.")
    pool = await create_pool(db_url)
    try:
        models = scripted_models(extract=_extract, dim=DIM)
        deps = StageDeps(settings=settings, pool=pool, models=models, worker_id="trace-mends")
        chain = [m.create_stage(deps) for m in (extract, resolve, dedup, judge, write)]
        ctx = RecordContext(group="g", topic="t", partition=0, offset=0, key="k", timestamp_ms=0)
        events: list[Any] = [carol_episodes(dataset)[0]]
        for stage in chain:
            events = [out for event in events for out in await stage.handle(event, ctx)]
    finally:
        await pool.close()


def test_trace_shows_the_guards_mends(database_url: str, tenant: Tenant) -> None:
    db_url = asyncio.run(create_fresh_database(database_url, DIM))
    asyncio.run(run_carol_1(db_url, tenant.dataset))
    env = {"FACTSTREAM_DATABASE_URL": db_url}
    args = ["trace", "carol-1", "--dataset", tenant.dataset, "--project", "carol"]
    runner = CliRunner()

    shown = runner.invoke(app, [*args, "--json"], env=env)

    assert shown.exit_code == 0, shown.output
    [trace] = json.loads(shown.output)
    mends = {(m["what"], m["given"], m["stored"]) for m in trace["mends"]}
    assert {
        ("entity type", "city", "PLACE"),
        ("entity type", "vibe", "THING"),
        ("entity", "", "user (PERSON)"),
        ("predicate", "Lives-In!", "lives in"),
        ("confidence", "1.7", "0 (untrusted)"),
        ("validFrom", "2015", "2015-01-01"),
        ("confidence", "high", "0 (untrusted)"),
        ("kind", "relationship", "literal"),
    } <= mends, trace["mends"]
    lives = next(m for m in trace["mends"] if m["what"] == "predicate")
    assert lives["item"] == "user · lives in · chennai"
    text = runner.invoke(app, args, env=env).output
    assert "mended by guard (" in text and "Lives-In!" in text and "2015-01-01" in text
