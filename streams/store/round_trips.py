"""Counting what a pool sends to Postgres: each statement is one round trip.

The workers export the count (``factstream_db_round_trips``) and the bench divides it by
the episodes; a pool made by streams/store/db.py counts, any other reads 0.
"""

from __future__ import annotations

from typing import Any, ClassVar

import asyncpg

from streams.store.vector_search import ScanTuning


class CountingConnection(asyncpg.Connection):  # type: ignore[misc]
    """Counts the statements it sends (BEGIN and COMMIT of a transaction included). The
    connections of one pool share a subclass, and with it one counter."""

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


def counting_class(tuning: ScanTuning) -> type[CountingConnection]:
    """The connection class of one new pool: its own counter, its sessions' tuning."""
    return type("PoolConnection", (CountingConnection,), {"sent": [0], "session_tuning": tuning})


def round_trips(pool: Any) -> int:
    """Statements the pool's connections have sent so far (0 for a pool not made here)."""
    counting = getattr(pool, "_connection_class", None)
    return counting.sent[0] if counting is not None and hasattr(counting, "sent") else 0
