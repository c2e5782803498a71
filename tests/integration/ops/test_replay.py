"""`factstream replay`: dry run changes nothing, --execute moves offsets to the right place,
refuses while the group has members, and --reprocess re-publishes already-done episodes."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from confluent_kafka import Consumer
from typer.testing import CliRunner

from streams.cli.main import app
from streams.events import EpisodeCompleted
from streams.ops.reprocess import REPROCESS_OF_HEADER
from streams.settings import Settings
from tests.support.fixtures import Tenant
from tests.support.kafka import (
    cli_env,
    commit,
    committed,
    consume_all,
    episode_json,
    produce,
)

PARTITIONS = 3
BASE_MS = int(datetime(2026, 1, 1, tzinfo=UTC).timestamp() * 1000)


def fill_with_timestamps(settings: Settings, tenant: Tenant, topic: str) -> None:
    """10 records per partition; record i has timestamp BASE + i seconds."""
    produce(
        settings,
        topic,
        [
            {"key": tenant.key, "value": b"{}", "partition": p, "timestamp": BASE_MS + i * 1000}
            for p in range(PARTITIONS)
            for i in range(10)
        ],
    )


def filled_and_committed(
    settings: Settings, tenant: Tenant, create_topics: Callable[..., object], short_topic: str,
    group: str, offsets: dict[int, int],
) -> str:  # fmt: skip
    """Create the topics, fill ``short_topic`` (fill_with_timestamps), commit ``group`` at
    ``offsets`` on it; returns the topic's full name."""
    create_topics(settings, partitions=PARTITIONS)
    topic = settings.topic(short_topic)
    fill_with_timestamps(settings, tenant, topic)
    commit(settings, group, topic, offsets)
    return topic


def test_dry_run_changes_nothing(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
) -> None:
    group = f"test-judge-{uuid.uuid4().hex[:8]}"
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.deduped", group, {0: 10, 1: 7, 2: 3}
    )

    result = CliRunner().invoke(
        app, ["replay", "judge", "--group", group, "--to-earliest"], env=cli_env(tenant_settings)
    )

    assert result.exit_code == 0, result.output
    assert "dry run: nothing changed" in result.output
    assert "20" in result.output  # total records to replay: 10 + 7 + 3
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 10, 1: 7, 2: 3}


def test_execute_to_datetime_moves_offsets_to_the_first_record_at_that_time(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
) -> None:
    group = f"test-write-{uuid.uuid4().hex[:8]}"
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.judged", group, {0: 10, 1: 10, 2: 10}
    )
    when = datetime.fromtimestamp((BASE_MS + 4500) / 1000, UTC).isoformat()

    result = CliRunner().invoke(
        app,
        [
            "replay",
            "write",
            "--group",
            group,
            "--to-datetime",
            when,
            "--partitions",
            "0,1",
            "--execute",
        ],
        env=cli_env(tenant_settings),
    )

    assert result.exit_code == 0, result.output
    # First record at or after BASE+4.5 s is record 5; partition 2 was not chosen.
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 5, 1: 5, 2: 10}

    later = datetime.fromtimestamp((BASE_MS + 60_000) / 1000, UTC).isoformat()
    result = CliRunner().invoke(
        app,
        ["replay", "write", "--group", group, "--to-datetime", later, "--execute"],
        env=cli_env(tenant_settings),
    )
    assert result.exit_code == 0, result.output
    # No record that late: the log end, as kafka-consumer-groups does.
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 10, 1: 10, 2: 10}


@pytest.mark.parametrize(
    "when", ["1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.997Z", "0001-01-01T00:00:00Z"]
)
def test_to_datetime_before_1970_replays_everything(
    tenant_settings: Settings, tenant: Tenant, create_topics: Callable[..., object], when: str
) -> None:
    """Before the epoch is before every record: the earliest offset, as kafka-consumer-groups
    goes. A timestamp of -1 ms is Kafka's "latest" and -3 "largest timestamp", and year 1
    an invalid offset, so these replayed nothing, the wrong records, or failed."""
    group = f"test-write-{uuid.uuid4().hex[:8]}"
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.judged", group, {0: 10, 1: 10, 2: 10}
    )
    args = ["replay", "write", "--group", group, "--to-datetime", when]

    plan = CliRunner().invoke(app, [*args, "--json"], env=cli_env(tenant_settings))
    assert plan.exit_code == 0, plan.output
    assert json.loads(plan.stdout)["to_replay"] == 30

    result = CliRunner().invoke(app, [*args, "--execute"], env=cli_env(tenant_settings))
    assert result.exit_code == 0, result.output
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 0, 1: 0, 2: 0}


