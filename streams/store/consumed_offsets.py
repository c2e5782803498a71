"""Exactly-once effects for Postgres-sink stages: the DB transaction records what it consumed.

Use inside the handler's own transaction, before its writes::

    async with conn.transaction():
        if not await OFFSETS.claim(conn, ctx.group, ctx.topic, ctx.partition, ctx.offset,
                                   tenant=ctx.key):
            return []                                   # redelivered: already applied
        ...  # the effects

``claim`` is one atomic statement (an upsert that only moves the watermark forward) and
keeps the row locked until commit, so two members racing on the same record (a zombie
and its successor) serialise and exactly one applies it. ``already_applied`` + ``record``
are the same in two steps for handlers that need to decide in between; ``already_applied``
locks the row FOR UPDATE, which only serialises racers once the row exists (the writer's
per-tenant advisory lock covers the rest).

The watermark is one offset per (group, topic, partition, tenant): a tenant's records are
strictly ordered in their partition while tenants of one partition may finish in any
order, so a sink may run one lane per tenant (``lane_by = "key"``).
"""

from __future__ import annotations

from typing import Any, Protocol

_KEY = "consumer_group, topic, partition, tenant"
_INSERT = (
    f"INSERT INTO consumed_offsets AS c ({_KEY}, last_offset, updated_at)"
    f" VALUES ($1, $2, $3, $5, $4, now()) ON CONFLICT ({_KEY}) DO UPDATE SET "
)
_CLAIM = (
    _INSERT + "last_offset = EXCLUDED.last_offset, updated_at = now()"
    " WHERE c.last_offset < EXCLUDED.last_offset RETURNING 1"
)
_RECORD = (
    _INSERT + "last_offset = GREATEST(c.last_offset, EXCLUDED.last_offset), updated_at = now()"
)


def claim_after(first: str, n_params: int) -> str:
    """One statement: ``first`` (a SELECT of one row with a ``now`` column, numbering its
    parameters $1..$n_params: the writer's lock) runs, then the claim of the offset given
    in the next five parameters (group, topic, partition, offset, tenant); one row back,
    ``now`` and ``claimed``. The claim's conflict check reads the newest committed row
    whatever the statement's snapshot, so it stays exact under the lock taken just before."""
    g, t, p, o, ten = (f"${n_params + i}" for i in range(1, 6))
    return (
        f"WITH first AS MATERIALIZED ({first}), claimed AS ("
        f" INSERT INTO consumed_offsets AS c ({_KEY}, last_offset, updated_at)"
        f" SELECT {g}, {t}, {p}, {ten}, {o}, now() FROM first"
        f" ON CONFLICT ({_KEY}) DO UPDATE SET last_offset = EXCLUDED.last_offset,"
        " updated_at = now() WHERE c.last_offset < EXCLUDED.last_offset RETURNING 1)"
        " SELECT first.now, EXISTS (SELECT 1 FROM claimed) AS claimed FROM first"
    )


_SELECT = (
    "SELECT last_offset FROM consumed_offsets WHERE consumer_group = $1 AND topic = $2"
    " AND partition = $3 AND tenant = $4 FOR UPDATE"
)


class ConsumedRecord(Protocol):
    """Where a consumed record came from (the runtime's RecordContext is one)."""

    @property
    def group(self) -> str: ...
    @property
    def topic(self) -> str: ...
    @property
    def partition(self) -> int: ...
    @property
    def offset(self) -> int: ...


class ConsumedOffsets:
    """asyncpg helpers over ``consumed_offsets`` (the migrations create the table)."""

    async def claim(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None,
    ) -> bool:  # fmt: skip
        """Record ``offset`` as applied; False when it (or a later one) already was."""
        claimed = await conn.fetchval(_CLAIM, group, topic, partition, offset, tenant or "")
        return claimed is not None

    async def already_applied(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None,
    ) -> bool:  # fmt: skip
        last = await conn.fetchval(_SELECT, group, topic, partition, tenant or "")
        return last is not None and int(last) >= offset

    async def record(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None,
    ) -> None:  # fmt: skip
        await conn.execute(_RECORD, group, topic, partition, offset, tenant or "")
