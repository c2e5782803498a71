"""The producing half of KafkaIO: committing held outputs with their offsets.

A commit with outputs is one transaction (begin, produce, send the consumed offsets,
commit), on a producer replaced after an outage; a sink's commit without outputs is the
consumer's own offset commit. Runs on KafkaIO's commit thread (a sink's, whose offset
commit is the consumer's, on its poll thread).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

from streams.errors import InfraError, TransientError
from streams.runtime.config import WorkerConfig
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP, OutRecord
from streams.runtime.watchdog import Watchdog

log = logging.getLogger("streams.runtime.kafka")
T = TypeVar("T")
# Each transactional call's own timeout (see WorkerConfig.kafka_txn_watchdog_s).
TXN_TIMEOUT_S = 30.0


class FatalKafkaError(InfraError, RuntimeError):
    """The client cannot go on (fenced producer, fatal consumer error): exit and restart."""


class CommitFailed(TransientError, RuntimeError):
    """A commit did not happen (aborted); the held work stays and is tried again."""


class ProducerSide:
    """Commits for KafkaIO, which sets these attributes up."""

    cfg: WorkerConfig
    transactional: bool
    consumer: Consumer
    producer: Producer
    watchdog: Watchdog
    _metrics: WorkerMetrics
    # The consumer's group metadata, read on the poll thread after every poll.
    _group_meta: Any
    # "ok", "suspect" or "down", from the error callback: _fresh_producer_after_outage.
    _cluster: str

    def _producer_conf(self) -> dict[str, Any]:
        raise NotImplementedError

    # Whether the producer has called init_transactions: a Kafka-to-Kafka worker's does at
    # start; a sink's before its first outputs, so a sink that never holds any needs no
    # broker for them (nor a transaction coordinator at start).
    _transactions_ready = False

    def _init_transactions(self) -> None:
        self._retrying(self.producer.init_transactions, TXN_TIMEOUT_S)
        self._transactions_ready = True

    def _commit_transaction(self, outs: list[OutRecord], offsets: dict[TP, int]) -> None:
        self._fresh_producer_after_outage()
        if not self._transactions_ready:
            try:
                self._init_transactions()
            except KafkaException as exc:
                self._metrics.commit("failed")
                raise CommitFailed(f"init_transactions failed: {exc}") from exc
        p = self.producer
        try:
            self._retrying(p.begin_transaction)
            for o in outs:
                self._produce(o)
            tps = [TopicPartition(t, part, off) for (t, part), off in offsets.items()]
            self._retrying(p.send_offsets_to_transaction, tps, self._group_meta, TXN_TIMEOUT_S)
            self._retrying(p.commit_transaction, TXN_TIMEOUT_S)
        except (KafkaException, BufferError) as exc:
            self._metrics.commit("aborted")
            try:
                with self.watchdog.watch("abort_transaction"):
                    p.abort_transaction(TXN_TIMEOUT_S)
            except KafkaException as abort_exc:
                raise FatalKafkaError(f"abort failed: {abort_exc}") from exc
            raise CommitFailed(f"transaction aborted: {exc}") from exc

    def _fresh_producer_after_outage(self) -> None:
        """After the cluster was unreachable, start the next transaction on a new producer.

        Every chaos drill's broker restart left some workers hung in
        ``send_offsets_to_transaction`` (confluentinc/librdkafka#5456: the call ignores its
        timeout; #5511: it waits on a group coordinator the client dropped, and is never
        woken). The state is inside the old client, so a new one (same transactional.id;
        init_transactions between transactions fences nobody but ourselves) starts clean.
        The cluster is "down" when the client says every broker is, or when a lost
        connection ("suspect") is followed by a metadata probe that fails; while it is, no
        transaction starts: the commit fails and is retried, its work kept. A lost
        connection the cluster answers for at once (an idle disconnect) changes nothing."""
        if self._cluster == "ok":
            return
        try:
            self.producer.list_topics(timeout=2)
        except KafkaException as exc:
            self._cluster = "down"
            raise CommitFailed(f"cluster unreachable: {exc}") from exc
        if self._cluster == "suspect":
            self._cluster = "ok"
            return
        with self.watchdog.watch("replace_producer"):
            old, self.producer = self.producer, Producer(self._producer_conf())
            del old  # destroyed here: it holds no transaction
        self._transactions_ready = False
        self._init_transactions()
        self._cluster = "ok"
        log.warning(
            "new transactional producer after the cluster was unreachable",
            extra={"stage": self.cfg.stage},
        )

    def _commit_offsets(self, offsets: dict[TP, int]) -> None:
        """A sink's commit with no outputs: the consumer's own offset commit."""
        tps = [TopicPartition(t, part, off) for (t, part), off in offsets.items()]
        try:
            result = self.consumer.commit(offsets=tps, asynchronous=False) or []
        except KafkaException as exc:
            self._metrics.commit("failed")
            raise CommitFailed(f"offset commit failed: {exc}") from exc
        bad = [tp for tp in result if tp.error is not None]
        if bad:
            self._metrics.commit("failed")
            raise CommitFailed(f"offset commit failed: {bad[0].error}")

    def _produce(self, o: OutRecord) -> None:
        while True:
            try:
                self.producer.produce(
                    o.topic,
                    value=o.value,
                    key=o.key,
                    headers=list(o.headers) or None,
                )
                self._metrics.produced(o.topic, _size(o))
                return
            except BufferError:
                self.producer.poll(0.05)

    def _retrying(self, fn: Callable[..., T], *args: Any) -> T:
        """A transactional call, watched, retried on a retriable error (3 tries)."""
        for attempt in range(3):
            try:
                with self.watchdog.watch(getattr(fn, "__name__", "transactional call")):
                    return fn(*args)
            except KafkaException as exc:
                err = exc.args[0]
                if isinstance(err, KafkaError) and err.fatal():
                    raise FatalKafkaError(f"producer: {err}") from exc
                retriable = isinstance(err, KafkaError) and err.retriable()
                if not retriable or err.txn_requires_abort() or attempt == 2:
                    raise
        raise AssertionError("unreachable")


def _size(o: OutRecord) -> int:
    headers = sum(len(k) + len(v or b"") for k, v in o.headers)
    return len(o.value or b"") + len(o.key or b"") + headers
