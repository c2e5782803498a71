"""Key-ordered concurrency against a real broker (in-process worker)."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections import defaultdict
from collections.abc import Callable

import pytest

from streams.runtime.config import WorkerConfig
from streams.runtime.worker import Worker
from tests.support.runtime import event, produce, running, runtime_settings, wait_for_count
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(120)


async def test_same_key_in_input_order_different_keys_overlap(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=4)
    settings = runtime_settings(kafka_bootstrap, prefix)
    rng = random.Random(42)
    n_keys, per_key, concurrency = 30, 10, 16
    items = [
        (f"ds{k}:p{k}".encode(), event(f"ds{k}:p{k}", seq, delay_ms=rng.uniform(0, 25)))
        for seq in range(per_key)
        for k in range(n_keys)
    ]
    produce(kafka_bootstrap, settings.topic("runtime.in"), items)

    stage = PassthroughStage(settings.topic("runtime.in"), settings.topic("runtime.out"))
    cfg = WorkerConfig.from_settings(
        settings, stage.name, group=f"g-{prefix}", concurrency=concurrency
    )
    async with running(Worker(stage, cfg)):
        outs = await asyncio.get_running_loop().run_in_executor(
            None, wait_for_count, kafka_bootstrap, settings.topic("runtime.out"), len(items), 90
        )

    assert len(outs) == len(items)  # nothing lost, nothing doubled
    by_key: dict[bytes | None, list[dict[str, float]]] = defaultdict(list)
    for o in outs:  # read in offset order per partition; one key lives in one partition
        by_key[o.key].append(o.json())
    assert len(by_key) == n_keys
    for key, recs in by_key.items():
        assert [r["seq"] for r in recs] == list(range(per_key)), key
        for prev, nxt in itertools.pairwise(recs):
            assert nxt["started"] >= prev["finished"], f"{key!r} overlapped itself"

    spans = sorted((r["started"], r["finished"]) for recs in by_key.values() for r in recs)
    points = sorted([(s, 1) for s, _ in spans] + [(f, -1) for _, f in spans])
    live = peak = 0
    for _, step in points:
        live += step
        peak = max(peak, live)
    assert 4 <= peak <= concurrency, f"peak concurrency {peak}"
