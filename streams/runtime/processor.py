"""One record's life: decode, handle (with retries), encode outputs — or dead-letter.

Never raises except on cancellation: every failure becomes a dead letter, so the
partition keeps moving. Transient errors (``errors.is_transient``) are retried in place
with exponential backoff and full jitter; after ``transient_max_attempts`` attempts the
record is dead-lettered with reason ``transient_exhausted`` and its attempt count (the
episode ledger's sweep, or ``factstream dlq redrive``, brings it back later).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pydantic import BaseModel

from streams.errors import PoisonError, is_transient
from streams.runtime.codec import DecodeError, OutputTooLarge, decode, encode
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import dead_letter
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import OutRecord, Record
from streams.runtime.stage import RecordContext, Routed, Stage

log = logging.getLogger("streams.runtime.processor")


def full_jitter(attempt: int, base: float, cap: float, rand: Callable[[], float]) -> float:
    """AWS "full jitter": uniform in [0, min(cap, base * 2**(attempt-1)))."""
    return float(rand()) * min(cap, base * 2.0 ** (attempt - 1))


def record_fields(rec: Record, event: BaseModel | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tenant": rec.key_text, "topic": rec.topic, "partition": rec.partition,
        "offset": rec.offset,
    }
    episode = getattr(event, "episode_id", None)
    if episode is not None:
        fields["episode_id"] = str(episode)
    return fields


class RecordProcessor:
    def __init__(
        self,
        stage: Stage[Any],
        cfg: WorkerConfig,
        metrics: WorkerMetrics,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rand: Callable[[], float] = random.random,
    ) -> None:
        self._stage = stage
        self._cfg = cfg
        self._metrics = metrics
        self._sleep = sleep
        self._rand = rand
        self._key_of: Callable[[BaseModel], str | None] | None = getattr(stage, "key_of", None)

    async def __call__(self, rec: Record) -> tuple[OutRecord, ...]:
        cfg = self._cfg
        try:
            event = decode(rec.value, self._stage.input_model, cfg.max_record_bytes)
        except DecodeError as exc:
            return self._dead(rec, exc, 0, exc.reason, None)
        started = time.monotonic()
        attempt = 1
        while True:
            ctx = RecordContext(
                group=cfg.group, topic=rec.topic, partition=rec.partition, offset=rec.offset,
                key=rec.key_text, timestamp_ms=rec.timestamp_ms, attempt=attempt,
            )
            try:
                outs = self._encode(rec, await self._stage.handle(event, ctx))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_transient(exc) and attempt < cfg.transient_max_attempts:
                    delay = full_jitter(attempt, cfg.retry_base_s, cfg.retry_max_s, self._rand)
                    self._metrics.retries.inc()
                    log.warning(
                        "transient failure, retrying in %.2fs: %r", delay, exc,
                        extra={**self._fields(rec, event), "attempt": attempt},
                    )
                    await self._sleep(delay)
                    attempt += 1
                    continue
                self._metrics.processing.observe(time.monotonic() - started)
                return self._dead(rec, exc, attempt, self._reason(exc), event)
            self._metrics.processing.observe(time.monotonic() - started)
            self._metrics.record("ok" if attempt == 1 else "retried")
            log.debug("processed", extra={**self._fields(rec, event), "attempt": attempt})
            return outs

    def _encode(self, rec: Record, results: Sequence[BaseModel | Routed]) -> tuple[OutRecord, ...]:
        outs: list[OutRecord] = []
        for item in results:
            topic: str | None
            key: str | None
            if isinstance(item, Routed):
                topic, event, key = item.topic, item.event, item.key
            else:
                topic, event, key = self._stage.output_topic, item, None
            if topic is None:
                raise TypeError(
                    f"sink stage {self._stage.name!r} returned {type(event).__name__} "
                    "without a topic (wrap it in Routed)"
                )
            if key is None and self._key_of is not None:
                key = self._key_of(event)
            kbytes = rec.key if key is None else key.encode("utf-8")
            outs.append(OutRecord(topic, kbytes, encode(event, self._cfg.max_record_bytes)))
        return tuple(outs)

    @staticmethod
    def _reason(exc: BaseException) -> str:
        if isinstance(exc, OutputTooLarge):
            return "output_too_large"
        if is_transient(exc):
            return "transient_exhausted"
        if isinstance(exc, PoisonError):
            return "poison"
        return "handler_error"

    def _fields(self, rec: Record, event: BaseModel | None) -> dict[str, Any]:
        return {"stage": self._cfg.stage, **record_fields(rec, event)}

    def _dead(
        self, rec: Record, exc: BaseException, attempt: int, reason: str, event: BaseModel | None
    ) -> tuple[OutRecord, ...]:
        self._metrics.record("dead_lettered")
        self._metrics.dead_letter(reason)
        log.error(
            "dead-lettered (%s): %s: %s", reason, type(exc).__name__, str(exc)[:500],
            extra={**self._fields(rec, event), "attempt": attempt, "reason": reason},
        )
        return (
            dead_letter(
                rec, exc, dlq_topic=self._cfg.dlq_topic, group=self._cfg.group,
                stage=self._cfg.stage, attempt=attempt, reason=reason,
            ),
        )
