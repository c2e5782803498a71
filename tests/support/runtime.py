"""Kafka helpers for the runtime's integration and e2e tests (real broker, no mocks)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from streams.runtime.config import WorkerConfig
from streams.runtime.records import TP, PartitionPlan
from streams.runtime.worker import Worker
from streams.settings import Settings
from streams.store.databases import drop_database
from tests.support.db import create_fresh_database

REPO = Path(__file__).resolve().parents[2]
PASSTHROUGH = "tests.support.stages:create_passthrough"
SINK = "tests.support.stages:create_sink"


def new_prefix() -> str:
    return f"t{uuid.uuid4().hex[:8]}."


def create_topics(bootstrap: str, names: Sequence[str], partitions: int = 4) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(n, partitions, 1) for n in names])
    for f in futures.values():
        f.result(30)
    deadline = time.time() + 30
    while time.time() < deadline:  # wait until metadata shows every partition with a leader
        md = admin.list_topics(timeout=10).topics
        if all(n in md and len(md[n].partitions) == partitions for n in names):
            return
        time.sleep(0.1)


def delete_topics(bootstrap: str, names: Sequence[str]) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.delete_topics(list(names)).values():
        with suppress(Exception):
            f.result(30)


def event(tenant: str, seq: int, **extra: Any) -> bytes:
    dataset, project = tenant.split(":")
    return json.dumps({"dataset": dataset, "project_id": project, "seq": seq, **extra}).encode()


def produce(bootstrap: str, topic: str, items: Iterable[tuple[bytes | None, bytes]]) -> None:
    p = Producer(
        {
            "bootstrap.servers": bootstrap,
            "partitioner": "murmur2_random",
            "enable.idempotence": True,
        }
    )
    for key, value in items:
        p.produce(topic, value=value, key=key)
        p.poll(0)
    assert p.flush(30) == 0


@dataclass
class Out:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: dict[str, bytes]
    timestamp_ms: int = 0  # the broker's CreateTime: when the producer sent it

    def json(self) -> Any:
        return json.loads(self.value or b"null")


def read_to_end(bootstrap: str, topics: Sequence[str], timeout: float = 60.0) -> list[Out]:
    """Everything committed on ``topics`` (read_committed), up to each partition's end."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:8]}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    try:
        md = c.list_topics(timeout=10).topics
        tps = [TopicPartition(t, p, OFFSET_BEGINNING) for t in topics for p in md[t].partitions]
        c.assign(tps)
        out: list[Out] = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            msgs = c.consume(1000, 0.3)
            for m in msgs:
                if m.error() is None:
                    out.append(
                        Out(
                            m.topic(),
                            m.partition(),
                            m.offset(),
                            m.key(),
                            m.value(),
                            {k: v for k, v in (m.headers() or [])},
                            m.timestamp()[1],
                        )
                    )
            if msgs:
                continue
            positions = c.position([TopicPartition(t.topic, t.partition) for t in tps])
            done = True
            for pos in positions:
                _, high = c.get_watermark_offsets(pos, timeout=10)
                if high > 0 and pos.offset < high:
                    done = False
            if done:
                return out
        raise TimeoutError(f"did not reach the end of {topics} in {timeout}s ({len(out)} read)")
    finally:
        c.close()


def wait_for_count(bootstrap: str, topic: str, count: int, timeout: float) -> list[Out]:
    """Poll read_to_end until at least ``count`` records are committed on ``topic``."""
    deadline = time.time() + timeout
    got: list[Out] = []
    while time.time() < deadline:
        try:
            got = read_to_end(bootstrap, [topic], timeout=max(5.0, deadline - time.time()))
        except TimeoutError:
            continue
        if len(got) >= count:
            return got
        time.sleep(0.5)
    raise TimeoutError(f"{len(got)} of {count} records on {topic} after {timeout}s")


