"""The session broker works as the pipeline needs: round trips, key placement, transactions."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import confluent_kafka
import pytest
from confluent_kafka import Consumer, KafkaError, Message, Producer, TopicPartition
from typer.testing import CliRunner

from streams.cli.main import app
from streams.kafka.partitioning import murmur2, partition_for
from streams.kafka.topics import TopicSpec
from streams.settings import Settings
from tests.support.fixtures import Tenant

# Computed with Kafka's own org.apache.kafka.common.utils.Utils (kafka-clients 4.1.1):
# key -> (Utils.murmur2(utf8(key)), toPositive(h) % 12, toPositive(h) % 7)
JAVA_MURMUR2 = {
    "": (275646681, 9, 2),
    "a": (-1563381124, 4, 5),
    "kafka": (-798503068, 4, 3),
    "acme:p1": (-88279214, 6, 0),
    "demo:alice": (918223553, 5, 2),
    "dataset-7:project-42": (537679780, 4, 1),
    "ünïcödé:ключ": (294860885, 5, 4),
    "tenant:0123456789abcdef": (-1999839489, 11, 5),
}


@pytest.mark.parametrize("key", sorted(JAVA_MURMUR2))
def test_murmur2_matches_java(key: str) -> None:
    h, p12, p7 = JAVA_MURMUR2[key]
    assert murmur2(key.encode()) == h
    assert partition_for(key, 12) == p12
    assert partition_for(key, 7) == p7
    assert confluent_kafka.murmur2(key.encode(), 12) == p12  # librdkafka agrees


def _producer(settings: Settings, **extra: object) -> Producer:
    conf = {**settings.kafka_common, "partitioner": "murmur2_random", "linger.ms": 5, **extra}
    return Producer(conf)


def _consume(
    settings: Settings, topic: str, count: int, timeout_s: float = 30.0, **extra: object
) -> list[Message]:
    conf = {
        **settings.kafka_common,
        "group.id": f"test-{uuid.uuid4().hex[:8]}",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        **extra,
    }
    consumer = Consumer(conf)
    consumer.subscribe([topic])
    got: list[Message] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    continue
                raise AssertionError(f"consumer error: {err}")
            got.append(msg)
    finally:
        consumer.close()
    return got


@pytest.fixture
def input_topic(
    tenant_settings: Settings, create_topics: Callable[..., list[TopicSpec]]
) -> Iterator[str]:
    specs = create_topics(tenant_settings, partitions=12)
    yield specs[0].name  # the episodes.completed topic


def test_produce_consume_round_trip(
    tenant_settings: Settings, tenant: Tenant, input_topic: str
) -> None:
    producer = _producer(tenant_settings, **{"enable.idempotence": True})
    values = [f'{{"n": {i}}}'.encode() for i in range(5)]
    for value in values:
        producer.produce(input_topic, key=tenant.key, value=value, headers={"h": b"x"})
    assert producer.flush(15) == 0

    got = _consume(tenant_settings, input_topic, len(values))
    assert [m.value() for m in got] == values  # one key, one partition, in order
    assert {m.key() for m in got} == {tenant.key.encode()}
    assert {m.partition() for m in got} == {partition_for(tenant.key, 12)}
    assert got[0].headers() == [("h", b"x")]


def test_keys_land_where_java_puts_them(
    tenant_settings: Settings, tenant: Tenant, input_topic: str
) -> None:
    keys = [tenant.key, *JAVA_MURMUR2, *(f"{tenant.dataset}:{i}" for i in range(20))]
    keys = [k for k in keys if k]  # an empty key is treated like no key by librdkafka
    placed: dict[str, set[int]] = {k: set() for k in keys}

    def delivered(err: KafkaError | None, msg: Message) -> None:
        assert err is None, err
        placed[msg.key().decode()].add(msg.partition())

    producer = _producer(tenant_settings)
    for _ in range(3):
        for key in keys:
            producer.produce(input_topic, key=key.encode(), value=b"v", on_delivery=delivered)
    assert producer.flush(15) == 0

    for key, partitions in placed.items():
        assert partitions == {partition_for(key, 12)}, key
    assert len({p for ps in placed.values() for p in ps}) > 3  # keys really spread

    got = _consume(tenant_settings, input_topic, 3 * len(keys))
    assert len(got) == 3 * len(keys)
    for msg in got:
        assert msg.partition() == partition_for(msg.key().decode(), 12)


def test_transactions_commit_and_abort(
    tenant_settings: Settings, tenant: Tenant, input_topic: str
) -> None:
    """The single-node broker runs the transaction coordinator the stages depend on."""
    producer = _producer(tenant_settings, **{"transactional.id": f"tx-{tenant.dataset}"})
    producer.init_transactions(30)
    producer.begin_transaction()
    producer.produce(input_topic, key=tenant.key, value=b"aborted")
    assert producer.flush(15) == 0  # in the log, so the abort marker has something to hide
    producer.abort_transaction(30)
    producer.begin_transaction()
    producer.produce(input_topic, key=tenant.key, value=b"committed")
    producer.commit_transaction(30)

    got = _consume(tenant_settings, input_topic, 1, **{"isolation.level": "read_committed"})
    assert [m.value() for m in got] == [b"committed"]

    # The aborted record is in the log: read_uncommitted sees both.
    raw = _consume(tenant_settings, input_topic, 2, **{"isolation.level": "read_uncommitted"})
    assert sorted(m.value() for m in raw) == [b"aborted", b"committed"]


def test_committed_offsets_survive_a_new_consumer(
    tenant_settings: Settings, tenant: Tenant, input_topic: str
) -> None:
    producer = _producer(tenant_settings)
    for i in range(4):
        producer.produce(input_topic, key=tenant.key, value=str(i).encode())
    assert producer.flush(15) == 0
    group = f"g-{uuid.uuid4().hex[:8]}"
    conf = {
        **tenant_settings.kafka_common,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }
    first = Consumer(conf)
    first.subscribe([input_topic])
    seen = _poll(first, 2)
    last = seen[1]
    first.commit(
        offsets=[TopicPartition(input_topic, last.partition(), last.offset() + 1)],
        asynchronous=False,
    )
    first.close()

    second = Consumer(conf)
    second.subscribe([input_topic])
    rest = [m.value() for m in _poll(second, 2)]
    second.close()
    assert [m.value() for m in seen] == [b"0", b"1"]
    assert rest == [b"2", b"3"]


def test_dev_up_with_configured_addresses_starts_nothing(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    env = {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        "FACTSTREAM_DATABASE_URL": "postgresql://u:p w@db.example/x",
        "FACTSTREAM_DEV_DIR": str(tmp_path / "dev"),
    }
    runner = CliRunner()
    up = runner.invoke(app, ["dev", "up", "--quiet"], env=env)
    assert up.exit_code == 0, up.output
    assert up.stdout.splitlines() == [
        f"export FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS={kafka_bootstrap}",
        "export FACTSTREAM_DATABASE_URL='postgresql://u:p w@db.example/x'",
        "# started: ",
    ]
    status = runner.invoke(app, ["dev", "status"], env=env)
    assert status.exit_code == 0, status.output
    assert "external" in status.stdout and "p w" not in status.stdout  # password hidden
    down = runner.invoke(app, ["dev", "down"], env=env)
    assert down.exit_code == 0, down.output
    assert "nothing recorded" in down.output


def _poll(consumer: Consumer, count: int, timeout_s: float = 30.0) -> list[Message]:
    """Up to ``count`` records (fewer when ``timeout_s`` passes first)."""
    seen: list[Message] = []
    deadline = time.monotonic() + timeout_s
    while len(seen) < count and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and msg.error() is None:
            seen.append(msg)
    return seen
