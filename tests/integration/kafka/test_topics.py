"""`topics create|list`: every topic, configured partitions and retention, idempotent."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from streams.cli.main import app
from streams.kafka.topics import (
    all_topics,
    create_topics,
    delete_topics,
    describe_topics,
    format_retention,
)
from streams.pipeline import STAGES
from streams.settings import Settings
from tests.support.fixtures import Tenant

DAY = 86_400_000


def test_all_topics_lists_inputs_stages_and_dead_letters() -> None:
    s = Settings(
        topic_prefix="m.",
        topic_partitions=6,
        topic_replication=1,
        input_retention_ms=30 * DAY,
        stage_retention_ms=7 * DAY,
    )
    specs = {t.name: t for t in all_topics(s)}
    expected_stage = ["m.facts.extracted", "m.facts.resolved", "m.facts.deduped", "m.facts.judged"]
    assert list(specs) == [
        "m.episodes.completed",
        *expected_stage,
        *(f"m.dlq.{stage}" for stage in STAGES),
    ]
    assert specs["m.episodes.completed"].retention_ms == 30 * DAY
    assert {specs[n].retention_ms for n in list(specs)[1:]} == {7 * DAY}
    assert {t.partitions for t in specs.values()} == {6}
    assert {t.replication for t in specs.values()} == {1}


def test_format_retention() -> None:
    assert format_retention(30 * DAY) == "30d"
    assert format_retention(-1) == "forever"
    assert format_retention(90_000) == "90s"
    assert format_retention(None) == "?"


@pytest.fixture
def topic_settings(kafka_settings: Settings, tenant: Tenant) -> Iterator[Settings]:
    s = Settings(
        kafka_bootstrap_servers=kafka_settings.kafka_bootstrap_servers,
        topic_prefix=tenant.topic_prefix,
        topic_partitions=3,
        input_retention_ms=-1,
        stage_retention_ms=2 * DAY,
    )
    yield s
    delete_topics(s, [t.name for t in all_topics(s)])


def test_create_is_idempotent_and_sets_retention(topic_settings: Settings) -> None:
    first = create_topics(topic_settings)
    assert [r.action for r in first] == ["created"] * len(all_topics(topic_settings))
    second = create_topics(topic_settings)
    assert {r.action for r in second} == {"exists"}
    assert all(r.note == "" for r in second)

    infos = {i.name: i for i in describe_topics(topic_settings)}
    assert set(infos) == {t.name for t in all_topics(topic_settings)}
    assert {i.partitions for i in infos.values()} == {3}
    assert infos[topic_settings.topic("episodes.completed")].retention_ms == -1
    assert infos[topic_settings.topic("facts.judged")].retention_ms == 2 * DAY
    assert infos[topic_settings.dlq_topic("write")].retention_ms == 2 * DAY


def test_create_again_updates_retention_but_not_partitions(topic_settings: Settings) -> None:
    create_topics(topic_settings)
    changed = topic_settings.model_copy(update={"stage_retention_ms": DAY, "topic_partitions": 5})
    results = {r.name: r for r in create_topics(changed)}
    judged = changed.topic("facts.judged")
    assert results[judged].action == "exists"
    assert "has 3 partitions" in results[judged].note
    infos = {i.name: i for i in describe_topics(changed)}
    assert infos[judged].retention_ms == DAY
    assert infos[judged].partitions == 3  # never repartitioned behind the user's back


def test_cli_topics_create_and_list(topic_settings: Settings) -> None:
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": topic_settings.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": topic_settings.topic_prefix,
        "FACTSTREAM_TOPIC_PARTITIONS": "3",
        "FACTSTREAM_INPUT_RETENTION_MS": "-1",
        "FACTSTREAM_STAGE_RETENTION_MS": str(2 * DAY),
    }
    runner = CliRunner()
    created = runner.invoke(app, ["topics", "create"], env=env)
    assert created.exit_code == 0, created.output
    assert f"created  {topic_settings.topic('episodes.completed')}" in created.output
    again = runner.invoke(app, ["topics", "create"], env=env)
    assert again.exit_code == 0, again.output
    assert "created" not in again.output

    listed = runner.invoke(app, ["topics", "list"], env=env)
    assert listed.exit_code == 0, listed.output
    for spec in all_topics(topic_settings):
        assert spec.name in listed.output
    assert "forever" in listed.output and "2d" in listed.output
    assert "missing" not in listed.output
