"""A drained group has committed the consumer's position: lag 0 on every partition.

Kafka-to-Kafka stages write their outputs in transactions, so every partition of a stage
topic ends with a commit marker after its last record. A downstream group that committed
last record + 1 would show lag 1 there forever; committing the position steps over it.
Both commit paths are checked on a transactional topic: a Kafka-to-Kafka worker and a
sink (plain offset commits), records finishing out of order under concurrency.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Callable, Sequence

import pytest
from confluent_kafka import Consumer, TopicPartition
from pydantic import BaseModel

from streams.runtime.config import WorkerConfig
from streams.runtime.stage import RecordContext
from streams.runtime.worker import Worker
from streams.settings import Settings
from tests.support.runtime import event, eventually, produce, running, wait_for_count
from tests.support.stages import PassIn, PassthroughStage

pytestmark = pytest.mark.timeout(150)
PARTITIONS = 3


class CountingSink:
    """A sink with no effects: it only counts what it handled."""

    name = "counting-sink"
    input_model = PassIn
    output_topic: str | None = None
    lane_by = "key"

    def __init__(self, input_topic: str) -> None:
        self.input_topic = input_topic
        self.seen: set[tuple[str, int]] = set()

    async def handle(self, ev: PassIn, ctx: RecordContext) -> Sequence[BaseModel]:
        await asyncio.sleep(ev.delay_ms / 1000)
        self.seen.add((ev.dataset, ev.seq))
        return []


def lag_by_partition(bootstrap: str, group: str, topic: str) -> dict[int, tuple[int, int]]:
    """{partition: (committed, high watermark)} as any lag tool computes it."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        tps = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
        return {tp.partition: (tp.offset, c.get_watermark_offsets(tp, timeout=10)[1]) for tp in tps}
    finally:
        c.close()


def drained(bootstrap: str, group: str, topic: str) -> bool:
    return all(
        high == 0 or committed == high
        for committed, high in lag_by_partition(bootstrap, group, topic).values()
    )


async def test_drained_groups_show_lag_zero_on_a_transactional_topic(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics(
        "runtime.in", "runtime.out", "runtime.end", "dlq.passthrough", "dlq.counting-sink",
        partitions=PARTITIONS,
    )  # fmt: skip
    settings = Settings(
        kafka_bootstrap_servers=kafka_bootstrap, topic_prefix=prefix, commit_interval_ms=50
    )
    rng = random.Random(7)
    tenants = [f"ds{i}:lag" for i in range(9)]
    items = [
        (t.encode(), event(t, seq, delay_ms=rng.uniform(0, 20)))
        for seq in range(12)
        for t in tenants
    ]
    produce(kafka_bootstrap, settings.topic("runtime.in"), items)
    mid, end = settings.topic("runtime.out"), settings.topic("runtime.end")
    run = uuid.uuid4().hex[:8]
    groups = {"first": f"g1-{run}", "second": f"g2-{run}", "sink": f"g3-{run}"}

    def cfg(stage_name: str, group: str) -> WorkerConfig:
        return WorkerConfig.from_settings(settings, stage_name, group=group, concurrency=8)

    first = Worker(
        PassthroughStage(settings.topic("runtime.in"), mid), cfg("passthrough", groups["first"])
    )
    second = Worker(PassthroughStage(mid, end), cfg("passthrough", groups["second"]))
    sink_stage = CountingSink(mid)
    sink = Worker(sink_stage, cfg(sink_stage.name, groups["sink"]))
    loop = asyncio.get_running_loop()
    async with running(first), running(second), running(sink):
        await loop.run_in_executor(None, wait_for_count, kafka_bootstrap, end, len(items), 90)
        await eventually(lambda: len(sink_stage.seen) == len(items), 60, "the sink to finish")
        for group, topic in (
            (groups["first"], settings.topic("runtime.in")),
            (groups["second"], mid),
            (groups["sink"], mid),
        ):
            await eventually(
                lambda g=group, t=topic: drained(kafka_bootstrap, g, t), 30, f"{group} at lag 0"
            )

    # The transactional topic really has markers: its end lies past its records.
    mid_marks = lag_by_partition(kafka_bootstrap, groups["second"], mid)
    assert sum(high for _, high in mid_marks.values()) > len(items)
    for group, topic in ((groups["second"], mid), (groups["sink"], mid)):
        for partition, (committed, high) in lag_by_partition(kafka_bootstrap, group, topic).items():
            assert committed == high, f"{group} {topic}[{partition}]: {committed} of {high}"
