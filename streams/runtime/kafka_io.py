"""Everything that touches confluent_kafka, on two threads (two 1-worker executors).

The poll thread polls, pauses and resumes, and runs the rebalance callbacks (which
librdkafka runs inside ``poll``). The commit thread commits, so a commit never waits for
a poll to time out, nor a poll for a commit to finish. One lock makes every commit and
every rebalance callback's bookkeeping atomic with respect to each other, which keeps
the authoritative state consistent:

* ``_live``: assigned partitions and the epoch of their current assignment. A commit
  plan carries the epoch it was computed under; a plan for a revoked, lost or
  re-assigned partition is dropped, so nothing is ever committed for a partition after
  it was revoked.
* ``_committed``: the next offset committed per live partition; entries below it are
  skipped, so a plan that raced with another commit never publishes outputs twice.

Kafka-to-Kafka mode commits one transaction per plan: begin, produce every held output
in offset order, ``send_offsets_to_transaction(next offsets, group metadata)`` (KIP-447:
the broker rejects a stale group generation, which fences zombies), commit. The next
offset is the consumer's position once every record of the partition is finished (past
the upstream commit marker: lag 0 at rest), else the offset after the finished prefix;
``poll_batch`` reads the positions on the poll thread right after the records. Sink mode
commits the consumer's offsets directly while it holds no outputs; its held outputs
(dead letters, and what the handler returned as ``Routed``) go in a transaction with the
offsets, as above: produced after the handler's own database commit, and visible to
read_committed readers once, even when a broker outage outlasts the session and the
group hands the records on (the stale commit is refused and aborts the outputs with it).
Both, and replacing the producer after an outage, live in ``kafka_commit.py``; the
rebalance callbacks and the bookkeeping of ``_live`` they keep, in ``kafka_rebalance.py``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from streams.runtime.config import WorkerConfig, consumer_conf, producer_conf
from streams.runtime.kafka_commit import (
    CommitFailed,
    FatalKafkaError,
    ProducerSide,
)
from streams.runtime.kafka_rebalance import RebalanceCallbacks, RebalanceHooks
from streams.runtime.kafka_stats import export_lag
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP, OutRecord, PartitionPlan, Record
from streams.runtime.watchdog import Watchdog, exit_hung

log = logging.getLogger("streams.runtime.kafka")
rdkafka_log = logging.getLogger("librdkafka")
__all__ = ["CommitFailed", "FatalKafkaError", "KafkaIO", "RebalanceHooks"]


def _to_record(m: Any) -> Record:
    headers = tuple(
        (k, v if isinstance(v, bytes) else (v or "").encode("utf-8"))
        for k, v in (m.headers() or ())
    )
    return Record(
        m.topic(), m.partition(), m.offset(), m.key(), m.value(), headers, m.timestamp()[1]
    )


class KafkaIO(RebalanceCallbacks, ProducerSide):
    def __init__(
        self,
        cfg: WorkerConfig,
        *,
        transactional: bool,
        hooks: RebalanceHooks,
        metrics: WorkerMetrics,
        on_hung: Callable[[str, float], None] = exit_hung,
    ) -> None:
        self.cfg = cfg
        self.transactional = transactional
        self._hooks = hooks
        self._metrics = metrics
        # Each transactional call is timed: one stuck in librdkafka ends the process.
        self.watchdog = Watchdog(
            cfg.kafka_txn_watchdog_s, on_hung, name=f"kafka-watchdog-{cfg.stage}"
        )
        self.executor = ThreadPoolExecutor(1, thread_name_prefix=f"kafka-{cfg.stage}")
        # A sink's commit is the consumer's own (commit_plain): it stays on the poll thread.
        self.commit_executor = (
            ThreadPoolExecutor(1, thread_name_prefix=f"kafka-commit-{cfg.stage}")
            if transactional
            else self.executor
        )
        self._lock = threading.RLock()  # a commit, or a rebalance callback's bookkeeping
        self._live: dict[TP, int] = {}
        self._committed: dict[TP, int] = {}
        self._paused: set[TP] = set()
        self._epochs = itertools.count(1)
        self.consumer = Consumer(self._consumer_conf())
        self._group_meta = self.consumer.consumer_group_metadata()
        self._closing = False
        self.producer = Producer(self._producer_conf())
        self._cluster = "ok"

    def _consumer_conf(self) -> dict[str, Any]:
        conf = consumer_conf(self.cfg)
        conf.update({"error_cb": self._on_error, "logger": rdkafka_log})
        if self.cfg.statistics_interval_ms > 0:
            conf["stats_cb"] = self._on_stats
        return conf

    def _producer_conf(self) -> dict[str, Any]:
        conf = producer_conf(self.cfg)
        conf.update({"error_cb": self._on_error, "logger": rdkafka_log})
        return conf

    # --- everything below runs on the Kafka thread ---------------------------------
    def start(self, topics: Sequence[str]) -> None:
        if self.transactional:
            self._init_transactions()
        self.consumer.subscribe(
            list(topics),
            on_assign=self._on_assign,
            on_revoke=self._on_revoke,
            on_lost=self._on_lost,
        )

    def poll(self, pause: bool, max_records: int, timeout: float) -> list[Record]:
        return self.poll_batch(pause, max_records, timeout)[0]

    def poll_batch(
        self, pause: bool, max_records: int, timeout: float
    ) -> tuple[list[Record], dict[TP, int]]:
        """Records, and the position of every live partition read after them.

        The position is the offset of the next record the consumer will return; it steps
        over transaction markers even when no record comes back (it moves while polling).
        Every record below it is in this batch or an earlier one, which is what lets the
        worker commit it once those records are finished (``ledger.advance``)."""
        self._apply_pause(pause)
        first = self.consumer.poll(timeout)
        msgs = [] if first is None else [first]
        if first is not None and max_records > 1:
            msgs.extend(self.consumer.consume(max_records - 1, 0))
        # Read here for the commit thread, which must not call into the consumer while
        # this thread is inside it (it can block until poll returns). A generation that
        # changes before the commit uses it makes the broker refuse that commit (retried).
        self._refresh_group_meta()
        return self._records(msgs), self._positions()

    def _positions(self) -> dict[TP, int]:
        if not self._live:
            return {}
        tps = self.consumer.position([TopicPartition(t, p) for t, p in self._live])
        return {(tp.topic, tp.partition): tp.offset for tp in tps if tp.offset >= 0}

    def _records(self, msgs: list[Any]) -> list[Record]:
        out: list[Record] = []
        for m in msgs:
            err = m.error()
            if err is not None:
                if err.fatal():
                    raise FatalKafkaError(f"consumer: {err}")
                if err.code() != KafkaError._PARTITION_EOF:
                    log.warning("consumer error: %s", err, extra={"stage": self.cfg.stage})
                continue
            out.append(_to_record(m))
        return out

    def _apply_pause(self, pause: bool) -> None:
        if pause:
            new = [
                tp
                for tp in self.consumer.assignment()
                if (tp.topic, tp.partition) not in self._paused
            ]
            if new:
                self.consumer.pause(new)
                self._paused.update((tp.topic, tp.partition) for tp in new)
        elif self._paused:
            tps = [TopicPartition(t, p) for (t, p) in self._paused if (t, p) in self._live]
            self._paused.clear()
            if tps:
                self.consumer.resume(tps)
                # librdkafka's broker thread notices a resume only on its next wakeup;
                # a metadata request wakes it now.
                with contextlib.suppress(KafkaException):
                    self.consumer.list_topics(tps[0].topic, timeout=2)

    def commit(self, plans: Sequence[PartitionPlan]) -> dict[TP, int]:
        """Commit what is still ours in ``plans``; returns {partition: next offset}."""
        with self._lock:
            self.producer.poll(0)  # delivery reports and errors (the error callback)
            return self._commit_locked(plans)

    def serve_producer(self) -> None:
        """Serve the producer's callbacks while there is nothing to commit."""
        with self._lock:
            self.producer.poll(0)

    def _commit_locked(self, plans: Sequence[PartitionPlan]) -> dict[TP, int]:
        offsets: dict[TP, int] = {}
        outs: list[OutRecord] = []
        for plan in plans:
            if self._live.get(plan.tp) != plan.epoch:
                continue
            floor = self._committed.get(plan.tp, -1)
            if plan.next_offset <= floor:
                continue  # another commit got there first: nothing new
            offsets[plan.tp] = plan.next_offset
            outs += [o for off, rec_outs in plan.entries if off >= floor for o in rec_outs]
        if not offsets:
            return {}
        if self.transactional or outs:
            self._commit_transaction(outs, offsets)
        else:
            self._commit_offsets(offsets)
        self._committed.update(offsets)
        self._metrics.commit("ok")
        return offsets

    def close(self) -> None:
        self._closing = True
        try:
            self.consumer.close()
        finally:
            self.watchdog.close()

    # --- callbacks (inside poll): errors and statistics ----------------------------
    def _on_error(self, err: KafkaError) -> None:
        if err.code() == KafkaError._ALL_BROKERS_DOWN:
            self._cluster = "down"
        elif err.code() == KafkaError._TRANSPORT and self._cluster == "ok":
            self._cluster = "suspect"  # a lost connection: down only if a probe fails
        level = logging.ERROR if err.fatal() else logging.WARNING
        log.log(level, "kafka: %s", err, extra={"stage": self.cfg.stage})

    def _on_stats(self, raw: str) -> None:
        # Copies, not the lock: a commit holding it may run for seconds in an outage.
        export_lag(raw, dict(self._live), dict(self._committed), self._metrics)
