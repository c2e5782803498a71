"""A worker: one consumer-group member running one stage with key-ordered concurrency.

The asyncio loop owns the stage, the lanes (``dispatch``) and the ledgers; the Kafka
clients live on two threads of their own (``kafka_io``: one polls, one commits). Records
are tracked per partition from the moment they are consumed; the committer takes each
partition's contiguous finished prefix and commits it with its held outputs (when:
``cadence``).

Shutdown (SIGTERM/SIGINT or ``stop()``): fetching pauses, in-flight records get
``shutdown_deadline_s`` to finish, a final commit runs, then the consumer closes (and
leaves the group unless it is a static member). A second signal skips the wait.

With a metrics port, ``metrics_http`` serves the worker's metrics, its liveness
(``health``: started, no fatal error, polling) and its readiness (``ready``: live, not
draining, and every check of ``health.Readiness`` passes: the broker, plus what the
entry point adds, e.g. Postgres).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import signal
import time
from typing import Any

from streams.backoff import Backoff
from streams.runtime.cadence import Cadence
from streams.runtime.config import WorkerConfig
from streams.runtime.dispatch import KeyedDispatcher
from streams.runtime.health import HealthSide, Readiness, ReadyCheck, kafka_check
from streams.runtime.kafka_io import CommitFailed, FatalKafkaError, KafkaIO
from streams.runtime.ledger import PartitionLedger
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.rebalance import RebalanceSide
from streams.runtime.records import TP, OutRecord, Record
from streams.runtime.stage import Stage

# Between failed commits: 0.1 s, 0.2 s ... up to 5 s.
_COMMIT_BACKOFF = Backoff(0.05, 5.0, jitter=False)
log = logging.getLogger("streams.runtime.worker")


class Worker(RebalanceSide, HealthSide):
    def __init__(
        self,
        stage: Stage[Any],
        cfg: WorkerConfig,
        *,
        metrics: WorkerMetrics | None = None,
        install_signals: bool = False,
        poll_timeout_s: float = 0.05,
        idle_poll_timeout_s: float = 0.5,
        max_poll_records: int = 500,
        ready_checks: dict[str, ReadyCheck] | None = None,
    ) -> None:
        self.stage = stage
        self.cfg = cfg
        self.metrics = metrics or WorkerMetrics(cfg.stage)
        self.transactional = stage.output_topic is not None
        lane_by = cfg.lane_by or stage.lane_by
        lane_by = lane_by or ("key" if self.transactional else "partition")
        self._processor = RecordProcessor(stage, cfg, self.metrics)
        self._dispatcher = KeyedDispatcher(
            cfg.concurrency,
            self._processor,
            self._on_done,
            by_partition=lane_by == "partition",
            crashed=self._crash,
        )
        self._install_signals = install_signals
        self._cadence = Cadence(
            transactional=self.transactional, commit_interval_s=cfg.commit_interval_s,
            commit_quiet_s=cfg.commit_quiet_s,
            poll_timeout_s=poll_timeout_s, idle_poll_timeout_s=idle_poll_timeout_s,
            in_flight=lambda: self._dispatcher.queued,
        )  # fmt: skip
        self._max_poll_records = max_poll_records
        self._ledgers: dict[TP, PartitionLedger] = {}
        self._closing: set[TP] = set()
        self._stop = asyncio.Event()
        self._force = False
        self._polling = True
        self._paused = False
        self._fatal: BaseException | None = None
        self._failures = 0
        self._last_poll = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._io: KafkaIO | None = None
        self.started = asyncio.Event()
        self.metrics_port: int | None = None
        self._readiness = Readiness(
            {"kafka": kafka_check(cfg.kafka, stage.input_topic), **(ready_checks or {})}
        )

    # --- public ----------------------------------------------------------------------
    def stop(self) -> None:
        """Drain and exit; a second call stops waiting for in-flight records."""
        if self._stop.is_set():
            self._force = True
        self._stop.set()

    async def run(self) -> int:
        """Run until stopped; 0 after a clean drain, 1 after a fatal error."""
        loop = self._loop = asyncio.get_running_loop()
        io = self._io = KafkaIO(
            self.cfg, transactional=self.transactional, hooks=self, metrics=self.metrics
        )
        server = self._serve_http(self.metrics.registry)
        self._handle_signals(loop, install=True)
        tasks: list[asyncio.Task[Any]] = []
        try:
            await self._serve(io, tasks)
        except Exception as exc:
            self._fatal = self._fatal or exc
        finally:
            for t in tasks:
                t.cancel()
            self._dispatcher.drop()
            try:
                await self._call(io.close)
            except Exception:
                log.exception("close failed", extra=self._fields())
            io.executor.shutdown(wait=False)
            io.commit_executor.shutdown(wait=False)
            if server is not None:
                server.stop()
            self._handle_signals(loop, install=False)
        if self._fatal is not None:
            log.error("worker failed: %r", self._fatal, extra=self._fields())
            return 1
        log.info("worker stopped cleanly", extra=self._fields())
        return 0

    async def _serve(self, io: KafkaIO, tasks: list[asyncio.Task[Any]]) -> None:
        """Poll and commit until stopped or failed, then drain and commit a last time."""
        await self._call(io.start, [self.stage.input_topic])
        self._last_poll = time.monotonic()
        self.started.set()
        log.info("worker started", extra=self._fields())
        poller = asyncio.create_task(self._poll_loop())
        committer = asyncio.create_task(self._commit_loop())
        tasks += [poller, committer, asyncio.create_task(self._stop.wait())]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        self._note_failures(poller, committer)
        if self._fatal is None:
            await self._drain(poller, committer)
        committer.cancel()
        self._polling = False
        await asyncio.gather(poller, committer, return_exceptions=True)
        self._note_failures(poller, committer)
        if self._fatal is None:
            await self._commit_once(final=True)

    def _note_failures(self, *tasks: asyncio.Task[Any]) -> None:
        """The first error a finished loop raised is the worker's fatal error."""
        for t in tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                self._fatal = self._fatal or t.exception()

    def _handle_signals(self, loop: asyncio.AbstractEventLoop, *, install: bool) -> None:
        if not self._install_signals:
            return
        for sig in (signal.SIGTERM, signal.SIGINT):
            if install:
                loop.add_signal_handler(sig, self.stop)
            else:
                loop.remove_signal_handler(sig)

    # --- loop side ---------------------------------------------------------------------
    async def _call(self, fn: Any, *args: Any, commit: bool = False) -> Any:
        """``fn`` on the Kafka poll thread, or with ``commit`` on the commit thread."""
        assert self._loop is not None and self._io is not None
        executor = self._io.commit_executor if commit else self._io.executor
        return await self._loop.run_in_executor(executor, functools.partial(fn, *args))

    async def _call_commit(self, fn: Any, *args: Any) -> Any:
        return await self._call(fn, *args, commit=True)

    def _fields(self, **more: Any) -> dict[str, Any]:
        return {"stage": self.cfg.stage, "group": self.cfg.group, **more}

    async def _poll_loop(self) -> None:
        assert self._io is not None
        cap = 4 * self.cfg.concurrency
        while self._polling:
            await asyncio.sleep(0)  # let lanes started by the last batch run first
            pause = self._want_pause()
            room = max(1, min(self._max_poll_records, cap - self._dispatcher.queued))
            batch: tuple[list[Record], dict[TP, int]] = await self._call(
                self._io.poll_batch, pause, room, self._cadence.poll_wait(pause)
            )
            self._last_poll = time.monotonic()
            if not self._stop.is_set():  # a stopping worker drops what it polled: no advance
                recs, positions = batch
                for rec in recs:
                    self._accept(rec)
                self._advance(positions)
            self.metrics.in_flight.set(self._dispatcher.queued)

    def _advance(self, positions: dict[TP, int]) -> None:
        """Positions read after the records just accepted (see ``PartitionLedger``)."""
        for tp, position in positions.items():
            led = self._ledgers.get(tp)
            if led is not None and tp not in self._closing:
                led.advance(position)

    def _want_pause(self) -> bool:
        """Backpressure. Fetch while fewer than 2 x concurrency keys have work and fewer
        than 4 x concurrency records are unfinished (and fewer than max_held finished ones
        wait for a lower offset); otherwise pause, and resume with some slack. Counting keys
        keeps every handler slot busy when a few keys hold many records; pausing makes
        librdkafka drop its prefetched records, so it is kept for real saturation."""
        if self._stop.is_set():
            return True
        c = self.cfg.concurrency
        lanes, unfinished = self._dispatcher.lanes, self._dispatcher.queued
        held = sum(led.held for led in self._ledgers.values())
        if self._paused:
            self._paused = lanes > 3 * c // 2 or unfinished > 3 * c or held > self.cfg.max_held // 2
        else:
            self._paused = lanes >= 2 * c or unfinished >= 4 * c or held >= self.cfg.max_held
        self.metrics.paused.set(1 if self._paused else 0)
        return self._paused

    def _accept(self, rec: Record) -> None:
        led = self._ledgers.get(rec.tp)
        if led is None or rec.tp in self._closing or not led.add(rec.offset):
            return
        self._dispatcher.submit(dataclasses.replace(rec, epoch=led.epoch))

    def _on_done(self, rec: Record, outs: tuple[OutRecord, ...]) -> None:
        led = self._ledgers.get(rec.tp)
        ours = led is not None and led.epoch == rec.epoch  # not revoked meanwhile
        if led is not None and ours:
            led.finish(rec.offset, outs)
        self._cadence.record_done(ours=ours, outputs=bool(outs))
        self.metrics.in_flight.set(self._dispatcher.queued)

    def _crash(self, exc: BaseException) -> None:
        log.error("lane crashed: %r", exc, extra=self._fields(), exc_info=exc)
        self._fatal = self._fatal or exc
        self._force = True
        self._stop.set()

    async def _drain(self, *tasks: asyncio.Task[None]) -> None:
        deadline = time.monotonic() + self.cfg.shutdown_deadline_s
        log.info("draining %d records", self._dispatcher.queued, extra=self._fields())
        # Records asleep between transient retries (an outage) would hold the drain until
        # the deadline: stop waiting once nothing else runs; they are redelivered.
        while (
            self._dispatcher.queued
            and not self._force
            and not self._processor.only_backing_off()
            and not any(t.done() for t in tasks)
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.02)
        if self._dispatcher.queued:
            log.warning(
                "abandoning %d unfinished records", self._dispatcher.queued, extra=self._fields()
            )

    async def _commit_loop(self) -> None:
        while True:
            await self._cadence.next_commit()
            await self._commit_once()
            self._cadence.committed()

    async def _commit_once(self, final: bool = False) -> None:
        assert self._io is not None
        plans = [
            p
            for tp, led in self._ledgers.items()
            if tp not in self._closing and (p := led.ready()) is not None
        ]
        if not plans:
            await self._call_commit(self._io.serve_producer)
            return
        try:
            committed: dict[TP, int] = await self._call_commit(self._io.commit, plans)
        except CommitFailed as exc:
            self._failures += 1
            log.warning(
                "commit failed (%d in a row): %s", self._failures, exc, extra=self._fields()
            )
            if final or self._failures >= self.cfg.max_commit_failures:
                raise FatalKafkaError(f"giving up after {self._failures} failed commits") from exc
            await asyncio.sleep(_COMMIT_BACKOFF.delay(self._failures + 1))
            return
        self._failures = 0
        epochs = {p.tp: p.epoch for p in plans}
        for tp, nxt in committed.items():
            led = self._ledgers.get(tp)
            if led is not None and led.epoch == epochs.get(tp):
                led.prune(nxt)