@asynccontextmanager
async def running(worker: Worker, start_timeout: float = 30.0) -> AsyncIterator[Worker]:
    """Run an in-process worker; stop it (drain) on exit and check it exited cleanly."""
    task = asyncio.create_task(worker.run())
    started = asyncio.create_task(worker.started.wait())
    await asyncio.wait([task, started], timeout=start_timeout, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        raise AssertionError(f"worker exited early: {task.result()}")
    try:
        yield worker
    finally:
        worker.stop()
        code = await stopped_within(task, 60)
        assert code == 0, f"worker exit code {code}"


async def stopped_within(task: asyncio.Task[int], timeout: float) -> int:
    """The exit code of a stopping worker's task; past ``timeout``, an AssertionError that
    carries every thread's stack and the loop's tasks (where a shutdown hangs)."""
    done, _ = await asyncio.wait([task], timeout=timeout)
    if done:
        return task.result()
    frames = sys._current_frames()
    stacks = [
        f"--- thread {t.name}:\n" + "".join(traceback.format_stack(frames[t.ident]))
        for t in threading.enumerate()
        if t.ident in frames
    ]
    tasks = [f"--- task {t.get_name()}: {t.get_stack(limit=8)}" for t in asyncio.all_tasks()]
    task.cancel()
    raise AssertionError(
        f"worker still stopping after {timeout:.0f}s\n" + "\n".join(stacks + tasks)
    )


async def eventually(pred: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def worker_env(bootstrap: str, prefix: str, **extra: Any) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("FACTSTREAM_") and k != "DATABASE_URL"
    }
    env.update(
        {
            "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": bootstrap,
            "FACTSTREAM_TOPIC_PREFIX": prefix,
            "FACTSTREAM_COMMIT_INTERVAL_MS": "100",
            "FACTSTREAM_SESSION_TIMEOUT_MS": "6000",
            "FACTSTREAM_MAX_POLL_INTERVAL_MS": "10000",
            "FACTSTREAM_SHUTDOWN_DEADLINE_S": "15",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


class WorkerProc:
    """A real worker OS process (``python -m streams.cli.worker``), logs to a file."""

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        *,
        group: str,
        instance_id: str | None = None,
        factory: str = PASSTHROUGH,
        stage: str = "passthrough",
        concurrency: int = 8,
    ) -> None:
        self.env = env
        self.log_path = log_path
        self.args = [
            sys.executable,
            "-m",
            "streams.cli.worker",
            stage,
            "--stage-factory",
            factory,
            "--group",
            group,
            "--concurrency",
            str(concurrency),
        ]
        if instance_id:
            self.args += ["--instance-id", instance_id]
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_start = 0

    def start(self) -> WorkerProc:
        self._log_start = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                self.args, env=self.env, cwd=REPO, stdout=log, stderr=subprocess.STDOUT
            )
        return self

    def log(self, whole: bool = False) -> str:
        text = self.log_path.read_bytes()
        return (
            text.decode("utf-8", "replace")
            if whole
            else text[self._log_start :].decode("utf-8", "replace")
        )

    def wait_log(self, needle: str, timeout: float = 30.0) -> None:
        deadline = time.time() + timeout
        while needle not in self.log():
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited ({self.proc.returncode}):\n{self.log()}")
            if time.time() > deadline:
                raise AssertionError(f"no {needle!r} in worker log:\n{self.log()[-3000:]}")
            time.sleep(0.05)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        self.wait(10)

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout)

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM (SIGCONT first, in case it is stopped), then SIGKILL after ``timeout``."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGCONT)
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait(10)


class Feeder(threading.Thread):
    """Produces ``total`` passthrough events over ``keys`` tenants at ``rate`` per second."""

    def __init__(
        self, bootstrap: str, topic: str, total: int, rate: float, keys: int = 30, **extra: Any
    ) -> None:
        super().__init__(daemon=True)
        self.bootstrap, self.topic, self.total, self.rate = bootstrap, topic, total, rate
        self.keys, self.extra = keys, extra

    def run(self) -> None:
        p = Producer(
            {
                "bootstrap.servers": self.bootstrap,
                "partitioner": "murmur2_random",
                "enable.idempotence": True,
                "linger.ms": 5,
            }
        )
        start = time.monotonic()
        for i in range(self.total):
            tenant = f"ds{i % self.keys}:p"
            p.produce(self.topic, value=event(tenant, i, **self.extra), key=tenant.encode())
            p.poll(0)
            ahead = start + (i + 1) / self.rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
        assert p.flush(30) == 0


def assert_exactly_once_in_key_order(outs: Sequence[Out], total: int) -> None:
    seqs = [o.json()["seq"] for o in outs]
    dupes = sorted({s for s in seqs if seqs.count(s) > 1})
    missing = sorted(set(range(total)) - set(seqs))
    assert not dupes and not missing, f"duplicated {dupes[:20]}, missing {missing[:20]}"
    by_key: dict[bytes | None, list[int]] = {}
    for o, s in zip(outs, seqs, strict=True):
        by_key.setdefault(o.key, []).append(s)
    for key, got in by_key.items():
        assert got == sorted(got), f"key {key!r} out of order: {got}"


async def fresh_database(server_url: str) -> tuple[str, Callable[[], Any]]:
    """An empty database rt_<hex> (no migrations); returns its URL and an async dropper."""
    url = await create_fresh_database(server_url, None, prefix="rt")

    async def drop() -> None:
        await drop_database(server_url, url)

    return url, drop


class RecordingHooks:
    """KafkaIO's rebalance hooks for tests that drive KafkaIO directly: remember the
    epoch of every assigned partition, forget revoked and lost ones, commit nothing."""

    def __init__(self) -> None:
        self.epochs: dict[TP, int] = {}

    def assigned(self, parts: Sequence[tuple[TP, int]]) -> None:
        self.epochs.update(parts)

    def revoked(self, tps: Sequence[TP]) -> Sequence[PartitionPlan]:
        for tp in tps:
            self.epochs.pop(tp, None)
        return []

    def lost(self, tps: Sequence[TP]) -> None:
        self.revoked(tps)


def runtime_settings(bootstrap: str, prefix: str, **overrides: Any) -> Settings:
    """Settings of a runtime test on its own topics; commits every 50 ms unless told."""
    values: dict[str, Any] = {
        "kafka_bootstrap_servers": bootstrap, "topic_prefix": prefix, "commit_interval_ms": 50,
    }  # fmt: skip
    return Settings(**{**values, **overrides})


def raw_worker_config(bootstrap: str, prefix: str, stage: str, **overrides: Any) -> WorkerConfig:
    """A WorkerConfig for tests that drive KafkaIO directly: group ``g-<prefix>``, dead
    letters to ``<prefix>dlq``, no statistics callbacks."""
    return WorkerConfig(
        stage=stage, group=f"g-{prefix}", dlq_topic=f"{prefix}dlq",
        kafka={"bootstrap.servers": bootstrap}, **{"statistics_interval_ms": 0, **overrides},
    )  # fmt: skip
