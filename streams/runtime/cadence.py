"""When a worker's two loops wake: how long a poll blocks, and when the next commit goes.

A commit goes once a record has finished, at most once per commit interval after the
previous commit ended, so that records finishing meanwhile share the transaction. A
Kafka-to-Kafka worker's commit is on its records' path, so it holds the transaction only
while holding pays: once the quiet time has passed since the previous commit, it commits
as soon as no record is in flight (nothing would join) or none has finished for the quiet
time (the ones in flight are slow, a model call: the next stage gets the finished ones
now). A busy stage, whose records keep finishing, fills the whole interval: fewer and
bigger transactions, each of which costs the broker and the worker a fixed amount. A
sink's commit of offsets is not on the records' path: it waits the interval out, unless
it holds outputs (dead letters, republished episodes), which go after the quiet time: a
republished episode is a tenant's next episode waiting for its turn. Without a finished
record the committer looks every idle poll timeout anyway: a position that moved past a
commit marker is committed then (lag 0 at rest), and the producer's callbacks are
served.

A poll returns as soon as a record comes, so its timeout only sets how soon the loop
looks again without one: soon while paused (to resume), or in a sink with work not yet
committed (its commit runs on the poll thread, after the poll); otherwise seldom, since
every idle wake-up of the loop is a round trip through a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable


class Cadence:
    def __init__(
        self,
        *,
        transactional: bool,
        commit_interval_s: float,
        commit_quiet_s: float,
        poll_timeout_s: float,
        idle_poll_timeout_s: float,
        in_flight: Callable[[], int],
    ) -> None:
        self._transactional = transactional
        self._interval = commit_interval_s
        self._quiet = min(commit_quiet_s, commit_interval_s)
        self._poll_timeout_s = poll_timeout_s
        self._idle_s = max(poll_timeout_s, idle_poll_timeout_s)
        self._in_flight = in_flight  # records taken in and not finished
        self._finished = asyncio.Event()  # a record finished since the last commit
        self._drained = asyncio.Event()  # every record taken in has finished
        self._outputs = asyncio.Event()  # a finished record left outputs to produce
        self._last_commit_end = 0.0
        self._last_finish = 0.0

    def record_done(self, *, ours: bool, outputs: bool = False) -> None:
        """A record finished (``ours``: its partition is still this worker's; ``outputs``:
        it left records to produce)."""
        self._last_finish = time.monotonic()
        if ours:
            self._finished.set()
            if outputs:
                self._outputs.set()
        if not self._in_flight():
            self._drained.set()

    def poll_wait(self, pause: bool) -> float:
        if pause or (not self._transactional and (self._in_flight() or self._finished.is_set())):
            return self._poll_timeout_s
        return self._idle_s

    async def next_commit(self) -> None:
        """Return when the next commit is due."""
        await _wait(self._finished, max(self._interval, self._idle_s))
        await self._hold_for_more()
        self._finished.clear()
        self._outputs.clear()

    def committed(self) -> None:
        self._last_commit_end = time.monotonic()

    async def _hold_for_more(self) -> None:
        """Wait out the interval since the last commit ended, so that records finishing
        meanwhile share the transaction; from the quiet time on, a Kafka-to-Kafka worker
        stops waiting once nothing is in flight or nothing has finished for that long, and
        a sink once it holds outputs."""
        until = self._last_commit_end + self._interval
        earliest = self._last_commit_end + self._quiet
        if not self._transactional:
            await _wait(self._outputs, until - time.monotonic())
            await asyncio.sleep(max(0.0, min(until, earliest) - time.monotonic()))
            return
        while (now := time.monotonic()) < until:
            if now < earliest:
                await asyncio.sleep(earliest - now)
                continue
            lull_ends = self._last_finish + self._quiet
            if not self._in_flight() or now >= lull_ends:
                return
            self._drained.clear()
            await _wait(self._drained, min(until, lull_ends) - now)


async def _wait(event: asyncio.Event, timeout: float) -> None:
    """``event.wait()`` for at most ``timeout`` seconds. Not ``asyncio.wait_for``: on
    Python 3.11 it swallows a cancellation that comes as the event is set, and a stopping
    worker's committer would then never stop."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            await event.wait()
