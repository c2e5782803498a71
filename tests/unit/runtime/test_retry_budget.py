"""Transient retries have a time budget as well as an attempt budget (transient_min_retry_s).

A fake clock advanced by a fake sleep: no real waiting. The chaos drill's failure was six
jittered attempts all falling inside a 6 s Postgres restart.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from streams.errors import TransientError
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import error_headers
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import Record
from streams.runtime.stage import RecordContext, Routed, Stage


class In(BaseModel):
    dataset: str


class Out(BaseModel):
    dataset: str
    attempt: int


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.now += s


class OutageStage(Stage[Any]):
    """Fails with a transient error while the clock is inside [start, start + outage_s)."""

    name = "fake"
    input_topic = "in"
    input_model = In
    output_topic: str | None = "out"

    def __init__(self, clock: FakeClock, outage_s: float) -> None:
        self.clock = clock
        self.until = clock.now + outage_s
        self.calls: list[RecordContext] = []

    async def handle(self, event: In, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        self.calls.append(ctx)
        if self.clock.now < self.until:
            raise TransientError("connection refused: the database is restarting")
        return [Out(dataset=event.dataset, attempt=ctx.attempt)]


def processor(
    stage: OutageStage, clock: FakeClock, rand: float, **cfg: object
) -> tuple[RecordProcessor, WorkerMetrics]:
    conf = WorkerConfig(stage="fake", group="g", dlq_topic="dlq").with_(**cfg)
    metrics = WorkerMetrics("fake")
    proc = RecordProcessor(stage, conf, metrics, sleep=clock.sleep, rand=lambda: rand, clock=clock)
    return proc, metrics


REC = Record("in", 0, 5, b"ds:p", json.dumps({"dataset": "ds"}).encode())


def test_defaults() -> None:
    cfg = WorkerConfig(stage="s", group="g", dlq_topic="d")
    assert (cfg.transient_max_attempts, cfg.transient_min_retry_s) == (6, 60.0)


async def test_a_six_second_outage_is_ridden_out_not_dead_lettered() -> None:
    clock = FakeClock()
    stage = OutageStage(clock, outage_s=6.0)
    # Small jitter draws: the first six attempts all land inside the outage (~1.6 s).
    proc, metrics = processor(stage, clock, rand=0.1)

    (out,) = await proc(REC)

    assert out.topic == "out"
    attempts = len(stage.calls)
    assert attempts > 6  # an attempt budget alone would have dead-lettered it
    assert json.loads(out.value)["attempt"] == attempts
    assert clock.now - 1000.0 >= 6.0
    assert not any(c.final_attempt for c in stage.calls)
    assert metrics.value("factstream_records_total", outcome="retried") == 1
    assert metrics.value("factstream_dead_letters_total", reason="transient_exhausted") == 0


async def test_a_lasting_failure_is_dead_lettered_after_both_budgets() -> None:
    clock = FakeClock()
    stage = OutageStage(clock, outage_s=float("inf"))
    proc, metrics = processor(stage, clock, rand=1.0)

    (dl,) = await proc(REC)

    h = error_headers(dl.headers)
    assert dl.topic == "dlq" and h["x-reason"] == "transient_exhausted"
    assert int(h["x-attempt"]) == len(stage.calls) >= 6
    last = stage.calls[-1]
    assert last.final_attempt and not any(c.final_attempt for c in stage.calls[:-1])
    # The final attempt started at least the minimum time after the first one.
    assert sum(clock.sleeps) >= 60.0
    assert max(clock.sleeps) <= 30.0  # backoff stays capped at retry_max_s
    # Delays 0.5, 1, 2, 4, 8, 16, 30: attempt 8 starts at 61.5 s, the first one past 60 s.
    assert clock.sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0] and len(stage.calls) == 8
    assert metrics.value("factstream_dead_letters_total", reason="transient_exhausted") == 1


async def test_the_attempt_budget_still_applies_when_the_time_is_spent() -> None:
    clock = FakeClock()
    stage = OutageStage(clock, outage_s=float("inf"))
    # Long sleeps: 60 s pass within 3 attempts, yet all 6 attempts are made.
    proc, _ = processor(stage, clock, rand=1.0, retry_base_s=40.0, retry_max_s=40.0)

    (dl,) = await proc(REC)

    assert error_headers(dl.headers)["x-attempt"] == "6" and len(stage.calls) == 6
    assert clock.sleeps == [40.0] * 5


async def test_no_time_budget_means_the_attempt_count_alone() -> None:
    clock = FakeClock()
    stage = OutageStage(clock, outage_s=6.0)
    proc, _ = processor(stage, clock, rand=0.1, transient_min_retry_s=0.0)

    (dl,) = await proc(REC)

    assert error_headers(dl.headers)["x-attempt"] == "6" and stage.calls[-1].final_attempt


async def test_a_record_asleep_in_a_backoff_is_reported_and_cancels_at_once() -> None:
    """What a draining or revoking worker relies on: it stops waiting for records that are
    only sleeping through an outage, and cancelling them ends the sleep at once."""
    clock = FakeClock()
    stage = OutageStage(clock, outage_s=float("inf"))
    asleep = asyncio.Event()
    never = asyncio.Event()

    async def blocking_sleep(_s: float) -> None:
        asleep.set()
        await never.wait()

    proc = RecordProcessor(
        stage,
        WorkerConfig(stage="fake", group="g", dlq_topic="dlq"),
        WorkerMetrics("fake"),
        sleep=blocking_sleep,
        clock=clock,
    )
    assert not proc.only_backing_off()
    task = asyncio.create_task(proc(REC))
    await asyncio.wait_for(asleep.wait(), 5)

    assert proc.only_backing_off() and proc.only_backing_off({("in", 0)})
    assert not proc.only_backing_off({("in", 1)})  # nothing of that partition runs

    task.cancel()
    done, _ = await asyncio.wait([task], timeout=1)
    assert task in done and task.cancelled()
    assert not proc.only_backing_off()  # bookkeeping unwound with the cancellation


async def test_a_record_still_working_keeps_the_drain_waiting() -> None:
    clock = FakeClock()
    sleeping = OutageStage(clock, outage_s=float("inf"))
    asleep, working, release = asyncio.Event(), asyncio.Event(), asyncio.Event()

    class Slow(OutageStage):
        async def handle(self, event: In, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
            if ctx.partition == 1:
                working.set()
                await release.wait()
                return [Out(dataset=event.dataset, attempt=ctx.attempt)]
            return await sleeping.handle(event, ctx)

    async def blocking_sleep(_s: float) -> None:
        asleep.set()
        await release.wait()

    proc = RecordProcessor(
        Slow(clock, 0),
        WorkerConfig(stage="fake", group="g", dlq_topic="dlq"),
        WorkerMetrics("fake"),
        sleep=blocking_sleep,
        clock=clock,
    )
    other = Record("in", 1, 0, b"ds:q", REC.value)
    tasks = [asyncio.create_task(proc(REC)), asyncio.create_task(proc(other))]
    await asyncio.wait_for(asyncio.gather(asleep.wait(), working.wait()), 5)

    assert not proc.only_backing_off()  # partition 1's record is doing real work
    assert proc.only_backing_off({("in", 0)})
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
