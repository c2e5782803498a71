"""One record's life: decode, handle (with retries), encode outputs — or dead-letter.

Never raises except on cancellation: every failure becomes a dead letter, so the
partition keeps moving. A decoded event whose record key is not its tenant is dead-lettered
as ``key_mismatch`` before the handler runs (it sits on another tenant's partition, out
of its own tenant's order), and one whose record has no key as ``no_key`` (a producer
places a keyless record on any partition: out of its tenant's order just the same).
Outputs are keyed by their own event's tenant.
Transient errors (``errors.is_transient``) are retried in place
with exponential backoff and full jitter (capped at ``retry_max_s``). A record is
dead-lettered with reason ``transient_exhausted`` and its attempt count only once BOTH
``transient_max_attempts`` attempts were made AND ``transient_min_retry_s`` have passed
since the first one: six quick jittered attempts can all fall inside a 6 s Postgres
restart, a time budget rides it out. The episode ledger's sweep, or
``factstream dlq redrive``, brings a dead letter back later.

Whether an attempt is the final one is decided when it starts (``RecordContext.
final_attempt``), so the stage and the runtime agree on it. Records sleeping in a backoff
are counted (``backing_off``): a draining or revoking worker stops waiting for them and
cancels them (they are redelivered), instead of waiting out an outage.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any

from pydantic import BaseModel

from streams.backoff import Backoff
from streams.errors import PoisonError, is_transient
from streams.events import TenantEvent
from streams.runtime.codec import DecodeError, decode, encode
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import dead_letter
from streams.runtime.keys import shown_key, wrong_key
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import TP, OutRecord, Record
from streams.runtime.stage import RecordContext, Routed, Stage

log = logging.getLogger("streams.runtime.processor")


def record_fields(rec: Record, event: BaseModel | None = None) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "tenant": shown_key(rec.key),
        "topic": rec.topic,
        "partition": rec.partition,
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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stage = stage
        self._cfg = cfg
        self._metrics = metrics
        self._sleep = sleep
        self._rand = rand
        self._clock = clock
        self._active: Counter[TP] = Counter()  # records inside __call__, per partition
        self._backing_off: Counter[TP] = Counter()  # of those, asleep between attempts

    def only_backing_off(self, tps: Collection[TP] | None = None) -> bool:
        """True when every record of these partitions (all when None) being processed is
        asleep between retries: nothing would finish soon, so a drain stops waiting."""

        def count(c: Counter[TP]) -> int:
            return sum(n for tp, n in c.items() if tps is None or tp in tps)

        sleeping = count(self._backing_off)
        return sleeping > 0 and sleeping == count(self._active)

    async def __call__(self, rec: Record) -> tuple[OutRecord, ...]:
        self._active[rec.tp] += 1
        try:
            return await self._process(rec)
        finally:
            self._active[rec.tp] -= 1
            if not self._active[rec.tp]:
                del self._active[rec.tp]

    async def _backoff(self, rec: Record, delay: float) -> None:
        self._backing_off[rec.tp] += 1
        try:
            await self._sleep(delay)
        finally:
            self._backing_off[rec.tp] -= 1
            if not self._backing_off[rec.tp]:
                del self._backing_off[rec.tp]

    async def _process(self, rec: Record) -> tuple[OutRecord, ...]:
        cfg = self._cfg
        try:
            event = decode(rec.value, self._stage.input_model, cfg.max_record_bytes)
        except DecodeError as exc:
            return self._dead(rec, exc, 0, exc.reason, None)
        mismatch = wrong_key(rec.key, event)
        if mismatch is not None:
            ctx = self._context(rec, 0, final=True)
            dead = self._dead(rec, mismatch, 0, mismatch.reason, event)
            return dead + await self._after_dead_letter(rec, event, ctx, mismatch.reason, mismatch)
        started = self._clock()
        attempt = 1
        while True:
            elapsed = self._clock() - started
            final = attempt >= cfg.transient_max_attempts and elapsed >= cfg.transient_min_retry_s
            ctx = self._context(rec, attempt, final=final)
            try:
                outs = self._encode(rec, await self._stage.handle(event, ctx))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if is_transient(exc) and not final:
                    delay = Backoff(cfg.retry_base_s, cfg.retry_max_s).delay(attempt, self._rand)
                    self._metrics.retries.inc()
                    log.warning(
                        "transient failure, retrying in %.2fs (%.1fs since the first attempt): %r",
                        delay,
                        elapsed,
                        exc,
                        extra={**self._fields(rec, event), "attempt": attempt},
                    )
                    await self._backoff(rec, delay)
                    attempt += 1
                    continue
                self._metrics.processing.observe(self._clock() - started)
                reason = self._reason(exc)
                dead = self._dead(rec, exc, attempt, reason, event)
                return dead + await self._after_dead_letter(rec, event, ctx, reason, exc)
            self._metrics.processing.observe(self._clock() - started)
            self._metrics.record("ok" if attempt == 1 else "retried")
            log.debug("processed", extra={**self._fields(rec, event), "attempt": attempt})
            return outs

    def _context(self, rec: Record, attempt: int, *, final: bool) -> RecordContext:
        return RecordContext(
            group=self._cfg.group, topic=rec.topic, partition=rec.partition, offset=rec.offset,
            key=rec.key_text, timestamp_ms=rec.timestamp_ms, attempt=attempt,
            final_attempt=final, headers=rec.headers,
        )  # fmt: skip

    async def _after_dead_letter(
        self, rec: Record, event: BaseModel, ctx: RecordContext, reason: str,
        exc: BaseException,
    ) -> tuple[OutRecord, ...]:  # fmt: skip
        """The stage's ``on_dead_letter`` hook; its records go out with the dead letter.
        It must not stop the dead letter, so a failing hook is only logged."""
        try:
            error = f"{type(exc).__name__}: {exc}"
            async with asyncio.timeout(10):
                results = await self._stage.on_dead_letter(event, ctx, reason, error)
            return self._encode(rec, results)
        except asyncio.CancelledError:
            raise
        except Exception as hook_exc:
            log.warning("on_dead_letter failed: %r", hook_exc, extra=self._fields(rec, event))
            return ()

    def _encode(self, rec: Record, results: Sequence[BaseModel | Routed]) -> tuple[OutRecord, ...]:
        outs: list[OutRecord] = []
        for item in results:
            topic: str | None
            key: str | None
            headers: tuple[tuple[str, bytes], ...] = ()
            if isinstance(item, Routed):
                topic, event, key, headers = item.topic, item.event, item.key, item.headers
            else:
                topic, event, key = self._stage.output_topic, item, None
            if topic is None:
                raise TypeError(
                    f"sink stage {self._stage.name!r} returned {type(event).__name__} "
                    "without a topic (wrap it in Routed)"
                )
            if key is None:
                key = self._stage.key_of(event)
            if key is None and isinstance(event, TenantEvent):
                key = event.tenant  # the key must equal the payload's tenant
            kbytes = rec.key if key is None else key.encode("utf-8")
            value = encode(event, self._cfg.max_record_bytes)
            outs.append(OutRecord(topic, kbytes, value, headers))
        return tuple(outs)

    @staticmethod
    def _reason(exc: BaseException) -> str:
        if isinstance(exc, PoisonError):  # OutputTooLarge, KeyMismatch, the stages' own
            return exc.reason
        if is_transient(exc):
            return "transient_exhausted"
        return "handler_error"

    def _fields(self, rec: Record, event: BaseModel | None) -> dict[str, Any]:
        return {"stage": self._cfg.stage, **record_fields(rec, event)}

    def _dead(
        self, rec: Record, exc: BaseException, attempt: int, reason: str, event: BaseModel | None
    ) -> tuple[OutRecord, ...]:
        self._metrics.record("dead_lettered")
        self._metrics.dead_letter(reason)
        log.error(
            "dead-lettered (%s): %s: %s",
            reason,
            type(exc).__name__,
            str(exc)[:500],
            extra={**self._fields(rec, event), "attempt": attempt, "reason": reason},
        )
        return dead_letter(
            rec,
            exc,
            dlq_topic=self._cfg.dlq_topic,
            group=self._cfg.group,
            stage=self._cfg.stage,
            attempt=attempt,
            reason=reason,
            delivery_headers=getattr(self._stage, "delivery_headers", ()),
        )
