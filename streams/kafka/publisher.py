"""Publish EpisodeCompleted events from an application.

Every event is keyed by its tenant (``"<dataset>:<project_id>"``), so one tenant's
episodes land in one partition and are processed in order. The producer is idempotent
(``enable.idempotence``, ``acks=all``): a retried send never duplicates or reorders a
record, and it places keys with ``murmur2_random``, as Java clients do.

    from streams.kafka.publisher import Publisher
    from streams.settings import load_settings

    with Publisher(load_settings()) as publisher:   # flushes and closes on exit
        publisher.publish(event)                     # returns at once; delivery is async
        publisher.flush()                            # waits; raises PublishError on failure

From asyncio code, use :class:`AsyncPublisher`, whose ``publish`` awaits the delivery.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from streams.errors import FactstreamError
from streams.events import EpisodeCompleted
from streams.kafka.client import KafkaUnreachable, producer_config
from streams.settings import Settings

Headers = Sequence[tuple[str, bytes]]


@dataclass(frozen=True)
class Delivery:
    """Where one published event landed."""

    tenant: str
    event_id: str
    topic: str
    partition: int
    offset: int


@dataclass(frozen=True)
class FailedDelivery:
    tenant: str
    event_id: str
    error: str


class PublishError(FactstreamError, RuntimeError):
    """Some events were not delivered (broker unreachable, topic missing, timeout)."""

    def __init__(self, failed: Sequence[FailedDelivery], undelivered: int = 0) -> None:
        self.failed = list(failed)
        self.undelivered = undelivered
        parts = [f"{f.tenant} {f.event_id}: {f.error}" for f in self.failed[:5]]
        if undelivered:
            parts.append(f"{undelivered} still queued after the flush timeout")
        count = len(self.failed) + undelivered
        super().__init__(f"{count} events not delivered: " + "; ".join(parts))


OnDelivery = Callable[[Delivery | FailedDelivery], None]


class Publisher:
    """A synchronous, thread-safe publisher of EpisodeCompleted events.

    ``publish`` only enqueues; call ``flush`` (or leave the ``with`` block) to wait for
    the broker. Failures are collected and raised by ``flush`` as :class:`PublishError`.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        topic: str | None = None,
        on_delivery: OnDelivery | None = None,
        config: dict[str, Any] | None = None,
    ) -> None:
        self.topic = topic or settings.topic("episodes.completed")
        self._bootstrap = settings.kafka_bootstrap_servers
        self._producer = Producer(producer_config(settings, **(config or {})))
        self._on_delivery = on_delivery
        self._failed: list[FailedDelivery] = []
        self.delivered_count = 0

    def publish(
        self,
        event: EpisodeCompleted,
        *,
        headers: Headers | None = None,
        on_delivery: OnDelivery | None = None,
    ) -> None:
        """Enqueue one event, keyed by its tenant; blocks only while the queue is full.

        A failed delivery is raised by the next ``flush``, unless ``on_delivery`` is given
        for this call: then that callback alone receives the failure.
        """
        value = event.model_dump_json().encode()
        tenant, event_id = event.tenant, event.event_id
        callbacks = [cb for cb in (self._on_delivery, on_delivery) if cb is not None]

        def delivered(err: KafkaError | None, msg: Message) -> None:
            result: Delivery | FailedDelivery
            if err is not None:
                result = FailedDelivery(tenant, event_id, str(err))
                if on_delivery is None:  # a per-call callback owns its failure
                    self._failed.append(result)
            else:
                self.delivered_count += 1
                partition, offset = msg.partition(), msg.offset()
                result = Delivery(
                    tenant,
                    event_id,
                    msg.topic() or self.topic,
                    -1 if partition is None else partition,
                    -1 if offset is None else offset,
                )
            for callback in callbacks:
                callback(result)

        while True:
            try:
                self._producer.produce(
                    self.topic,
                    key=tenant.encode(),
                    value=value,
                    headers=list(headers) if headers else None,
                    on_delivery=delivered,
                )
                break
            except BufferError:
                # Local queue full: serve delivery reports to make room, then retry.
                self._producer.poll(0.1)
        self._producer.poll(0)

    def connect(self, timeout_s: float = 10.0) -> None:
        """Wait until the broker answers for the topic; raise KafkaUnreachable if it does not.

        Optional: without it the first ``publish`` waits for the connection instead. A
        latency measurement, or a service checking its broker at start-up, calls it first.
        """
        try:
            answered = bool(self._producer.list_topics(self.topic, timeout=timeout_s).brokers)
            reason = f"no answer within {timeout_s:g} s"
        except KafkaException as exc:
            err = exc.args[0] if exc.args else exc
            answered, reason = False, err.str() if isinstance(err, KafkaError) else str(err)
        if not answered:
            raise KafkaUnreachable(self._bootstrap, reason)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every enqueued event is delivered; raise PublishError if any failed."""
        remaining = self._producer.flush(timeout)
        failed, self._failed = self._failed, []
        if failed or remaining:
            raise PublishError(failed, remaining)

    def poll(self, timeout: float = 0.0) -> None:
        """Serve delivery callbacks (``publish`` does this too)."""
        self._producer.poll(timeout)

    def close(self, timeout: float = 30.0) -> None:
        self.flush(timeout)

    def __enter__(self) -> Publisher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            # Already failing: still try to deliver what was queued, keep the first error.
            with contextlib.suppress(PublishError):
                self.close()


class AsyncPublisher:
    """asyncio flavour: ``await publisher.publish(event)`` returns the Delivery.

    Delivery reports are served by a background task polling the producer in a worker
    thread; each resolves its future on the event loop.
    """

    def __init__(self, settings: Settings, *, topic: str | None = None) -> None:
        self._inner = Publisher(settings, topic=topic)
        self.topic = self._inner.topic
        self._poller: asyncio.Task[None] | None = None
        self._closing = False

    async def publish(self, event: EpisodeCompleted, *, headers: Headers | None = None) -> Delivery:
        loop = asyncio.get_running_loop()
        if self._poller is None:
            self._poller = loop.create_task(self._poll_forever())
        future: asyncio.Future[Delivery] = loop.create_future()

        def resolve(result: Delivery | FailedDelivery) -> None:
            def settle() -> None:
                if future.done():
                    return
                if isinstance(result, Delivery):
                    future.set_result(result)
                else:
                    future.set_exception(PublishError([result]))

            loop.call_soon_threadsafe(settle)

        self._inner.publish(event, headers=headers, on_delivery=resolve)
        return await future

    async def _poll_forever(self) -> None:
        while not self._closing:
            await asyncio.to_thread(self._inner.poll, 0.1)

    async def close(self, timeout: float = 30.0) -> None:
        self._closing = True
        if self._poller is not None:
            await self._poller
        await asyncio.to_thread(self._inner.close, timeout)

    async def __aenter__(self) -> AsyncPublisher:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


# Called once per sent record: (error text or None, "topic/partition/offset").
SentCallback = Callable[[str | None, str], None]


class RecordSender:
    """Sends records as they are (key, value, headers) through an idempotent producer:
    what `dlq redrive` puts back on a record's original topic."""

    def __init__(self, settings: Settings) -> None:
        self._producer = Producer(producer_config(settings))

    def send(
        self, topic: str, key: bytes | None, value: bytes | None, headers: Headers,
        done: SentCallback,
    ) -> None:  # fmt: skip
        def report(err: KafkaError | None, msg: Message) -> None:
            landed_at = f"{msg.topic()}/{msg.partition()}/{msg.offset()}"
            done(None if err is None else str(err), landed_at)

        self._producer.produce(
            topic, key=key, value=value, headers=list(headers), on_delivery=report
        )
        self._producer.poll(0)

    def flush(self, timeout_s: float) -> int:
        """Wait for every delivery report; returns how many records are still undelivered."""
        return int(self._producer.flush(timeout_s))
