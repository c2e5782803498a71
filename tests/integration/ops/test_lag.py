"""`factstream lag`: lag = log-end - committed per partition, checked against a hand count."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from collections.abc import Callable

from typer.testing import CliRunner

from streams.cli import app
from streams.ops.kafka_admin import admin_client
from streams.ops.lag import collect_lag
from streams.settings import Settings
from tests.conftest import Tenant
from tests.integration.ops.kafka_helpers import commit, produce

PARTITIONS = 3


def test_lag_is_log_end_minus_committed(
    tenant_settings: Settings, tenant: Tenant, create_topics: Callable[..., object],
) -> None:
    create_topics(tenant_settings, partitions=PARTITIONS)
    topic = tenant_settings.topic("facts.extracted")  # what the resolve stage reads
    # 7 records to partition 0, 4 to 1, 2 to 2, placed explicitly.
    landed = produce(tenant_settings, topic, [
        {"key": tenant.key, "value": b"{}", "partition": p} for p in [0] * 7 + [1] * 4 + [2] * 2
    ])
    log_end = Counter(p for p, _ in landed)
    assert log_end == {0: 7, 1: 4, 2: 2}
    group = f"test-resolve-{uuid.uuid4().hex[:8]}"
    commit(tenant_settings, group, topic, {0: 5, 1: 4})  # partition 2: never committed

    (stage,) = collect_lag(
        tenant_settings, admin_client(tenant_settings), ["resolve"], group_of=lambda s: group
    )

    by_hand = {0: 7 - 5, 1: 4 - 4, 2: 2 - 0}  # no commit: counted from the earliest offset
    assert {p.partition: p.lag for p in stage.partitions} == by_hand
    assert {p.partition: p.committed for p in stage.partitions} == {0: 5, 1: 4, 2: None}
    assert {p.partition: p.log_end for p in stage.partitions} == {0: 7, 1: 4, 2: 2}
    assert stage.lag == 4
    assert (stage.group, stage.topic) == (group, topic)


def test_lag_cli_json_and_table(
    tenant_settings: Settings, tenant: Tenant, create_topics: Callable[..., object],
) -> None:
    create_topics(tenant_settings, partitions=PARTITIONS)
    topic = tenant_settings.topic("episodes.completed")
    produce(tenant_settings, topic, [{"key": tenant.key, "value": b"{}"} for _ in range(3)])
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": tenant_settings.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": tenant_settings.topic_prefix,
    }
    runner = CliRunner()

    result = runner.invoke(app, ["lag", "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    lags = {s["stage"]: s["lag"] for s in report["stages"]}
    # summarize and extract both read the input topic; no worker committed on this prefix.
    assert lags == {"summarize": 3, "extract": 3, "resolve": 0, "dedup": 0, "judge": 0,
                    "write": 0}
    assert report["total_lag"] == 6
    extract = next(s for s in report["stages"] if s["stage"] == "extract")
    assert extract["group"] == "factstream-extract" and extract["topic"] == topic
    assert sum(p["log_end"] for p in extract["partitions"]) == 3

    table = runner.invoke(app, ["lag", "--stage", "extract"], env=env)
    assert table.exit_code == 0, table.output
    assert "factstream-extract" in table.output and "summarize" not in table.output