def test_execute_refuses_while_the_group_has_an_active_member(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
) -> None:
    group = f"test-dedup-{uuid.uuid4().hex[:8]}"
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.resolved", group, {0: 10, 1: 10, 2: 10}
    )
    member = Consumer(
        {
            **tenant_settings.kafka_common,
            "group.id": group,
            "client.id": "busy-worker",
            "enable.auto.commit": False,
        }
    )
    member.subscribe([topic])
    try:
        deadline = time.monotonic() + 20
        while not member.assignment() and time.monotonic() < deadline:
            member.poll(0.2)
        assert member.assignment(), "the test consumer never joined its group"

        result = CliRunner().invoke(
            app,
            ["replay", "dedup", "--group", group, "--to-earliest", "--execute"],
            env=cli_env(tenant_settings),
        )
    finally:
        member.close()

    assert result.exit_code == 1
    assert "active member" in result.output and "busy-worker" in result.output
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 10, 1: 10, 2: 10}


def test_reprocess_republishes_done_episodes_with_reprocess_true(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    topic = tenant_topics.topic("episodes.completed")
    episodes = [episode_json(tenant.dataset, tenant.project_id, f"e{i}") for i in range(4)]
    landed = produce(
        tenant_topics, topic, [{"key": tenant.key, "value": e.encode()} for e in episodes]
    )
    (partition,) = {p for p, _ in landed}
    group = f"test-extract-{uuid.uuid4().hex[:8]}"
    commit(tenant_topics, group, topic, {partition: 3})  # e0..e2 done, e3 not yet read
    env = cli_env(tenant_topics)

    dry = CliRunner().invoke(
        app, ["replay", "extract", "--group", group, "--to-earliest", "--reprocess"], env=env
    )
    assert dry.exit_code == 0, dry.output
    assert "would re-publish 3" in dry.output
    assert len(consume_all(tenant_topics, topic, 4)) == 4  # nothing was published

    result = CliRunner().invoke(
        app,
        ["replay", "extract", "--group", group, "--to-earliest", "--reprocess", "--execute"],
        env=env,
    )
    assert result.exit_code == 0, result.output
    assert "re-published 3 episodes" in result.output

    records = consume_all(tenant_topics, topic, 7)
    assert len(records) == 7
    copies = records[4:]
    originals = [EpisodeCompleted.model_validate_json(r.value) for r in records[:4]]
    copied = [EpisodeCompleted.model_validate_json(r.value) for r in copies]
    # Same tenant key and partition, original order, only the done ones, marked reprocess.
    assert [c.episode_id for c in copied] == ["e0", "e1", "e2"]
    assert all(c.reprocess for c in copied)
    assert {r.key for r in copies} == {tenant.key} and {r.partition for r in copies} == {partition}
    assert {c.event_id for c in copied}.isdisjoint({o.event_id for o in originals})
    assert [json.loads(r.value)["messages"] for r in copies] == [
        json.loads(r.value)["messages"] for r in records[:3]
    ]
    assert copies[0].headers[REPROCESS_OF_HEADER] == f"{topic}/{partition}/0".encode()
    # Offsets stay where they were: the copies are read as new records.
    assert committed(tenant_topics, group, topic, PARTITIONS)[partition] == 3


def test_reprocess_refused_for_stages_after_extraction(
    tenant_topics: Settings,
) -> None:
    result = CliRunner().invoke(
        app, ["replay", "judge", "--to-earliest", "--reprocess"], env=cli_env(tenant_topics)
    )
    assert result.exit_code == 2  # a usage error
    assert "--reprocess applies to summarize and extract" in result.output


def test_execute_with_group_moves_only_that_group(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
) -> None:
    group = f"ops-{uuid.uuid4().hex[:8]}-judge"  # workers run with `worker judge --group`
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.deduped", group, {0: 10, 1: 10, 2: 10}
    )
    # The default group factstream-judge is shared by the broker's users, so it is not
    # committed here: on this test's own topic it must stay without offsets (-1001).
    default_before = committed(tenant_settings, "factstream-judge", topic, PARTITIONS)
    assert default_before == {0: -1001, 1: -1001, 2: -1001}

    result = CliRunner().invoke(
        app,
        ["replay", "judge", "--group", group, "--shift-by", "-4", "--execute"],
        env=cli_env(tenant_settings),
    )

    assert result.exit_code == 0, result.output
    assert f"replay judge: group {group}, topic {topic}" in result.output
    assert f"group {group}: 12 records to replay" in result.output
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 6, 1: 6, 2: 6}
    assert committed(tenant_settings, "factstream-judge", topic, PARTITIONS) == default_before


