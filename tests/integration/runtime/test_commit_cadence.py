"""When a Kafka-to-Kafka worker commits: a transaction waits up to the commit interval for
more records to share it while records keep finishing, but not for records that are not
there, nor for slow ones once nothing has finished for the quiet time.

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

pytestmark = pytest.mark.timeout(150)
INTERVAL_S = 10.0
QUIET_S = 2.0


async def _outputs(bootstrap: str, topic: str, count: int) -> dict[int, Out]:
    outs = await asyncio.get_running_loop().run_in_executor(
        None, wait_for_count, bootstrap, topic, count, 60
    )
    return {o.json()["seq"]: o for o in outs}


async def _handed_on_after_a_first_commit(
    bootstrap: str, topics: Callable[..., str], later: list[tuple[str, int, float]]
) -> tuple[dict[int, Out], float]:
    """Run a worker with a commit interval of INTERVAL_S and a quiet time of QUIET_S; hand
    one record on (its first commit goes at once), then publish ``later`` (tenant, seq,
    handler delay ms). Returns the outputs by seq, and the first commit's time."""
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=2)
    settings = runtime_settings(
        bootstrap, prefix, commit_interval_ms=int(INTERVAL_S * 1000),
        commit_quiet_ms=int(QUIET_S * 1000),
    )  # fmt: skip
    src, out = settings.topic("runtime.in"), settings.topic("runtime.out")
    stage = PassthroughStage(src, out)
    cfg = WorkerConfig.from_settings(settings, stage.name, group=f"g-{prefix}", concurrency=16)
    async with running(Worker(stage, cfg)):
        produce(bootstrap, src, [(b"ds0:p", event("ds0:p", 0))])
        first = (await _outputs(bootstrap, out, 1))[0].timestamp_ms / 1000
        produce(bootstrap, src, [(t.encode(), event(t, seq, delay_ms=d)) for t, seq, d in later])
        return await _outputs(bootstrap, out, 1 + len(later)), first


def _after(outs: dict[int, Out], first: float, *seqs: int) -> list[float]:
    """Seconds from the first commit to the commit of each of ``seqs``."""
    return [outs[seq].timestamp_ms / 1000 - first for seq in seqs]


async def test_a_record_alone_in_flight_is_handed_on_after_the_quiet_time(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    outs, first = await _handed_on_after_a_first_commit(
        kafka_bootstrap, topics, [("ds1:p", 1, 0.0)]
    )
    [after] = _after(outs, first, 1)
    # Nothing else is in flight: waiting out the interval would add nothing to the
    # transaction. The quiet time still separates two commits.
    assert QUIET_S - 0.5 <= after < QUIET_S + 2.0, f"committed {after:.2f} s later"


async def test_a_transaction_waits_while_records_keep_finishing_not_for_a_slow_one(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    # Four records finishing 1.5 s apart (less than the quiet time), and a slow one.
    steady = [(f"ds{i}:p", i, 1500.0 * (i - 1)) for i in range(1, 5)]
    outs, first = await _handed_on_after_a_first_commit(
        kafka_bootstrap, topics, [*steady, ("ds9:p", 9, 8000.0)]
    )
    quick = _after(outs, first, 1, 2, 3, 4)
    [slow] = _after(outs, first, 9)
    # The four went in one transaction, once nothing had finished for the quiet time
    # (the last at 4.5 s): the slow record, still running, did not hold them.
    assert max(quick) - min(quick) < 0.5, f"quick ones committed at {quick}"
    assert 4.5 + QUIET_S - 0.5 <= quick[0] < slow - 1.0, f"quick {quick[0]:.2f}, slow {slow:.2f}"
    assert slow >= 8.0 - 0.5, f"the slow one committed {slow:.2f} s later"


async def test_records_that_never_stop_finishing_commit_once_per_interval(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    # One record finishing every second for 14 s: no lull ever comes.
    later = [(f"ds{i}:p", i, 1000.0 * (i - 1)) for i in range(1, 16)]
    outs, first = await _handed_on_after_a_first_commit(kafka_bootstrap, topics, later)
    times = _after(outs, first, *range(1, 16))
    # The first transaction closes at the interval with what had finished by then; the
    # rest go in later transactions.
    assert INTERVAL_S - 0.5 <= times[0] < INTERVAL_S + 1.5, f"committed at {times}"
    assert max(times[:8]) - min(times[:8]) < 0.5, f"the first eight apart: {times}"
    assert min(times[11:]) > times[0] + 1.0, f"the last ones went with the first: {times}"
