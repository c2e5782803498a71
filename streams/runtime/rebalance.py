"""The worker's side of a rebalance (KafkaIO's RebalanceHooks), as a part of Worker.

librdkafka runs the callbacks on the Kafka thread, inside ``poll``; each hook runs its
work on the worker's loop and waits for it, so the ledgers and lanes are only ever
touched from the loop. Assigned partitions get a fresh ledger (a new epoch); revoked ones
stop taking records, wait a bounded time for their in-flight records, hand back what may
still be committed, and are forgotten; lost ones are forgotten at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

from streams.runtime.config import WorkerConfig
from streams.runtime.dispatch import KeyedDispatcher
from streams.runtime.ledger import PartitionLedger
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import TP, PartitionPlan

log = logging.getLogger("streams.runtime.worker")
T = TypeVar("T")


class RebalanceSide:
    """Rebalance hooks for Worker, which sets these attributes up."""

    cfg: WorkerConfig
    _loop: asyncio.AbstractEventLoop | None
    _ledgers: dict[TP, PartitionLedger]
    _closing: set[TP]
    _dispatcher: KeyedDispatcher
    _processor: RecordProcessor
    _fatal: BaseException | None
    _force: bool

    def _fields(self, **more: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _on_loop(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T | None:
        assert self._loop is not None
        fut = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return fut.result(timeout)
        except Exception:
            fut.cancel()
            log.exception("rebalance hook failed", extra=self._fields())
            return None

    def assigned(self, parts: Sequence[tuple[TP, int]]) -> None:
        self._on_loop(self._assign(parts))

    def revoked(self, tps: Sequence[TP]) -> Sequence[PartitionPlan]:
        if self._fatal is not None:
            self._on_loop(self._lose(tps))
            return []
        return self._on_loop(self._revoke(tps), self.cfg.revoke_wait_s + 10) or []

    def lost(self, tps: Sequence[TP]) -> None:
        self._on_loop(self._lose(tps))

    async def _assign(self, parts: Sequence[tuple[TP, int]]) -> None:
        for (topic, partition), epoch in parts:
            self._ledgers[(topic, partition)] = PartitionLedger(topic, partition, epoch)
            self._closing.discard((topic, partition))

    async def _revoke(self, tps: Sequence[TP]) -> list[PartitionPlan]:
        wanted = set(tps)
        self._closing |= wanted
        deadline = time.monotonic() + self.cfg.revoke_wait_s
        while (
            self._dispatcher.pending(wanted)
            and not self._force
            and not self._processor.only_backing_off(wanted)
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.01)
        plans = [p for tp in tps if (led := self._ledgers.get(tp)) and (p := led.ready())]
        abandoned = self._dispatcher.pending(wanted)
        if abandoned:
            log.warning(
                "revoked with %d unfinished records (abandoned)", abandoned, extra=self._fields()
            )
        await self._lose(tps)
        return plans

    async def _lose(self, tps: Sequence[TP]) -> None:
        self._dispatcher.drop(set(tps))
        for tp in tps:
            self._ledgers.pop(tp, None)
            self._closing.discard(tp)
