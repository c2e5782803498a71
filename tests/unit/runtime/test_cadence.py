"""The worker's cadence: how long a poll blocks, when a commit is due, and that a
stopping worker's committer stops."""

from __future__ import annotations

import asyncio
import time

import pytest

from streams.runtime.cadence import Cadence


def _cadence(
    *, transactional: bool, in_flight: list[int], interval: float = 0.2, quiet: float = 0.1,
    hold: float | None = None, behind: list[bool] | None = None,
) -> Cadence:
    backlog = [True] if behind is None else behind
    return Cadence(
        transactional=transactional, commit_interval_s=interval, commit_quiet_s=quiet,
        poll_timeout_s=0.05, idle_poll_timeout_s=0.5, in_flight=lambda: in_flight[0],
        commit_hold_s=hold, behind=lambda: backlog[0],
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


async def _while_records_keep_finishing(cadence: Cadence) -> float:
    """Seconds to the next commit while a record finishes every 50 ms."""
    cadence.committed()
    cadence.record_done(ours=True)

    async def keep_finishing() -> None:
        while True:
            await asyncio.sleep(0.05)
            cadence.record_done(ours=True)

    finishing = asyncio.create_task(keep_finishing())
    try:
        return await _seconds_to_commit(cadence)
    finally:
        finishing.cancel()


async def test_records_that_keep_finishing_hold_the_transaction_to_the_interval() -> None:
    busy = _cadence(transactional=True, in_flight=[3], interval=0.8, quiet=0.2)
    assert await _while_records_keep_finishing(busy) >= 0.75


async def test_a_worker_that_keeps_up_holds_only_the_hold_time() -> None:
    # Records keep finishing, none waits for a handler: the transaction goes at the hold
    # time, so a stage below capacity does not add the whole interval to each record.
    keeping_up = _cadence(
        transactional=True, in_flight=[3], interval=0.8, quiet=0.1, hold=0.3, behind=[False]
    )
    assert 0.25 <= await _while_records_keep_finishing(keeping_up) < 0.5


async def test_a_worker_behind_holds_to_the_interval_and_goes_once_it_catches_up() -> None:
    behind = [True]
    worker = _cadence(
        transactional=True, in_flight=[3], interval=0.8, quiet=0.1, hold=0.2, behind=behind
    )
    assert await _while_records_keep_finishing(worker) >= 0.75
    # Behind at the hold time, caught up 0.2 s later: it commits then, not at the interval.
    loop = asyncio.get_running_loop()
    caught_up = loop.call_later(0.4, behind.__setitem__, 0, False)
    try:
        assert 0.35 <= await _while_records_keep_finishing(worker) < 0.65
    finally:
        caught_up.cancel()


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
