"""When a Kafka-to-Kafka worker commits: a transaction waits up to the commit interval for
more records to share it, but not for records that are not there.

A stage's outputs are produced inside the commit's transaction, so their CreateTime is
when the worker committed them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from streams.runtime.config import WorkerConfig
from streams.runtime.worker import Worker
from tests.support.runtime import Out, event, produce, running, runtime_settings, wait_for_count
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(120)
INTERVAL_S = 10.0


async def _outputs(bootstrap: str, topic: str, count: int) -> dict[int, Out]:
    outs = await asyncio.get_running_loop().run_in_executor(
        None, wait_for_count, bootstrap, topic, count, 60
    )
    return {o.json()["seq"]: o for o in outs}


async def _handed_on_after_a_first_commit(
    bootstrap: str, topics: Callable[..., str], later: list[tuple[str, int, float]]
) -> tuple[dict[int, Out], float]:
    """Run a worker committing every INTERVAL_S; hand one record on (its first commit
    goes at once), then publish ``later`` (tenant, seq, handler delay ms). Returns the
    outputs by seq, and the first commit's time."""
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=2)
    settings = runtime_settings(bootstrap, prefix, commit_interval_ms=int(INTERVAL_S * 1000))
    src, out = settings.topic("runtime.in"), settings.topic("runtime.out")
    stage = PassthroughStage(src, out)
    cfg = WorkerConfig.from_settings(settings, stage.name, group=f"g-{prefix}", concurrency=4)
    async with running(Worker(stage, cfg)):
        produce(bootstrap, src, [(b"ds0:p", event("ds0:p", 0))])
        first = (await _outputs(bootstrap, out, 1))[0].timestamp_ms / 1000
        produce(bootstrap, src, [(t.encode(), event(t, seq, delay_ms=d)) for t, seq, d in later])
        return await _outputs(bootstrap, out, 1 + len(later)), first


async def test_a_record_alone_in_flight_is_handed_on_after_half_the_interval(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    outs, first = await _handed_on_after_a_first_commit(
        kafka_bootstrap, topics, [("ds1:p", 1, 0.0)]
    )
    after = outs[1].timestamp_ms / 1000 - first
    # Nothing else is in flight: waiting out the interval would add nothing to the
    # transaction. Half of it still separates two commits.
    assert INTERVAL_S / 2 - 0.5 <= after < INTERVAL_S - 1.5, f"committed {after:.2f} s later"


async def test_a_transaction_waits_for_a_record_in_flight_then_goes_without_the_rest(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    slow_ms = (INTERVAL_S / 2 + 1.5) * 1000  # still running at half the interval
    outs, first = await _handed_on_after_a_first_commit(
        kafka_bootstrap, topics, [("ds1:p", 1, 0.0), ("ds2:p", 2, slow_ms)]
    )
    quick, slow = (outs[s].timestamp_ms / 1000 - first for s in (1, 2))
    # The quick record waited for the slow one and they went in one transaction, as
    # soon as the slow one finished: before the interval was out.
    assert abs(quick - slow) < 0.5, f"quick {quick:.2f} s, slow {slow:.2f} s after the first"
    assert slow_ms / 1000 - 0.5 <= quick < INTERVAL_S - 0.5, f"committed {quick:.2f} s later"
