"""Cooperative rebalances between two in-process workers keep output exactly-once."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable

import pytest

from streams.runtime.config import WorkerConfig
from streams.runtime.worker import Worker
from tests.support.runtime import (
    Feeder,
    eventually,
    read_to_end,
    running,
    runtime_settings,
    wait_for_count,
)
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(150)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_member_joining_and_leaving_mid_stream(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=6)
    settings = runtime_settings(
        kafka_bootstrap, prefix, commit_interval_ms=100, session_timeout_ms=6000,
        max_poll_interval_ms=10000,
    )  # fmt: skip
    total = 900  # fed at 100/s while members join and leave
    feeder = Feeder(
        kafka_bootstrap, settings.topic("runtime.in"), total, rate=100, keys=40, delay_ms=15
    )
    out_topic = settings.topic("runtime.out")

    def make() -> Worker:
        stage = PassthroughStage(settings.topic("runtime.in"), out_topic)
        cfg = WorkerConfig.from_settings(
            settings, stage.name, group=f"g-{prefix}", concurrency=8, metrics_port=free_port()
        )
        return Worker(stage, cfg.with_(statistics_interval_ms=500))

    first, second = make(), make()

    def done(w: Worker) -> float:
        return w.metrics.value("factstream_records_total", outcome="ok")

    feeder.start()
    async with running(first):
        await eventually(lambda: done(first) > 50, 30, "first worker to make progress")
        async with running(second):  # joins: cooperative revoke of some of first's partitions
            await eventually(lambda: done(second) > 20, 40, "second worker to make progress")
            assert first.metrics.value("factstream_assigned_partitions") < 6
            # /metrics and /healthz of a live worker
            base = f"http://127.0.0.1:{second.metrics_port}"
            text = urllib.request.urlopen(f"{base}/metrics", timeout=5).read().decode()
            assert "factstream_processing_seconds_bucket" in text
            assert "factstream_in_flight_records" in text
            await eventually(
                lambda: (
                    "factstream_consumer_lag{"
                    in urllib.request.urlopen(f"{base}/metrics", timeout=5).read().decode()
                ),
                10,
                "lag gauge",
            )
            assert urllib.request.urlopen(f"{base}/healthz", timeout=5).status == 200
        assert feeder.is_alive(), "the stream ended before the second member left"
        # second left (drained + committed); first takes everything back
        await asyncio.get_running_loop().run_in_executor(
            None, wait_for_count, kafka_bootstrap, out_topic, total, 90
        )

    outs = read_to_end(kafka_bootstrap, [out_topic])
    seqs = Counter(o.json()["seq"] for o in outs)
    assert sorted(seqs) == list(range(total)) and max(seqs.values()) == 1
    by_key: dict[bytes | None, list[int]] = defaultdict(list)
    for o in outs:
        by_key[o.key].append(json.loads(o.value or b"{}")["seq"])
    assert all(v == sorted(v) for v in by_key.values())
    assert done(first) + done(second) >= total
