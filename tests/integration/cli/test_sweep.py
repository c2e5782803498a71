"""`factstream sweep --once` on a real broker and Postgres: what it republishes lands on the
real input topic keyed by tenant; an orphan past the retry cap ends `failed`, visibly."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import asyncpg
from typer.testing import CliRunner

from streams.cli.main import app
from streams.settings import Settings
from tests.support.db import create_fresh_database
from tests.support.fixtures import Tenant
from tests.support.kafka import consume_all

TRANSCRIPT = [
    {"seq": 1, "role": "user", "content": "I live in Oslo", "created_at": "2026-01-01T00:00:00Z"}
]
STALE = "now() - interval '11 minutes'"


async def _seed(db_url: str, tenant: Tenant) -> None:
    conn = await asyncpg.connect(db_url)
    try:
        for episode_id, sets in {
            "orphan": f"semantic_status = 'processing', claimed_at = {STALE},"
            " claimed_by = 'dead-worker'",
            "failed-1": "semantic_status = 'failed', semantic_retry_count = 1,"
            " semantic_last_error = '429 from the model'",
            "orphan-cap": f"semantic_status = 'processing', claimed_at = {STALE},"
            " semantic_retry_count = 2, semantic_last_error = 'HTTP 500'",
            "done": "semantic_status = 'done', status = 'done'",
        }.items():
            await conn.execute(
                "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id,"
                " from_seq, to_seq, transcript, completed_at)"
                " VALUES ($1, $2, $3, 's', $4, 1, 1, $5::jsonb, now())",
                tenant.dataset, tenant.project_id, episode_id, f"evt-{episode_id}",
                json.dumps(TRANSCRIPT),
            )  # fmt: skip
            await conn.execute(
                f"UPDATE episodes SET {sets} WHERE dataset = $1 AND episode_id = $2",
                tenant.dataset, episode_id,
            )  # fmt: skip
    finally:
        await conn.close()


async def _row(db_url: str, tenant: Tenant, episode_id: str) -> Any:
    conn = await asyncpg.connect(db_url)
    try:
        return await conn.fetchrow(
            "SELECT semantic_status, semantic_retry_count, semantic_last_error, claimed_by"
            " FROM episodes WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            tenant.dataset, tenant.project_id, episode_id,
        )  # fmt: skip
    finally:
        await conn.close()


def test_sweep_once_republishes_to_the_input_topic_and_ends_past_the_cap(
    database_url: str,
    kafka_bootstrap: str,
    tenant: Tenant,
    tenant_settings: Settings,
    create_topics: Callable[..., Any],
) -> None:
    db_url = asyncio.run(create_fresh_database(database_url))
    asyncio.run(_seed(db_url, tenant))
    create_topics(tenant_settings, partitions=3)
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "FACTSTREAM_DATABASE_URL": db_url,
        "FACTSTREAM_TOPIC_PREFIX": tenant.topic_prefix,
    }

    result = CliRunner().invoke(app, ["sweep", "--once"], env=env)

    assert result.exit_code == 0, result.output
    assert "republished 2, ended failed 1" in result.output
    assert "orphan-cap" in result.output and "ended failed" in result.output
    records = consume_all(tenant_settings, tenant.topic("episodes.completed"), expected=2)
    assert {r.key for r in records} == {tenant.key}
    sent = {json.loads(r.value)["episode_id"]: json.loads(r.value) for r in records}
    assert sorted(sent) == ["failed-1", "orphan"]  # nothing twice, nothing past the cap
    assert sent["orphan"]["messages"][0]["content"] == "I live in Oslo"
    assert sent["orphan"]["event_id"] == "evt-orphan"

    ended = asyncio.run(_row(db_url, tenant, "orphan-cap"))
    assert ended["semantic_status"] == "failed"
    assert ended["semantic_retry_count"] == 3
    assert "HTTP 500" in ended["semantic_last_error"]
    assert "claim expired" in ended["semantic_last_error"]
    orphan = asyncio.run(_row(db_url, tenant, "orphan"))
    assert (orphan["semantic_status"], orphan["claimed_by"]) == ("queued", None)


def test_migrate_twice_then_up_to_date(database_url: str) -> None:
    db_url = asyncio.run(create_fresh_database(database_url))  # already migrated once
    env = {"FACTSTREAM_DATABASE_URL": db_url, "FACTSTREAM_EMBEDDING_DIM": "16"}
    result = CliRunner().invoke(app, ["migrate"], env=env)
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output
    refused = CliRunner().invoke(app, ["migrate"], env={**env, "FACTSTREAM_EMBEDDING_DIM": "32"})
    assert refused.exit_code == 2  # a setting is wrong
    assert "FACTSTREAM_EMBEDDING_DIM is 32" in refused.output
    assert "migrated with 16-dimension vectors" in refused.output
