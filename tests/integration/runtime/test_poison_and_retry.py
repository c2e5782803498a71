"""Poison records go to the DLQ with their headers; transient failures are retried."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from streams.ops.dlq import list_dead_letters, redrive
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import DLQ_HEADERS
from streams.runtime.worker import Worker
from streams.settings import Settings
from tests.support.kafka import produce as produce_records
from tests.support.runtime import (
    event,
    produce,
    read_to_end,
    running,
    runtime_settings,
    wait_for_count,
)
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(120)
TENANT = "ds:poison"


def setup(bootstrap: str, topics: Callable[..., str], **cfg: object) -> tuple[Settings, Worker]:
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=2)
    settings = runtime_settings(
        bootstrap, prefix, max_record_bytes=4000, transient_max_attempts=3, transient_min_retry_s=0
    )
    stage = PassthroughStage(settings.topic("runtime.in"), settings.topic("runtime.out"))
    conf = WorkerConfig.from_settings(settings, stage.name, group=f"g-{prefix}", concurrency=4)
    return settings, Worker(stage, conf.with_(retry_base_s=0.02, **cfg))


async def test_poison_records_are_dead_lettered_and_the_partition_keeps_moving(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    settings, worker = setup(kafka_bootstrap, topics)
    key = TENANT.encode()
    bad = {
        "bad_json": b'{"dataset": "ds", "project_id"',
        "not_utf8": b'{"dataset": "\xff\xfe"}',
        "invalid_schema": json.dumps({"dataset": "ds", "project_id": "poison"}).encode(),
        "oversized": event(TENANT, 99, payload="x" * 5000),
        "poison": event(TENANT, 98, fail="poison"),
        "handler_error": event(TENANT, 97, fail="error"),
    }
    items: list[tuple[bytes | None, bytes]] = []
    for i, value in enumerate(bad.values()):  # same key, so same partition as the good ones
        items.append((key, event(TENANT, i)))
        items.append((key, value))
    items.append((key, event(TENANT, len(bad))))
    produce(kafka_bootstrap, settings.topic("runtime.in"), items)
    loop = asyncio.get_running_loop()

    async with running(worker) as w:
        outs = await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.topic("runtime.out"), len(bad) + 1, 60
        )
        dlq = await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.dlq_topic("passthrough"), len(bad), 30
        )
        assert w.health() == (True, "ok")  # still up and polling
        assert w.metrics.value("factstream_records_total", outcome="dead_lettered") == len(bad)

    assert [o.json()["seq"] for o in outs] == list(range(len(bad) + 1))
    inputs = {o.value: o for o in read_to_end(kafka_bootstrap, [settings.topic("runtime.in")])}
    assert len(dlq) == len(bad)
    for dl in dlq:
        h = {k: v.decode() for k, v in dl.headers.items()}
        assert set(DLQ_HEADERS) - {"x-value-truncated", "x-value-part", "x-value-length"} <= set(h)
        reason = h["x-reason"]
        assert dl.value == bad[reason] and dl.key == key  # the original, untouched
        src = inputs[dl.value]
        assert h["x-original-topic"] == settings.topic("runtime.in")
        assert (int(h["x-original-partition"]), int(h["x-original-offset"])) == (
            src.partition,
            src.offset,
        )
        assert h["x-consumer-group"] == f"g-{settings.topic_prefix}"
        assert h["x-stage"] == "passthrough"
        assert h["x-attempt"] == ("1" if reason in ("poison", "handler_error") else "0")
        assert h["x-exception-class"] and h["x-stack-trace"].startswith("Traceback")
        assert int(h["x-original-timestamp"]) > 0


async def test_transient_failures_are_retried_in_place_then_succeed(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    settings, worker = setup(kafka_bootstrap, topics)
    key = TENANT.encode()
    items = [(key, event(TENANT, i, fail_transient=2 if i == 2 else 0)) for i in range(5)]
    items.append((key, event(TENANT, 5, fail_transient=99)))  # never recovers: 3 attempts
    items.append((key, event(TENANT, 6)))
    produce(kafka_bootstrap, settings.topic("runtime.in"), items)
    loop = asyncio.get_running_loop()

    async with running(worker) as w:
        outs = await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.topic("runtime.out"), 6, 60
        )
        dlq = await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.dlq_topic("passthrough"), 1, 30
        )
        assert w.metrics.value("factstream_retries_total") == 2 + 2
        assert w.metrics.value("factstream_records_total", outcome="retried") == 1

    got = [o.json() for o in outs]
    assert [g["seq"] for g in got] == [0, 1, 2, 3, 4, 6]  # order kept across the retries
    assert next(g for g in got if g["seq"] == 2)["attempt"] == 3
    (dl,) = dlq
    assert dl.headers["x-reason"] == b"transient_exhausted" and dl.headers["x-attempt"] == b"3"


async def test_a_dead_letter_of_a_record_with_headers_named_like_ours_can_be_redriven(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    """A producer's own x-value-part / x-value-truncated header made the letter half of a
    split value, or a cut one: listed, and never redriven."""
    settings, worker = setup(kafka_bootstrap, topics)
    key = TENANT.encode()
    spoofed = [("x-value-part", b"1/2"), ("x-value-truncated", b"5"), ("trace", b"t")]
    records: list[dict[str, object]] = [
        {"key": key, "value": b"{broken", "headers": spoofed},
        {"key": key, "value": event(TENANT, 0)},
    ]
    produce_records(settings, settings.topic("runtime.in"), records)
    loop = asyncio.get_running_loop()
    async with running(worker):
        await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.topic("runtime.out"), 1, 60
        )
        await loop.run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.dlq_topic("passthrough"), 1, 30
        )
    (letter,) = list_dead_letters(settings, "passthrough")
    assert letter.reason.startswith("bad_json") and letter.value == b"{broken"
    assert letter.unroutable_reason() is None
    assert letter.original_headers() == [("trace", b"t")]
    result = redrive(settings, "passthrough", dry_run=True)
    assert [d.record.offset for d, _ in result.redriven] == [letter.record.offset]
    assert not result.unroutable
