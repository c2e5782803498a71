"""`factstream publish`: bad lines are reported by number and skipped, the rest are published
keyed by tenant, each tenant in the partition Java clients would pick, in file order."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from typer.testing import CliRunner

from streams.cli.main import app
from streams.events import EpisodeCompleted
from streams.kafka.client import KafkaUnreachable
from streams.kafka.partitioning import partition_for
from streams.kafka.publisher import AsyncPublisher, Publisher
from streams.settings import Settings
from tests.support.fixtures import Tenant
from tests.support.kafka import consume_all, episode_dict, episode_json

PARTITIONS = 3


def cli_env(settings: Settings) -> dict[str, str]:
    return {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": settings.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": settings.topic_prefix,
    }


def test_publish_skips_bad_lines_and_publishes_the_rest(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
    tmp_path: Path,
) -> None:
    create_topics(tenant_settings, partitions=PARTITIONS)
    a, b = (tenant.dataset, f"{tenant.project_id}-a"), (tenant.dataset, f"{tenant.project_id}-b")
    lines = [
        episode_json(*a, "a1"),
        episode_json(*b, "b1"),
        episode_json(*a, "naive-time", completed_at="2026-01-01T10:00:00"),
        episode_json(*a, "a2"),
        "",
        '{"dataset": "oops"',
        episode_json(*b, "b2"),
        episode_json(*a, "a3"),
        episode_json(
            *b, "from-next-week", completed_at=(datetime.now(UTC) + timedelta(days=7)).isoformat()
        ),
    ]
    source = tmp_path / "episodes.jsonl"
    source.write_text("\n".join(lines) + "\n")

    result = CliRunner().invoke(app, ["publish", str(source)], env=cli_env(tenant_settings))

    assert result.exit_code == 1, result.output  # some lines skipped, the good ones went
    assert "line 3: skipped: completed_at" in result.output
    assert "line 6: skipped:" in result.output and "Invalid JSON" in result.output
    assert "line 5" not in result.output  # a blank line is not an error
    assert (
        "line 9: skipped: completed_at" in result.output and "ahead of this clock" in result.output
    )
    assert "published 5, skipped 3" in result.output

    records = consume_all(tenant_settings, tenant_settings.topic("episodes.completed"), 5)
    assert len(records) == 5
    by_key: dict[str, list[str]] = {}
    for r in records:
        assert r.key is not None
        event = EpisodeCompleted.model_validate_json(r.value)
        assert r.key == event.tenant
        assert r.partition == partition_for(r.key, PARTITIONS)  # murmur2, as Java places it
        by_key.setdefault(r.key, []).append(event.episode_id)
    assert by_key == {":".join(a): ["a1", "a2", "a3"], ":".join(b): ["b1", "b2"]}


def test_publish_from_stdin_all_good_exits_zero(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    text = episode_json(tenant.dataset, tenant.project_id, "only") + "\n"
    result = CliRunner().invoke(app, ["publish", "-"], input=text, env=cli_env(tenant_topics))
    assert result.exit_code == 0, result.output
    assert tenant.key in result.output and "published 1, skipped 0" in result.output


def test_python_publisher_sync_and_async(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    first = EpisodeCompleted.model_validate(episode_dict(tenant.dataset, tenant.project_id, "p1"))
    second = EpisodeCompleted.model_validate(episode_dict(tenant.dataset, tenant.project_id, "p2"))
    with Publisher(tenant_topics) as publisher:
        publisher.publish(first)
    assert publisher.delivered_count == 1

    async def publish_async() -> int:
        async with AsyncPublisher(tenant_topics) as pub:
            delivery = await pub.publish(second)
        return delivery.partition

    partition = asyncio.run(publish_async())
    assert partition == partition_for(tenant.key, PARTITIONS)
    records = consume_all(tenant_topics, tenant_topics.topic("episodes.completed"), 2)
    assert [json.loads(r.value)["episode_id"] for r in records] == ["p1", "p2"]


def test_publish_to_a_missing_topic_fails_clearly_and_creates_nothing(
    tenant_settings: Settings,
    tenant: Tenant,
) -> None:
    text = episode_json(tenant.dataset, tenant.project_id, "e1") + "\n"
    result = CliRunner().invoke(app, ["publish", "-"], input=text, env=cli_env(tenant_settings))
    assert result.exit_code == 1
    assert "does not exist" in result.output and "factstream topics create" in result.output
    admin = AdminClient(dict(tenant_settings.kafka_common))
    topics = admin.list_topics(timeout=10).topics
    assert not [t for t in topics if t.startswith(tenant_settings.topic_prefix)]


def test_connect_returns_once_the_broker_answers_and_names_an_unreachable_one(
    tenant_topics: Settings,
) -> None:
    with Publisher(tenant_topics) as publisher:
        publisher.connect(timeout_s=10)
    dead = Settings(kafka_bootstrap_servers="127.0.0.1:1")
    started = time.monotonic()
    with pytest.raises(KafkaUnreachable, match=r"127\.0\.0\.1:1"):
        Publisher(dead).connect(timeout_s=2)
    assert time.monotonic() - started < 10
