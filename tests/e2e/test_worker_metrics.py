"""A real `factstream worker` process: its /metrics carries the runtime's, the model calls'
and the database pool's metrics (valid for promtool), and /livez, /healthz and /readyz
answer."""

from __future__ import annotations

import shutil
import socket
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from streams.store.databases import drop_database
from tests.support.db import create_fresh_database
from tests.support.promtool import findings
from tests.support.runtime import WorkerProc, event, produce, worker_env

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]
TOTAL = 12


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def sample(text: str, name: str, *labels: str) -> float | None:
    """The value of the first sample ``name{...}`` whose labels include ``labels``."""
    for line in text.splitlines():
        if line.startswith(name + "{") and all(label in line for label in labels):
            return float(line.rsplit(" ", 1)[1])
    return None


async def test_a_worker_serves_model_and_pool_metrics_and_health(
    kafka_bootstrap: str, database_url: str, topics: Callable[..., str], tmp_path: Path
) -> None:
    prefix = topics("runtime.in", "dlq.model-sink", partitions=2)
    db = await create_fresh_database(database_url, prefix="metrics")
    port = free_port()
    env = worker_env(
        kafka_bootstrap, prefix,
        FACTSTREAM_DATABASE_URL=db, FACTSTREAM_METRICS_PORT=port,
        FACTSTREAM_METRICS_BIND_ADDRESS="127.0.0.1",
        FACTSTREAM_MODEL_PROVIDER="streams.model.fakes.demo:create_models",
        FACTSTREAM_EMBEDDING_DIM=16,
    )  # fmt: skip
    worker = WorkerProc(
        env, tmp_path / "worker.log", group=f"g-{prefix}", stage="model-sink",
        factory="tests.support.stages:create_model_sink",
    )  # fmt: skip
    worker.start()
    try:
        worker.wait_log("worker started")
        items = [(b"ds:m", event("ds:m", i, payload=f"text {i}")) for i in range(TOTAL)]
        produce(kafka_bootstrap, f"{prefix}runtime.in", items)
        deadline = time.monotonic() + 40
        while True:
            text = get(port, "/metrics")[1].decode()
            calls = sample(text, "factstream_model_call_seconds_count", 'kind="embed"')
            if calls == TOTAL:
                break
            assert time.monotonic() < deadline, f"{calls} embed calls measured\n{worker.log()}"
            time.sleep(0.2)
        assert sample(text, "factstream_model_call_seconds_count", 'stage="model-sink"') == TOTAL
        assert sample(text, "factstream_records_total", 'outcome="ok"') == TOTAL
        assert (sample(text, "factstream_db_pool_connections") or 0) >= 1
        size = sample(text, "factstream_db_pool_connections")
        idle = sample(text, "factstream_db_pool_idle_connections")
        in_use = sample(text, "factstream_db_pool_in_use_connections")
        assert size is not None and idle is not None and in_use == size - idle
        assert get(port, "/livez") == (200, b"ok")
        assert get(port, "/healthz") == (200, b"ok")
        assert get(port, "/readyz") == (200, b"ok")  # kafka and postgres answer
        if shutil.which("promtool"):
            assert findings(text.encode()) == []
    finally:
        code = worker.stop()
        await drop_database(database_url, db)
    assert code == 0, worker.log()[-3000:]