def test_shift_by_refuses_partitions_the_group_never_committed_unless_told(
    tenant_settings: Settings,
    tenant: Tenant,
    create_topics: Callable[..., object],
) -> None:
    group = f"test-judge-{uuid.uuid4().hex[:8]}"
    topic = filled_and_committed(
        tenant_settings, tenant, create_topics, "facts.deduped", group, {0: 10, 1: 7}
    )
    env = cli_env(tenant_settings)
    runner = CliRunner()
    shift = ["replay", "judge", "--group", group, "--shift-by"]

    refused = runner.invoke(app, [*shift, "-2"], env=env)
    assert refused.exit_code == 1
    assert f"cannot shift partition(s) 2 of {topic}" in refused.output
    assert "--uncommitted-from-earliest" in refused.output
    refused = runner.invoke(app, [*shift, "-2", "--execute"], env=env)
    assert refused.exit_code == 1
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 10, 1: 7, 2: -1001}

    only_committed = runner.invoke(app, [*shift, "-2", "--partitions", "0,1", "--execute"], env=env)
    assert only_committed.exit_code == 0, only_committed.output
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 8, 1: 5, 2: -1001}

    told = runner.invoke(app, [*shift, "3", "--uncommitted-from-earliest", "--execute"], env=env)
    assert told.exit_code == 0, told.output
    # 8 + 3 and 5 + 3; the never-committed partition from its earliest offset, 0 + 3.
    assert committed(tenant_settings, group, topic, PARTITIONS) == {0: 10, 1: 8, 2: 3}


def test_reprocess_does_not_copy_a_record_keyed_by_no_or_another_tenant(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    """Dead-lettered the first time (no_key, key_mismatch), never handled: a copy keyed by
    its tenant would be extracted now, out of its place."""
    topic = tenant_topics.topic("episodes.completed")
    good, keyless, other = (
        episode_json(tenant.dataset, tenant.project_id, e).encode() for e in ("e0", "e1", "e2")
    )
    landed = produce(tenant_topics, topic, [
        {"key": tenant.key, "value": good, "partition": 0},
        {"key": None, "value": keyless, "partition": 0},
        {"key": f"{tenant.dataset}:other", "value": other, "partition": 0},
    ])  # fmt: skip
    assert [o for _, o in landed] == [0, 1, 2]
    group = f"test-extract-{uuid.uuid4().hex[:8]}"
    commit(tenant_topics, group, topic, {0: 3})
    result = CliRunner().invoke(
        app,
        ["replay", "extract", "--group", group, "--to-earliest", "--reprocess", "--execute"],
        env=cli_env(tenant_topics),
    )
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert "re-published 1 episodes" in output
    assert "2 records were not valid episodes or not keyed by their tenant" in output
    assert "(first: 0/1: no_key: record has no key;" in output
    copies = consume_all(tenant_topics, topic, 4)[3:]
    assert [(c.key, EpisodeCompleted.model_validate_json(c.value).episode_id) for c in copies] == [
        (tenant.key, "e0")
    ]
