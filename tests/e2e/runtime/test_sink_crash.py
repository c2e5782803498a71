"""Postgres-sink mode: a crash after the DB commit, before the Kafka commit, applies once."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest

from streams.store.migrate import migrate
from tests.support.runtime import (
    SINK,
    WorkerProc,
    event,
    fresh_database,
    produce,
    worker_env,
)
from tests.support.stages import SINK_TABLE

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]


async def test_crash_between_db_commit_and_kafka_commit_leaves_one_effect(
    kafka_bootstrap: str, database_url: str, topics: Callable[..., str], tmp_path: Path
) -> None:
    prefix = topics("runtime.in", "dlq.sink", partitions=3)
    url, drop = await fresh_database(database_url)
    try:
        await migrate(url, 16)  # consumed_offsets, and pgvector for the worker's pool codec
        conn = await asyncpg.connect(url)
        await conn.execute(SINK_TABLE)
        total, crash_seq = 60, 20
        items = [
            (f"ds{i % 6}:p".encode(), event(f"ds{i % 6}:p", i, delay_ms=20)) for i in range(total)
        ]
        produce(kafka_bootstrap, f"{prefix}runtime.in", items)
        env = worker_env(
            kafka_bootstrap,
            prefix,
            FACTSTREAM_DATABASE_URL=url,
            FACTSTREAM_EMBEDDING_DIM=16,  # as migrated above: a worker refuses another size
            FACTSTREAM_TEST_CRASH_AFTER_COMMIT_SEQ=crash_seq,
            FACTSTREAM_TEST_CRASH_MARKER=tmp_path / "crashed",
            FACTSTREAM_COMMIT_INTERVAL_MS=1000,
        )
        group = f"g-{prefix}"
        first = WorkerProc(
            env, tmp_path / "first.log", group=group, factory=SINK, stage="sink", concurrency=4
        ).start()
        rc = await asyncio.to_thread(first.wait, 60)
        assert rc == 17, first.log()[-2000:]  # os._exit right after the DB commit
        crashed_row = await conn.fetchrow(
            "SELECT src_offset FROM runtime_sink_effects WHERE run = $1 AND seq = $2",
            prefix,
            crash_seq,
        )
        assert crashed_row is not None  # the effect was committed before the crash

        second = WorkerProc(
            env, tmp_path / "second.log", group=group, factory=SINK, stage="sink", concurrency=4
        ).start()
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                n = await conn.fetchval(
                    "SELECT count(DISTINCT seq) FROM runtime_sink_effects WHERE run = $1", prefix
                )
                if n == total:
                    break
                await asyncio.sleep(0.3)
            await asyncio.sleep(1.0)
            assert await asyncio.to_thread(second.stop) == 0
        finally:
            second.stop()
        rows = await conn.fetch(
            "SELECT tenant, seq FROM runtime_sink_effects WHERE run = $1", prefix
        )
        counts = Counter(r["seq"] for r in rows)
        assert sorted(counts) == list(range(total)) and max(counts.values()) == 1, counts
        # the crashed record was redelivered (no Kafka commit) and recognised as applied
        assert "already applied" in second.log()
        assert f'"offset": {crashed_row["src_offset"]}' in second.log()
        await conn.close()
    finally:
        await drop()
