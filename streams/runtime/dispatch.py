"""Key-ordered concurrency: one lane per key, lanes run concurrently under a limit.

Records of one lane are processed strictly in the order submitted (offset order);
different lanes interleave, at most ``concurrency`` records at a time. A lane is keyed
by (topic, partition, record key), or by (topic, partition) when ``by_partition``.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Awaitable, Callable, Collection

from streams.runtime.records import TP, OutRecord, Record

ProcessFn = Callable[[Record], Awaitable[tuple[OutRecord, ...]]]
DoneFn = Callable[[Record, tuple[OutRecord, ...]], None]
LaneKey = tuple[str, int, bytes | None]


class _Lane:
    __slots__ = ("queue", "task")

    def __init__(self) -> None:
        self.queue: deque[Record] = deque()
        self.task: asyncio.Task[None] | None = None


class KeyedDispatcher:
    def __init__(
        self,
        concurrency: int,
        process: ProcessFn,
        done: DoneFn,
        *,
        by_partition: bool = False,
        crashed: Callable[[BaseException], None] | None = None,
    ) -> None:
        self._crashed = crashed
        self._sem = asyncio.Semaphore(concurrency)
        self._process = process
        self._done = done
        self._by_partition = by_partition
        self._lanes: dict[LaneKey, _Lane] = {}
        # Tasks of dropped lanes that are still unwinding; a new lane of the same key
        # waits for them so one key never runs twice at once.
        self._retired: dict[LaneKey, asyncio.Task[None]] = {}
        self.queued = 0  # submitted and not finished (running or waiting)
        self.running = 0

    def _lane_key(self, rec: Record) -> LaneKey:
        return (rec.topic, rec.partition, None if self._by_partition else rec.key)

    def submit(self, rec: Record) -> None:
        key = self._lane_key(rec)
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = _Lane()
            lane.task = asyncio.create_task(self._run(key, lane), name=f"lane-{key!r}")
        lane.queue.append(rec)
        self.queued += 1

    async def _run(self, key: LaneKey, lane: _Lane) -> None:
        prev = self._retired.get(key)
        try:
            if prev is not None:
                await asyncio.wait([prev])
            while lane.queue:
                rec = lane.queue[0]
                async with self._sem:
                    self.running += 1
                    try:
                        outs = await self._process(rec)
                    finally:
                        self.running -= 1
                lane.queue.popleft()
                self.queued -= 1
                self._done(rec, outs)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug: the record can never finish, so stop the worker
            if self._crashed is None:
                raise
            self._crashed(exc)
        finally:
            if self._lanes.get(key) is lane:
                del self._lanes[key]

    @property
    def lanes(self) -> int:
        """Keys with unfinished records."""
        return len(self._lanes)

    def pending(self, tps: Collection[TP]) -> int:
        """Records of these partitions not finished yet."""
        return sum(len(lane.queue) for k, lane in self._lanes.items() if (k[0], k[1]) in tps)

    def drop(self, tps: Collection[TP] | None = None) -> list[asyncio.Task[None]]:
        """Abandon the lanes of these partitions (all when None): cancel and forget."""
        tasks: list[asyncio.Task[None]] = []
        for key, lane in list(self._lanes.items()):
            if tps is not None and (key[0], key[1]) not in tps:
                continue
            del self._lanes[key]
            self.queued -= len(lane.queue)
            lane.queue.clear()
            if lane.task is not None and not lane.task.done():
                lane.task.cancel()
                self._retired[key] = lane.task
                lane.task.add_done_callback(functools.partial(self._forget, key))
                tasks.append(lane.task)
        return tasks

    def _forget(self, key: LaneKey, task: asyncio.Task[None]) -> None:
        if self._retired.get(key) is task:
            del self._retired[key]
