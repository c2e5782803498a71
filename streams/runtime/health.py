"""Liveness and readiness of a worker, and the server that reports them.

Liveness (``health``): started, no fatal error, and the poll loop ran recently.
Readiness (``ready``): live, not draining, and every readiness check passes. A readiness
check is an async callable that returns when its service answers and raises when it
does not. The worker always checks the broker (a metadata request for its input topic,
from a small admin client of its own, so neither the consumer's thread nor a transaction
waits for it); ``factstream worker`` adds Postgres for stages with a database
(``streams.store.db.ping``). Checks run on the worker's loop when ``/readyz`` is asked,
all at once, each bounded by ``timeout_s``; an answer is reused for ``ttl_s`` so several
probes at once cost one round.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from prometheus_client import CollectorRegistry

from streams.errors import InfraError
from streams.runtime.config import WorkerConfig
from streams.runtime.metrics_http import MetricsServer

ReadyCheck = Callable[[], Awaitable[None]]
log = logging.getLogger("streams.runtime.health")
rdkafka_log = logging.getLogger("librdkafka")


class NotReady(InfraError):
    """A service a worker needs did not answer its readiness check."""


class Readiness:
    def __init__(
        self, checks: Mapping[str, ReadyCheck], *, timeout_s: float = 3.0, ttl_s: float = 2.0
    ) -> None:
        self._checks = dict(checks)
        self._timeout_s = timeout_s
        self._ttl_s = ttl_s
        self._last: tuple[float, bool, str] | None = None
        self._lock: asyncio.Lock | None = None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._checks)

    async def check(self) -> tuple[bool, str]:
        """(ready, "ok" or what failed), at most ``ttl_s`` old."""
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._last[0] < self._ttl_s:
                return self._last[1], self._last[2]
            results = await asyncio.gather(
                *(self._one(name, fn) for name, fn in self._checks.items())
            )
            failed = [why for why in results if why is not None]
            ok, why = not failed, "; ".join(failed) or "ok"
            self._last = (time.monotonic(), ok, why)
            return ok, why

    async def _one(self, name: str, fn: ReadyCheck) -> str | None:
        try:
            async with asyncio.timeout(self._timeout_s):
                await fn()
        except TimeoutError:
            return f"{name}: no answer within {self._timeout_s:g}s"
        except Exception as exc:
            return f"{name}: {exc}"
        return None


def kafka_check(conf: Mapping[str, Any], topic: str, timeout_s: float = 2.5) -> ReadyCheck:
    """Ready when the cluster answers a metadata request for ``topic``."""
    admin: AdminClient | None = None

    async def check() -> None:
        nonlocal admin
        if admin is None:
            admin = AdminClient(
                {**conf, "allow.auto.create.topics": False, "log_level": 5},
                logger=rdkafka_log,
            )
        client = admin
        try:
            await asyncio.to_thread(client.list_topics, topic, timeout=timeout_s)
        except KafkaException as exc:
            raise NotReady(f"broker unreachable ({exc.args[0] if exc.args else exc})") from exc

    return check


class HealthSide:
    """Liveness, readiness and their HTTP server for Worker, which sets these up."""

    cfg: WorkerConfig
    started: asyncio.Event
    metrics_port: int | None
    _fatal: BaseException | None
    _last_poll: float
    _stop: asyncio.Event
    _loop: asyncio.AbstractEventLoop | None
    _readiness: Readiness

    def health(self) -> tuple[bool, str]:
        if self._fatal is not None:
            return False, f"fatal: {self._fatal!r}"
        if not self.started.is_set():
            return False, "starting"
        stale = time.monotonic() - self._last_poll
        if stale > max(10.0, self.cfg.max_poll_interval_ms / 2000):
            return False, f"no poll for {stale:.0f}s"
        return True, "ok"

    def ready(self, timeout_s: float = 5.0) -> tuple[bool, str]:
        """Readiness, from any thread (the HTTP server's): live, not draining, and the
        services it needs answer (checked on the worker's loop)."""
        ok, why = self.health()
        if not ok:
            return ok, why
        if self._stop.is_set():
            return False, "draining"
        assert self._loop is not None
        fut = asyncio.run_coroutine_threadsafe(self._readiness.check(), self._loop)
        try:
            return fut.result(timeout_s)
        except TimeoutError:
            fut.cancel()
            return False, f"readiness checks took longer than {timeout_s:g}s"

    def _serve_http(self, registry: CollectorRegistry) -> MetricsServer | None:
        """Start the metrics and health server when a port is configured."""
        if not self.cfg.metrics_port:
            return None
        server = MetricsServer(
            registry, self.health, self.cfg.metrics_port, self.cfg.metrics_host, ready=self.ready
        )
        self.metrics_port = server.start().port
        return server
