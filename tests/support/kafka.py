"""Small Kafka helpers for the operator-command tests (publish, lag, replay, dlq)."""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, ConsumerGroupTopicPartitions, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from streams.settings import Settings


def episode_dict(
    dataset: str, project_id: str, episode_id: str, **overrides: Any
) -> dict[str, Any]:
    return {
        "dataset": dataset,
        "project_id": project_id,
        "episode_id": episode_id,
        "session_id": "s-1",
        "window": {"from_seq": 1, "to_seq": 2},
        "messages": [
            {
                "seq": 1,
                "role": "user",
                "content": f"note {episode_id}",
                "created_at": "2026-01-01T10:00:00Z",
            },
            {"seq": 2, "role": "assistant", "content": "ok", "created_at": "2026-01-01T10:00:01Z"},
        ],
        "completed_at": "2026-01-01T10:01:00Z",
        **overrides,
    }


def episode_json(dataset: str, project_id: str, episode_id: str, **overrides: Any) -> str:
    return json.dumps(episode_dict(dataset, project_id, episode_id, **overrides))


@dataclass(frozen=True)
class Consumed:
    partition: int
    offset: int
    key: str | None
    value: bytes
    headers: dict[str, bytes]
    timestamp_ms: int


def consume_all(
    settings: Settings, topic: str, expected: int, timeout_s: float = 20.0
) -> list[Consumed]:
    """Read the topic from the start until ``expected`` records arrived (or time ran out)."""
    consumer = Consumer(
        {
            **settings.kafka_common,
            "group.id": f"test-reader-{uuid.uuid4().hex[:8]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    found: list[Consumed] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(found) < expected and time.monotonic() < deadline:
            _take(consumer.poll(0.5), found)
        # A little longer: anything beyond `expected` is a duplicate the test must see.
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            _take(consumer.poll(0.2), found)
    finally:
        consumer.close()
    return sorted(found, key=lambda c: (c.partition, c.offset))


def _take(msg: Any, found: list[Consumed]) -> None:
    if msg is None or msg.error() is not None:
        return
    key = msg.key()
    headers = {k: (v or b"") for k, v in (msg.headers() or [])}
    found.append(
        Consumed(
            msg.partition(),
            msg.offset(),
            None if key is None else key.decode(),
            msg.value() or b"",
            headers,
            msg.timestamp()[1],
        )
    )


def produce(settings: Settings, topic: str, records: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Produce dicts of Producer.produce kwargs; return (partition, offset) of each."""
    producer = Producer({**settings.kafka_common, "partitioner": "murmur2_random"})
    landed: dict[int, tuple[int, int]] = {}

    def report(i: int) -> Any:
        def cb(err: Any, msg: Any) -> None:
            assert err is None, err
            landed[i] = (msg.partition(), msg.offset())

        return cb

    for i, record in enumerate(records):
        producer.produce(topic, on_delivery=report(i), **record)
    assert producer.flush(20) == 0
    return [landed[i] for i in range(len(records))]


def commit(settings: Settings, group: str, topic: str, offsets: dict[int, int]) -> None:
    """Commit offsets for a group the way a worker would (a consumer commit, not admin)."""
    consumer = Consumer({**settings.kafka_common, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(
            offsets=[TopicPartition(topic, p, o) for p, o in offsets.items()], asynchronous=False
        )
    finally:
        consumer.close()


def committed(settings: Settings, group: str, topic: str, partitions: int) -> dict[int, int]:
    """The group's committed offsets as the broker reports them (-1001: none)."""
    admin = AdminClient(dict(settings.kafka_common))
    request = [
        ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(partitions)])
    ]
    result = admin.list_consumer_group_offsets(request)[group].result()
    return {tp.partition: tp.offset for tp in result.topic_partitions}


def cli_env(settings: Settings) -> dict[str, str]:
    """The environment a `factstream` command needs to find these settings' broker and topics."""
    return {
        "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": settings.kafka_bootstrap_servers,
        "FACTSTREAM_TOPIC_PREFIX": settings.topic_prefix,
    }


def fill_partitions(
    settings: Settings, key: bytes | str, topic: str, counts: dict[int, int]
) -> list[tuple[int, int]]:
    """``counts[p]`` empty-JSON records to each partition p, in partition order."""
    records = [{"key": key, "value": b"{}", "partition": p}
               for p, n in sorted(counts.items()) for _ in range(n)]  # fmt: skip
    return produce(settings, topic, records)


def committed_reader(bootstrap: str, group: str, topic: str) -> Consumer:
    """A consumer of ``topic`` from the start that sees committed records only, as the
    next stage does."""
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": group, "isolation.level": "read_committed",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
    })  # fmt: skip
    consumer.subscribe([topic])
    return consumer
