"""The rebalance half of KafkaIO: the worker's hooks, and the callbacks that keep the
assignment's bookkeeping.

librdkafka runs these callbacks on KafkaIO's poll thread, inside ``poll`` (and ``close``).
Each assignment of a partition gets a new epoch; a revoked, lost or re-assigned partition
is forgotten under KafkaIO's lock, which waits for a commit in flight, so no commit plan
computed under an older epoch is ever committed (streams/runtime/kafka_io.py).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Sequence
from typing import Any, Protocol

from confluent_kafka import Consumer, KafkaException, TopicPartition

from streams.runtime.config import WorkerConfig
from streams.runtime.kafka_commit import CommitFailed
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP, PartitionPlan

log = logging.getLogger("streams.runtime.kafka")


class RebalanceHooks(Protocol):
    """The worker's side of a rebalance; called on the Kafka thread, may block on the loop."""

    def assigned(self, parts: Sequence[tuple[TP, int]]) -> None: ...
    def revoked(self, tps: Sequence[TP]) -> Sequence[PartitionPlan]: ...
    def lost(self, tps: Sequence[TP]) -> None: ...


class RebalanceCallbacks:
    """Rebalance callbacks for KafkaIO, which sets these attributes up."""

    cfg: WorkerConfig
    consumer: Consumer
    _hooks: RebalanceHooks
    _metrics: WorkerMetrics
    _lock: threading.RLock
    # Assigned partitions and the epoch of their current assignment.
    _live: dict[TP, int]
    # The next offset committed per live partition.
    _committed: dict[TP, int]
    _paused: set[TP]
    _epochs: itertools.count[int]
    # The consumer's group metadata, read on the poll thread after every poll.
    _group_meta: Any
    _closing: bool

    def commit(self, plans: Sequence[PartitionPlan]) -> dict[TP, int]:
        raise NotImplementedError

    def _on_assign(self, _consumer: Consumer, partitions: list[TopicPartition]) -> None:
        parts = []
        with self._lock:
            for tp in partitions:
                key = (tp.topic, tp.partition)
                self._live[key] = epoch = next(self._epochs)
                self._committed.pop(key, None)
                parts.append((key, epoch))
        self._metrics.assigned.set(len(self._live))
        log.info("assigned %s", sorted(k for k, _ in parts), extra={"stage": self.cfg.stage})
        self._hooks.assigned(parts)

    def _on_revoke(self, _consumer: Consumer, partitions: list[TopicPartition]) -> None:
        tps = [(tp.topic, tp.partition) for tp in partitions]
        log.info("revoked %s", sorted(tps), extra={"stage": self.cfg.stage})
        self._refresh_group_meta()  # the generation now, for the commit below
        try:
            plans = self._hooks.revoked(tps)
            if plans:
                self.commit(plans)
        except CommitFailed as exc:
            log.warning("commit on revoke failed: %s", exc, extra={"stage": self.cfg.stage})
        finally:
            self._forget(tps)

    def _refresh_group_meta(self) -> None:
        # A consumer that is closing cannot answer (asked from the revoke callback inside
        # close(), librdkafka can block for good); its last metadata then stands.
        if self._closing:
            return
        with contextlib.suppress(Exception):
            self._group_meta = self.consumer.consumer_group_metadata()

    def _on_lost(self, _consumer: Consumer, partitions: list[TopicPartition]) -> None:
        tps = [(tp.topic, tp.partition) for tp in partitions]
        log.warning("lost %s", sorted(tps), extra={"stage": self.cfg.stage})
        self._forget(tps)
        self._hooks.lost(tps)

    def _forget(self, tps: Sequence[TP]) -> None:
        # librdkafka keeps a partition's pause flag across a rebalance: one forgotten here
        # while paused would come back paused and never be read again.
        paused = [TopicPartition(*tp) for tp in tps if tp in self._paused]
        if paused:
            with contextlib.suppress(KafkaException):
                self.consumer.resume(paused)
        with self._lock:  # waits for a commit in flight: none starts for these after
            for tp in tps:
                self._live.pop(tp, None)
                self._committed.pop(tp, None)
                self._paused.discard(tp)
                self._metrics.forget_partition(*tp)
            self._metrics.assigned.set(len(self._live))
