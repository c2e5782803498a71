"""A record with no key on the input topic, through all six stages (issue: keyless records).

A producer puts a keyless record on any partition, out of its tenant's order, so the
runtime dead-letters it (`no_key`) as it does a record keyed by another tenant, and the
tenant's later episode goes through. `factstream dlq redrive` sends it back keyed by the
tenant its payload names, once, and it lands.
"""

from __future__ import annotations

import asyncio
import uuid

from typer.testing import CliRunner

from streams.cli.main import app
from streams.model.fakes.book import ScriptBook, TenantScript, claim, graph
from streams.ops.dlq import REDRIVEN_FROM_HEADER
from tests.support.dead_letters import wait_for_dead_letters
from tests.support.events import episode
from tests.support.fact_table import Row, fact_table
from tests.support.kafka import cli_env, consume_all, produce
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings


async def test_a_keyless_episode_is_dead_lettered_and_redriven_keyed_by_its_tenant(
    kafka_bootstrap: str, database_url: str
) -> None:
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    tenant = (f"nokey-{uuid.uuid4().hex[:8]}", "p1")
    key = ":".join(tenant)
    google = graph({"google": "ORG"}, claim("user", "works at", "google"))
    berlin = graph({"berlin": "PLACE"}, claim("user", "lives in", "berlin"))
    book.add(*tenant, TenantScript(graphs={"ep-1": google, "ep-2": berlin}))
    keyless = episode(*tenant, "ep-1", "I work at Google.")
    later = episode(*tenant, "ep-2", "I live in Berlin.")
    input_topic = settings.topic("episodes.completed")
    pipeline = Pipeline(settings, book.models())
    try:
        async with pipeline:
            raw = keyless.model_dump_json().encode()
            await asyncio.to_thread(produce, settings, input_topic, [{"key": None, "value": raw}])
            await pipeline.publish(later)
            await pipeline.wait_done([later])  # the tenant is not held up
            for stage in ("summarize", "extract"):
                (letter,) = await wait_for_dead_letters(settings, stage)
                assert letter.record.key is None and letter.value == raw  # untouched
                assert letter.reason == (
                    "no_key: NoKey: record has no key; the key must be the tenant"
                    f" '<dataset>:<project_id>', here '{key}'"
                )
            stored = await pipeline.pool.fetchval(
                "SELECT count(*) FROM episodes WHERE dataset = $1 AND episode_id = 'ep-1'",
                tenant[0],
            )
            assert stored == 0  # never handled
            assert await fact_table(pipeline.pool, *tenant) == [
                Row("user", "lives in", "berlin", "ep-2")
            ]

            env = cli_env(settings)
            redriven = await asyncio.to_thread(
                CliRunner().invoke, app, ["dlq", "redrive", "extract"], env=env
            )
            assert redriven.exit_code == 0, redriven.output
            assert "redrove 1 dead letter(s) of extract" in redriven.output
            assert f"(no key; sent as {key})" in redriven.output
            await pipeline.wait_done([keyless])
            assert await fact_table(pipeline.pool, *tenant) == [
                Row("user", "lives in", "berlin", "ep-2"),
                Row("user", "works at", "google", "ep-1"),
            ]
            copies = await asyncio.to_thread(consume_all, settings, input_topic, 3)
            (back,) = [c for c in copies if REDRIVEN_FROM_HEADER in c.headers]
            assert (back.key, back.value) == (key, raw)
            assert [c.key for c in copies].count(None) == 1  # only the original has none
            again = await asyncio.to_thread(
                CliRunner().invoke, app, ["dlq", "redrive", "extract"], env=env
            )
            assert again.exit_code == 0 and "redrove 0" in again.output, again.output
            assert len(await wait_for_dead_letters(settings, "extract")) == 1  # no new letter
    finally:
        delete_pipeline_topics(settings)
