"""Before a worker starts: wait for its broker and database, refuse a database it cannot use.

A broker or a Postgres that does not answer yet (a deployment coming up, a restart) is
waited for: one log line naming the address, then one per retry, 1 s growing to 30 s
apart, instead of librdkafka's stream of reconnect errors. A database that is not
migrated (exit 1) or has another vector size than FACTSTREAM_EMBEDDING_DIM (exit 2)
cannot be waited out; the worker says so in one line and exits. SIGTERM or SIGINT while
waiting ends the process at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable

from streams.backoff import Backoff
from streams.errors import is_transient
from streams.kafka.client import KafkaUnreachable, require_cluster
from streams.settings import Settings
from streams.store.db import ready_database

log = logging.getLogger("streams.cli.startup")
RETRY = Backoff(1.0, 30.0, jitter=False)
Check = Callable[[], Awaitable[None]]


def checks_of(settings: Settings) -> list[tuple[str, Check]]:
    """What a worker needs before it starts: the cluster, and its database if it has one."""

    async def kafka() -> None:
        await asyncio.to_thread(require_cluster, settings)

    checks: list[tuple[str, Check]] = [("kafka", kafka)]
    if settings.database_url is not None:
        url = settings.database_url.get_secret_value()

        async def postgres() -> None:
            await ready_database(url, embedding_dim=settings.embedding_dim)

        checks.append(("postgres", postgres))
    return checks


async def wait_until_ready(
    checks: list[tuple[str, Check]], *, backoff: Backoff = RETRY, extra: dict[str, str]
) -> bool:
    """Pass every check in turn, waiting out unreachable services. False: stopped by a
    signal while waiting. Raises what cannot be waited out (NotMigrated, ConfigError)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        for _name, check in checks:
            attempt = 0
            while True:
                try:
                    await check()
                    break
                except Exception as exc:
                    # A server going down under the check (a restart) is waited out too.
                    if not isinstance(exc, KafkaUnreachable) and not is_transient(exc):
                        raise
                    attempt += 1
                    delay = backoff.delay(attempt)
                    log.warning("waiting %.0f s: %s", delay, exc, extra=extra)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await stop.wait()
                if stop.is_set():
                    log.info("stopped while waiting", extra=extra)
                    return False
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    return True
