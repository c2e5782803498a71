"""A Postgres-sink stage (``output_topic`` None) may return ``Routed`` events: the runtime
produces them after the handler returned (after the stage's own database commit) and
commits the consumed offsets only once they are delivered."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from pydantic import BaseModel

from streams.runtime.config import WorkerConfig
from streams.runtime.stage import RecordContext, Routed
from streams.runtime.worker import Worker
from tests.support.runtime import (
    event,
    produce,
    read_to_end,
    running,
    runtime_settings,
    wait_for_count,
)
from tests.support.stages import PassIn

pytestmark = pytest.mark.timeout(120)
TENANTS = [f"ds{i}:sink" for i in range(4)]
TOTAL = 20


class Echo(BaseModel):
    dataset: str
    project_id: str
    seq: int
    src_partition: int
    src_offset: int
    payload: str = ""


class RoutingSink:
    """A sink whose handler returns one Routed event per record, noting when it returned."""

    name = "routing-sink"
    input_model = PassIn
    output_topic: str | None = None
    lane_by = "key"

    def __init__(self, input_topic: str, routed_topic: str) -> None:
        self.input_topic, self.routed_topic = input_topic, routed_topic
        self.returned: dict[int, float] = {}

    async def handle(self, ev: PassIn, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        await asyncio.sleep(0.01)
        out = Echo(
            dataset=ev.dataset, project_id=ev.project_id, seq=ev.seq, src_partition=ctx.partition,
            src_offset=ctx.offset, payload=ev.payload,
        )  # fmt: skip
        self.returned[ev.seq] = time.time()
        return [Routed(self.routed_topic, out, f"{ev.dataset}:{ev.project_id}")]


def committed(bootstrap: str, group: str, topic: str, partitions: int) -> dict[int, int]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    try:
        tps = c.committed([TopicPartition(topic, p) for p in range(partitions)], timeout=10)
        return {tp.partition: tp.offset for tp in tps}
    finally:
        c.close()


async def test_a_sinks_routed_outputs_are_produced_after_the_handler(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("runtime.in", "runtime.out", "dlq.routing-sink", partitions=2)
    settings = runtime_settings(kafka_bootstrap, prefix)
    stage = RoutingSink(settings.topic("runtime.in"), settings.topic("runtime.out"))
    group = f"g-{uuid.uuid4().hex[:8]}"
    cfg = WorkerConfig.from_settings(settings, stage.name, group=group, concurrency=4)
    items = [(TENANTS[i % 4].encode(), event(TENANTS[i % 4], i)) for i in range(TOTAL)]
    produce(kafka_bootstrap, settings.topic("runtime.in"), items)
    loop = asyncio.get_running_loop()

    async with running(Worker(stage, cfg)):
        outs = await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.topic("runtime.out"), TOTAL, 60
        )
        ins = await loop.run_in_executor(
            None, read_to_end, kafka_bootstrap, [settings.topic("runtime.in")]
        )
        ends = {p: 1 + max(o.offset for o in ins if o.partition == p) for p in (0, 1)}
        deadline = time.monotonic() + 30
        while committed(kafka_bootstrap, group, settings.topic("runtime.in"), 2) != ends:
            assert time.monotonic() < deadline, "the consumed offsets were not committed"
            await asyncio.sleep(0.2)

    assert sorted(o.json()["seq"] for o in outs) == list(range(TOTAL))
    for o in outs:
        body = o.json()
        assert o.key == f"{body['dataset']}:{body['project_id']}".encode()
        assert body["src_offset"] in [i.offset for i in ins if i.partition == body["src_partition"]]
    # Each output was produced only after its handler had returned (CreateTime is set
    # when the producer is handed the record).
    produced_ms = await loop.run_in_executor(None, create_times, kafka_bootstrap, prefix)
    for seq, at in produced_ms.items():
        assert at >= int(stage.returned[seq] * 1000), f"seq {seq} produced before its handler"
    # Nothing was dead-lettered.
    dlq = await loop.run_in_executor(
        None, read_to_end, kafka_bootstrap, [settings.topic("dlq.routing-sink")]
    )
    assert dlq == []


def create_times(bootstrap: str, prefix: str) -> dict[int, int]:
    """seq -> the broker record's CreateTime (ms) on runtime.out."""
    c = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"ts-{uuid.uuid4().hex[:8]}",
        "auto.offset.reset": "earliest", "enable.auto.commit": False,
    })  # fmt: skip
    try:
        c.subscribe([f"{prefix}runtime.out"])
        found: dict[int, int] = {}
        deadline = time.time() + 30
        while len(found) < TOTAL and time.time() < deadline:
            for m in c.consume(100, 0.5):
                if m.error() is None:
                    found[Echo.model_validate_json(m.value()).seq] = m.timestamp()[1]
        return found
    finally:
        c.close()


async def test_an_undelivered_output_keeps_its_offset_uncommitted(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    """At least once: the routed topic refuses one record (too large), so the produce
    fails and that record's offset is never committed; the worker gives up (exit 1)."""
    prefix = topics("runtime.in", "dlq.routing-sink", partitions=1)
    tiny = f"{prefix}runtime.tiny"
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    admin.create_topics([NewTopic(tiny, 1, 1, config={"max.message.bytes": "2000"})])[tiny].result(
        30
    )
    try:
        settings = runtime_settings(kafka_bootstrap, prefix)
        stage = RoutingSink(settings.topic("runtime.in"), tiny)
        group = f"g-{uuid.uuid4().hex[:8]}"
        cfg = WorkerConfig.from_settings(settings, stage.name, group=group, concurrency=1)
        tenant = TENANTS[0]
        items = [(tenant.encode(), event(tenant, i)) for i in range(3)]
        items.append((tenant.encode(), event(tenant, 3, payload="x" * 5000)))
        produce(kafka_bootstrap, settings.topic("runtime.in"), items)
        worker = Worker(stage, cfg.with_(max_commit_failures=3))
        assert await asyncio.wait_for(worker.run(), 60) == 1
        assert 3 in stage.returned  # the handler ran and returned the oversized output
        done = committed(kafka_bootstrap, group, settings.topic("runtime.in"), 1)[0]
        assert done <= 3, f"offset {done} committed past the undelivered output"
    finally:
        admin.delete_topics([tiny])
