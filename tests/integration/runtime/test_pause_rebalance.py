"""A partition paused for backpressure, taken away by a rebalance and handed back, is read.

librdkafka keeps a partition's pause flag across a rebalance and re-assignment, while
KafkaIO forgets its partitions on revoke/lost. The chaos drill caught the combination: a
summarize worker paused at startup (a backlog), lost its partitions (max.poll.interval),
got them back still paused in librdkafka, and never read another record, while
reporting healthy.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence

import pytest
from confluent_kafka import Consumer

from streams.runtime.config import WorkerConfig
from streams.runtime.kafka_io import KafkaIO
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP, PartitionPlan
from tests.support.runtime import produce

pytestmark = pytest.mark.timeout(120)


class Hooks:
    def __init__(self) -> None:
        self.revoked_tps: list[TP] = []

    def assigned(self, parts: Sequence[tuple[TP, int]]) -> None:
        pass

    def revoked(self, tps: Sequence[TP]) -> Sequence[PartitionPlan]:
        self.revoked_tps.extend(tps)
        return []

    def lost(self, tps: Sequence[TP]) -> None:
        pass


def poll_until(
    io: KafkaIO,
    pause: bool,
    done: Callable[[], bool],
    what: str,
    got: list[tuple[int, int]] | None = None,
    timeout: float = 45.0,
) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out: {what}"
        for rec in io.poll(pause, 100, 0.1):
            if got is not None:
                got.append((rec.partition, rec.offset))


def test_a_paused_partition_handed_back_by_a_rebalance_is_read_again(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("in", partitions=2)
    topic = f"{prefix}in"
    group = f"g-{uuid.uuid4().hex[:8]}"
    cfg = WorkerConfig(
        stage="t", group=group, dlq_topic=f"{prefix}dlq",
        kafka={"bootstrap.servers": kafka_bootstrap}, session_timeout_ms=6000,
        max_poll_interval_ms=10000, statistics_interval_ms=0,
    )  # fmt: skip
    hooks = Hooks()
    io = KafkaIO(cfg, transactional=False, hooks=hooks, metrics=WorkerMetrics("t"))
    other: Consumer | None = None
    try:
        io.start([topic])
        # Backpressure from the start: both partitions assigned and paused, nothing read.
        poll_until(io, True, lambda: len(io.consumer.assignment()) == 2, "first assignment")
        io.poll(True, 100, 0.1)  # pauses what was just assigned
        produce(kafka_bootstrap, topic,
                [(f"k{i}".encode(), b"{}") for i in range(40)])  # fmt: skip
        # A second member takes one partition away from the paused one, then leaves.
        other = Consumer({
            "bootstrap.servers": kafka_bootstrap, "group.id": group,
            "partition.assignment.strategy": "cooperative-sticky",
            "session.timeout.ms": 6000, "enable.auto.commit": False,
            "auto.offset.reset": "latest",
        })  # fmt: skip
        other.subscribe([topic])
        deadline = time.monotonic() + 45
        while not hooks.revoked_tps:
            assert time.monotonic() < deadline, "no revocation"
            other.poll(0.1)
            io.poll(True, 100, 0.1)
        other.close()
        other = None
        poll_until(io, True, lambda: len(io.consumer.assignment()) == 2, "partition back")
        # Backpressure over: every record of both partitions must now be read.
        got: list[tuple[int, int]] = []
        poll_until(io, False, lambda: len(set(got)) >= 40, "all 40 records", got)
        assert {p for p, _ in got} == {0, 1}
    finally:
        if other is not None:
            other.close()
        io.close()
