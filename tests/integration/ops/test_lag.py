"""`factstream lag`: lag = log-end - committed per partition, checked against a hand count."""

from __future__ import annotations

import json
import uuid
from collections import Counter

from typer.testing import CliRunner

from streams.cli.main import app
from streams.kafka.admin import admin_client
from streams.ops.lag import collect_lag
from streams.pipeline import STAGES
from streams.settings import Settings
from tests.support.fixtures import Tenant
from tests.support.kafka import cli_env, commit, fill_partitions, produce

PARTITIONS = 3


def test_lag_is_log_end_minus_committed(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    topic = tenant_topics.topic("facts.extracted")  # what the resolve stage reads
    # 7 records to partition 0, 4 to 1, 2 to 2, placed explicitly.
    landed = fill_partitions(tenant_topics, tenant.key, topic, {0: 7, 1: 4, 2: 2})
    log_end = Counter(p for p, _ in landed)
    assert log_end == {0: 7, 1: 4, 2: 2}
    group = f"test-resolve-{uuid.uuid4().hex[:8]}"
    commit(tenant_topics, group, topic, {0: 5, 1: 4})  # partition 2: never committed

    (stage,) = collect_lag(
        tenant_topics, admin_client(tenant_topics), ["resolve"], group_of=lambda s: group
    )

    by_hand = {0: 7 - 5, 1: 4 - 4, 2: 2 - 0}  # no commit: counted from the earliest offset
    assert {p.partition: p.lag for p in stage.partitions} == by_hand
    assert {p.partition: p.committed for p in stage.partitions} == {0: 5, 1: 4, 2: None}
    assert {p.partition: p.log_end for p in stage.partitions} == {0: 7, 1: 4, 2: 2}
    assert stage.lag == 4
    assert (stage.group, stage.topic) == (group, topic)


def test_lag_cli_json_and_table(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    topic = tenant_topics.topic("episodes.completed")
    produce(tenant_topics, topic, [{"key": tenant.key, "value": b"{}"} for _ in range(3)])
    env = cli_env(tenant_topics)
    runner = CliRunner()

    result = runner.invoke(app, ["lag", "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    lags = {s["stage"]: s["lag"] for s in report["stages"]}
    # summarize and extract both read the input topic; no worker committed on this prefix.
    assert lags == {"summarize": 3, "extract": 3, "resolve": 0, "dedup": 0, "judge": 0, "write": 0}
    assert report["total_lag"] == 6
    extract = next(s for s in report["stages"] if s["stage"] == "extract")
    assert extract["group"] == "factstream-extract" and extract["topic"] == topic
    assert sum(p["log_end"] for p in extract["partitions"]) == 3

    table = runner.invoke(app, ["lag", "--stage", "extract"], env=env)
    assert table.exit_code == 0, table.output
    assert "factstream-extract" in table.output and "summarize" not in table.output


def test_lag_group_reads_that_groups_committed_offsets(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    topic = tenant_topics.topic("facts.deduped")  # what the judge stage reads
    fill_partitions(tenant_topics, tenant.key, topic, {0: 6, 1: 3})
    group = f"ops-{uuid.uuid4().hex[:8]}-judge"  # a worker run with --group
    commit(tenant_topics, group, topic, {0: 4, 1: 3})
    runner = CliRunner()

    result = runner.invoke(
        app, ["lag", "--stage", "judge", "--group", group, "--json"], env=cli_env(tenant_topics)
    )

    assert result.exit_code == 0, result.output
    (judge,) = json.loads(result.stdout)["stages"]
    assert (judge["stage"], judge["group"], judge["topic"]) == ("judge", group, topic)
    assert {p["partition"]: p["committed"] for p in judge["partitions"]} == {0: 4, 1: 3, 2: None}
    assert judge["lag"] == (6 - 4) + (3 - 3)
    # Without --group the default group is read: it never committed on this topic.
    default = runner.invoke(app, ["lag", "--stage", "judge", "--json"], env=cli_env(tenant_topics))
    (judge,) = json.loads(default.stdout)["stages"]
    assert judge["group"] == "factstream-judge" and judge["lag"] == 9

    table = runner.invoke(
        app, ["lag", "--stage", "judge", "--group", group], env=cli_env(tenant_topics)
    )
    assert table.exit_code == 0, table.output
    assert group in table.output and "factstream-judge" not in table.output


def test_lag_group_prefix_reads_prefix_plus_stage_for_every_stage(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    inputs = tenant_topics.topic("episodes.completed")
    judged = tenant_topics.topic("facts.judged")
    fill_partitions(tenant_topics, tenant.key, inputs, {0: 5})
    fill_partitions(tenant_topics, tenant.key, judged, {1: 2})
    prefix = tenant_topics.topic_prefix  # the bench names its groups <topic_prefix><stage>
    commit(tenant_topics, f"{prefix}extract", inputs, {0: 5})
    commit(tenant_topics, f"{prefix}summarize", inputs, {0: 1})
    commit(tenant_topics, f"{prefix}write", judged, {1: 2})

    result = CliRunner().invoke(
        app, ["lag", "--group-prefix", prefix, "--json"], env=cli_env(tenant_topics)
    )

    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {s["stage"]: s["group"] for s in report["stages"]} == {s: f"{prefix}{s}" for s in STAGES}
    assert {s["stage"]: s["lag"] for s in report["stages"]} == {
        "summarize": 4,
        "extract": 0,
        "resolve": 0,
        "dedup": 0,
        "judge": 0,
        "write": 0,
    }
    write = next(s for s in report["stages"] if s["stage"] == "write")
    assert write["partitions"][1]["committed"] == 2


def test_lag_unknown_group_is_not_an_error_and_names_the_group(
    tenant_topics: Settings,
    tenant: Tenant,
) -> None:
    fill_partitions(tenant_topics, tenant.key, tenant_topics.topic("facts.resolved"), {2: 3})
    group = f"ops-{uuid.uuid4().hex[:8]}-typo"  # no offsets, no members

    result = CliRunner().invoke(
        app, ["lag", "--stage", "dedup", "--group", group], env=cli_env(tenant_topics)
    )

    assert result.exit_code == 0, result.output
    row = next(
        line
        for line in result.output.splitlines()
        if f"│ {group} " in line and "│         2 │" in line
    )
    assert [cell.strip() for cell in row.split("│")[4:8]] == ["2", "-", "3", "3"]
    assert "group never committed here" in result.output


def test_lag_group_needs_exactly_one_stage(tenant_settings: Settings) -> None:
    env = cli_env(tenant_settings)
    runner = CliRunner()

    for stages in ([], ["extract", "write"]):
        args = [arg for s in stages for arg in ("--stage", s)]
        result = runner.invoke(app, ["lag", "--group", "my-extractors", *args], env=env)
        assert result.exit_code != 0, result.output
        assert "--group my-extractors needs exactly one --stage" in result.output

    both = runner.invoke(
        app, ["lag", "--stage", "extract", "--group", "g", "--group-prefix", "p."], env=env
    )
    assert both.exit_code != 0
    assert "--group or --group-prefix, not both" in both.output
