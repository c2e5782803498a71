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

With the table of migration 001 the watermark is one offset per (group, topic, partition),
which is only sound when a partition is applied in offset order: the runtime therefore
runs sink stages with one lane per partition (``WorkerConfig.lane_by``) unless the stage
sets ``lane_by = "key"`` and keeps per-tenant marks (``tenant=``, migration 004).
"""

from __future__ import annotations

from typing import Any

CREATE_TABLE = """
CREATE TABLE IF NOT EXISTS consumed_offsets (
    consumer_group  text        NOT NULL,
    topic           text        NOT NULL,
    partition       integer     NOT NULL,
    last_offset     bigint      NOT NULL,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, topic, partition)
)
"""

_HAS_TENANT = """
SELECT EXISTS (
    SELECT 1 FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = 'consumed_offsets'
      AND column_name = 'tenant'
)
"""


def _sql(per_tenant: bool) -> tuple[str, str, str]:
    """(claim, select-for-update, record) for the table with or without ``tenant``."""
    cols = "consumer_group, topic, partition" + (", tenant" if per_tenant else "")
    vals = "$1, $2, $3" + (", $5" if per_tenant else "")
    where = "consumer_group = $1 AND topic = $2 AND partition = $3" + (
        " AND tenant = $4" if per_tenant else "")
    insert = (
        f"INSERT INTO consumed_offsets AS c ({cols}, last_offset, updated_at)"
        f" VALUES ({vals}, $4, now()) ON CONFLICT ({cols}) DO UPDATE SET "
    )
    claim = (insert + "last_offset = EXCLUDED.last_offset, updated_at = now()"
             " WHERE c.last_offset < EXCLUDED.last_offset RETURNING 1")
    record = insert + (
        "last_offset = GREATEST(c.last_offset, EXCLUDED.last_offset), updated_at = now()")
    select = f"SELECT last_offset FROM consumed_offsets WHERE {where} FOR UPDATE"
    return claim, select, record


class ConsumedOffsets:
    """asyncpg helpers over ``consumed_offsets`` (migrations create the table).

    Works with the table of migration 001 (one mark per group/topic/partition) and with
    the per-tenant mark of migration 004 (extra ``tenant`` column in the key), detected
    once. Pass ``tenant`` (the record key) whenever records of one partition may be
    applied out of offset order, i.e. with per-key lanes; see the module docstring.
    """

    def __init__(self, per_tenant: bool | None = None) -> None:
        self._per_tenant = per_tenant

    async def _statements(self, conn: Any) -> tuple[bool, tuple[str, str, str]]:
        if self._per_tenant is None:
            self._per_tenant = bool(await conn.fetchval(_HAS_TENANT))
        return self._per_tenant, _sql(self._per_tenant)

    async def _args(
        self, conn: Any, which: int, group: str, topic: str, partition: int, offset: int,
        tenant: str | None,
    ) -> tuple[str, list[Any]]:
        per_tenant, sql = await self._statements(conn)
        args: list[Any] = [group, topic, partition]
        if which == 1:  # select: $4 is the tenant
            return sql[1], args + ([tenant or ""] if per_tenant else [])
        return sql[which], args + [offset] + ([tenant or ""] if per_tenant else [])

    async def claim(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None = None,
    ) -> bool:
        """Record ``offset`` as applied; False when it (or a later one) already was."""
        sql, args = await self._args(conn, 0, group, topic, partition, offset, tenant)
        return await conn.fetchval(sql, *args) is not None

    async def already_applied(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None = None,
    ) -> bool:
        sql, args = await self._args(conn, 1, group, topic, partition, offset, tenant)
        last = await conn.fetchval(sql, *args)
        return last is not None and int(last) >= offset

    async def record(
        self, conn: Any, group: str, topic: str, partition: int, offset: int,
        *, tenant: str | None = None,
    ) -> None:
        sql, args = await self._args(conn, 2, group, topic, partition, offset, tenant)
        await conn.execute(sql, *args)
