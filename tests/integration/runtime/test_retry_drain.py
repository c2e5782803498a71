"""A worker stopping while a record sleeps through an outage does not wait it out.

With the transient retry time budget (transient_min_retry_s) a record can retry for a
minute; a drain (SIGTERM) must cancel it at once, leave it uncommitted (redelivered to the
next owner) and never dead-letter it, while a record still doing real work is waited for.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from streams.runtime.config import WorkerConfig
from streams.runtime.worker import Worker
from tests.support.runtime import (
    event,
    eventually,
    read_to_end,
    runtime_settings,
    stopped_within,
)
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(120)
TENANT = "ds:drain"


async def test_a_drain_cancels_records_sleeping_between_retries(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=2)
    settings = runtime_settings(kafka_bootstrap, prefix, shutdown_deadline_s=30)
    stage = PassthroughStage(settings.topic("runtime.in"), settings.topic("runtime.out"))
    conf = WorkerConfig.from_settings(settings, stage.name, group=f"g-{prefix}", concurrency=4)
    worker = Worker(stage, conf.with_(retry_base_s=0.2, retry_max_s=1.0))
    # Partition 0: a record meeting an outage. Partition 1: a good one, then a slow one.
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for partition, key, value in [
        (0, b"ds:other", event("ds:other", 1, fail_transient=10_000)),
        (1, TENANT.encode(), event(TENANT, 0)),
        (1, b"ds:slow", event("ds:slow", 2, delay_ms=1500)),
    ]:
        p.produce(settings.topic("runtime.in"), value=value, key=key, partition=partition)
    assert p.flush(30) == 0
    task = asyncio.create_task(worker.run())
    await eventually(
        lambda: worker.metrics.value("factstream_retries_total") >= 2,
        30,
        "the failing record to be retrying",
    )
    stopped = time.monotonic()
    worker.stop()
    assert await stopped_within(task, 40) == 0
    took = time.monotonic() - stopped

    assert took < 10, f"the drain waited {took:.1f}s for a record asleep in a backoff"
    out = read_to_end(
        kafka_bootstrap, [settings.topic("runtime.out"), settings.topic("dlq.passthrough")]
    )
    # The slow record was waited for; the retrying one was neither output nor dead-lettered.
    assert sorted(o.json()["seq"] for o in out) == [0, 2]
    assert all(o.topic == settings.topic("runtime.out") for o in out)
