"""Readiness against real services: the broker and Postgres answer, or they do not (a port
where nothing listens); a worker's /readyz says which one, while /livez stays 200."""

from __future__ import annotations

import asyncio
import functools
import socket
import urllib.error
import urllib.request
from collections.abc import Callable

import asyncpg
import pytest

from streams.runtime.config import WorkerConfig
from streams.runtime.health import Readiness, kafka_check
from streams.runtime.worker import Worker
from streams.settings import Settings
from streams.store.db import create_pool, ping
from tests.support.runtime import running
from tests.support.stages import PassthroughStage

pytestmark = pytest.mark.timeout(60)
NOWHERE = "127.0.0.1:1"  # nothing listens on port 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_kafka_and_postgres_checks(kafka_bootstrap: str, database_url: str) -> None:
    pool = await create_pool(database_url, min_size=1, max_size=2)
    dead_pool = await asyncpg.create_pool("postgresql://postgres@127.0.0.1:1/x", min_size=0)
    try:
        good = Readiness(
            {
                "kafka": kafka_check({"bootstrap.servers": kafka_bootstrap}, "any-topic"),
                "postgres": functools.partial(ping, pool),
            }
        )
        assert await good.check() == (True, "ok")
        bad = Readiness(
            {
                "kafka": kafka_check({"bootstrap.servers": NOWHERE}, "t", timeout_s=0.5),
                "postgres": functools.partial(ping, dead_pool, 0.5),
            },
            timeout_s=2.0,
        )
        ok, why = await bad.check()
        assert not ok
        assert "kafka: broker unreachable" in why and "postgres: " in why, why
    finally:
        await pool.close()
        await dead_pool.close()


async def test_a_worker_is_live_but_not_ready_while_its_database_is_down(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("runtime.in", "runtime.out", "dlq.passthrough", partitions=1)
    settings = Settings(
        kafka_bootstrap_servers=kafka_bootstrap,
        topic_prefix=prefix,
        metrics_bind_address="127.0.0.1",
    )
    stage = PassthroughStage(settings.topic("runtime.in"), settings.topic("runtime.out"))
    cfg = WorkerConfig.from_settings(
        settings, stage.name, group=f"g-{prefix}", metrics_port=free_port()
    )
    dead_pool = await asyncpg.create_pool("postgresql://postgres@127.0.0.1:1/x", min_size=0)
    worker = Worker(stage, cfg, ready_checks={"postgres": functools.partial(ping, dead_pool, 0.5)})
    try:
        async with running(worker):
            # From another thread, as a kubelet asks: the checks run on the worker's loop.
            port = worker.metrics_port or 0
            assert await asyncio.to_thread(get, port, "/livez") == (200, b"ok")
            status, body = await asyncio.to_thread(get, port, "/readyz")
            assert status == 503 and body.startswith(b"postgres: "), body
    finally:
        await dead_pool.close()


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
