"""Connections: one asyncpg pool per process, with pgvector's codec registered."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, ClassVar

import asyncpg
from pgvector.asyncpg import register_vector

from streams.backoff import Backoff
from streams.errors import is_transient
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning, session_settings

log = logging.getLogger(__name__)
# Between attempts to reach Postgres at start-up: 0.5 s, 1 s, 2 s ... up to 30 s.
_START_BACKOFF = Backoff(0.5, 30.0, jitter=False)


class CountingConnection(asyncpg.Connection):  # type: ignore[misc]
    """Counts the statements it sends, each one round trip to the server (BEGIN and
    COMMIT of a transaction included). The pool's connections share one counter, read by
    :func:`round_trips` for the worker's metrics and the bench."""

    sent: ClassVar[list[int]] = [0]
    # The vector search settings the session was opened with (streams/store/vector_search.py).
    session_tuning: ClassVar[ScanTuning | None] = None

    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().execute(*args, **kwargs)

    async def executemany(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().executemany(*args, **kwargs)

    async def fetch(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().fetch(*args, **kwargs)

    async def fetchrow(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().fetchrow(*args, **kwargs)

    async def fetchval(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().fetchval(*args, **kwargs)

    async def prepare(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 2  # preparing it, then executing it
        return await super().prepare(*args, **kwargs)

    async def copy_records_to_table(self, *args: Any, **kwargs: Any) -> Any:
        self.sent[0] += 1
        return await super().copy_records_to_table(*args, **kwargs)


def round_trips(pool: Any) -> int:
    """Statements the pool's connections have sent so far (0 for a pool not made here)."""
    counting = getattr(pool, "_connection_class", None)
    return counting.sent[0] if counting is not None and hasattr(counting, "sent") else 0


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)
    await conn.set_type_codec("jsonb", encoder=json.dumps, decoder=json.loads, schema="pg_catalog")


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Release without asyncpg's default reset query.

    The default runs ``pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`` on
    every release: one more round trip per acquire, and several acquires per record in
    every stage. Pooled connections never change session state:
    settings are ``SET LOCAL`` / ``set_config(..., true)``, advisory locks are ``_xact_``
    locks, nothing LISTENs or keeps a cursor outside a transaction (the sweeper's session
    lock lives on its own connection, from ``connect``). asyncpg still rolls back a
    transaction left open before it calls this.
    """


async def create_pool(
    database_url: str, *, min_size: int = 1, max_size: int = 10,
    application_name: str | None = None,
) -> Any:  # fmt: skip
    """An asyncpg pool whose connections speak `vector` and `jsonb` natively.
    ``application_name`` names its sessions in pg_stat_activity (workers: their stage).
    Sessions open with the default vector search settings, so searches need no
    transaction of their own."""
    server_settings = session_settings()
    if application_name:
        server_settings["application_name"] = application_name
    counted = type(
        "PoolConnection", (CountingConnection,), {"sent": [0], "session_tuning": DEFAULT_TUNING}
    )
    return await asyncpg.create_pool(
        database_url, min_size=min_size, max_size=max_size, init=_init_connection,
        reset=_keep_session, server_settings=server_settings, connection_class=counted,
    )  # fmt: skip


async def wait_for_pool(
    database_url: str, *, min_size: int = 1, max_size: int = 10,
    application_name: str | None = None,
) -> Any:  # fmt: skip
    """:func:`create_pool`, waiting while Postgres cannot be reached (down, starting, no
    socket yet): one log line per attempt, with backoff, until it answers. An error that
    waiting cannot cure (a wrong password, a missing database) is raised at once."""
    attempt = 0
    while True:
        try:
            return await create_pool(
                database_url, min_size=min_size, max_size=max_size,
                application_name=application_name,
            )  # fmt: skip
        except Exception as exc:
            if not is_transient(exc):
                raise
            attempt += 1
            delay = _START_BACKOFF.delay(attempt)
            log.warning(
                "waiting for Postgres at %s (%s: %s); trying again in %.1fs",
                redact(database_url), type(exc).__name__, _first_line(exc), delay,
            )  # fmt: skip
            await asyncio.sleep(delay)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else "no message"


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    creds, _, host = rest.rpartition("@")
    user, _, password = creds.partition(":")
    return f"{scheme}://{user}:***@{host}" if password else url


async def connect(database_url: str) -> Any:
    """A single connection with the same codecs, for migrations and one-off commands."""
    conn = await asyncpg.connect(database_url)
    await _init_connection(conn)
    return conn


async def ping(pool: Any, timeout_s: float = 2.5) -> None:
    """Return when the server answers a query on one of the pool's connections (readiness);
    raises (a timeout, a connection error) when it does not."""
    async with pool.acquire(timeout=timeout_s) as conn:
        await conn.fetchval("SELECT 1", timeout=timeout_s)
