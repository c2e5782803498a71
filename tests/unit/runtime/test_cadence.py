"""The worker's cadence: how long a poll blocks, when a commit is due, and that a
stopping worker's committer stops."""

from __future__ import annotations

import asyncio
import time

import pytest

from streams.runtime.cadence import Cadence


def _cadence(
    *, transactional: bool, in_flight: list[int], interval: float = 0.2, quiet: float = 0.1
) -> Cadence:
    return Cadence(
        transactional=transactional, commit_interval_s=interval, commit_quiet_s=quiet,
        poll_timeout_s=0.05, idle_poll_timeout_s=0.5, in_flight=lambda: in_flight[0],
    )  # fmt: skip


def test_a_poll_blocks_long_only_when_nothing_needs_the_loop_soon() -> None:
    busy, idle = [2], [0]
    assert _cadence(transactional=True, in_flight=idle).poll_wait(pause=False) == 0.5
    assert _cadence(transactional=True, in_flight=busy).poll_wait(pause=False) == 0.5
    assert _cadence(transactional=True, in_flight=idle).poll_wait(pause=True) == 0.05
    # A sink commits on the poll thread: while it has work, polls stay short.
    assert _cadence(transactional=False, in_flight=busy).poll_wait(pause=False) == 0.05
    sink = _cadence(transactional=False, in_flight=idle)
    assert sink.poll_wait(pause=False) == 0.5
    sink.record_done(ours=True)  # finished, not yet committed
    assert sink.poll_wait(pause=False) == 0.05


async def test_a_cancel_that_comes_as_a_record_finishes_still_stops_the_committer() -> None:
    cadence = _cadence(transactional=True, in_flight=[0])
    waiting = asyncio.create_task(cadence.next_commit())
    await asyncio.sleep(0.01)  # waiting for a record to finish
    cadence.record_done(ours=True)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting


async def _seconds_to_commit(cadence: Cadence) -> float:
    started = time.monotonic()
    await cadence.next_commit()
    return time.monotonic() - started


async def test_a_lone_record_commits_after_the_quiet_time() -> None:
    lone = _cadence(transactional=True, in_flight=[0], interval=0.8, quiet=0.2)
    lone.committed()
    lone.record_done(ours=True)
    assert 0.15 <= await _seconds_to_commit(lone) < 0.45


async def test_a_slow_record_in_flight_does_not_hold_the_finished_ones() -> None:
    slow = _cadence(transactional=True, in_flight=[1], interval=0.8, quiet=0.2)
    slow.committed()
    slow.record_done(ours=True)  # another record still running, nothing else finishing
    assert 0.15 <= await _seconds_to_commit(slow) < 0.45


async def test_records_that_keep_finishing_hold_the_transaction_to_the_interval() -> None:
    busy = _cadence(transactional=True, in_flight=[3], interval=0.8, quiet=0.2)
    busy.committed()
    busy.record_done(ours=True)

    async def keep_finishing() -> None:
        while True:
            await asyncio.sleep(0.05)
            busy.record_done(ours=True)

    finishing = asyncio.create_task(keep_finishing())
    try:
        assert await _seconds_to_commit(busy) >= 0.75
    finally:
        finishing.cancel()


async def test_a_sink_waits_the_interval_out_unless_it_holds_outputs() -> None:
    sink = _cadence(transactional=False, in_flight=[0], interval=0.5, quiet=0.1)
    sink.committed()
    sink.record_done(ours=True)  # only an offset to commit
    assert await _seconds_to_commit(sink) >= 0.45

    sink.committed()
    sink.record_done(ours=True)
    later = asyncio.get_running_loop().call_later(
        0.2, lambda: sink.record_done(ours=True, outputs=True)
    )  # a dead letter, say: it goes soon
    try:
        assert 0.15 <= await _seconds_to_commit(sink) < 0.35
    finally:
        later.cancel()
