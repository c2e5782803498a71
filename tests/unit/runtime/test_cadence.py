"""The worker's cadence: how long a poll blocks, when a commit is due, and that a
stopping worker's committer stops."""

from __future__ import annotations

import asyncio
import time

import pytest

from streams.runtime.cadence import Cadence


def _cadence(*, transactional: bool, in_flight: list[int], interval: float = 0.2) -> Cadence:
    return Cadence(
        transactional=transactional, commit_interval_s=interval, poll_timeout_s=0.05,
        idle_poll_timeout_s=0.5, in_flight=lambda: in_flight[0],
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


async def test_a_lone_record_commits_after_half_the_interval_a_busy_stage_waits_it_out() -> None:
    in_flight = [0]
    lone = _cadence(transactional=True, in_flight=in_flight, interval=0.4)
    lone.committed()
    lone.record_done(ours=True)
    started = time.monotonic()
    await lone.next_commit()
    assert 0.15 <= time.monotonic() - started < 0.35

    in_flight[0] = 1  # another record still running
    busy = _cadence(transactional=True, in_flight=in_flight, interval=0.4)
    busy.committed()
    busy.record_done(ours=True)
    started = time.monotonic()
    await busy.next_commit()
    assert time.monotonic() - started >= 0.35
