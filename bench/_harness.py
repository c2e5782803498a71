"""The bench's edges: a fresh database, own topics, six real worker processes, sampling.

Each stage worker is its own OS process (``factstream worker <stage>``) with a metrics
port; :class:`Fleet` starts them, waits until every one holds all its partitions, scrapes
their handler-time histograms and samples CPU and RSS with psutil. bench/_probe.py's
:class:`Probe` does the same for the Postgres backends serving the bench database and for
the Kafka broker.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psutil
from prometheus_client.parser import text_string_to_metric_families

from streams.kafka import topics as topic_ops
from streams.pipeline import STAGES
from streams.settings import Settings
from streams.store import databases
from streams.store.databases import create_database, unique_name

REPO = Path(__file__).resolve().parents[1]
FACTSTREAM = Path(sys.executable).with_name("factstream")
PROVIDER = "streams.model.fakes.bench:create_models"


# --- database and topics ------------------------------------------------------------------


async def fresh_database(server_url: str, dim: int) -> str:
    return await create_database(server_url, unique_name("fs_bench"), embedding_dim=dim)


async def drop_database(server_url: str, url: str) -> None:
    await databases.drop_database(server_url, url)


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def reference_loop_ms() -> float:
    """Best of three timings of a fixed pure-Python loop: this VM's CPU speed varies by
    tens of percent over an hour, and every figure of a run moves with it."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.perf_counter() - started)
    return round(1000 * best, 1)


def make_settings(bootstrap: str, db_url: str, dim: int, partitions: int) -> Settings:
    """Settings of one scenario: own topic prefix (created here), own database."""
    settings = Settings(
        kafka_bootstrap_servers=bootstrap, database_url=db_url, embedding_dim=dim,
        topic_prefix=f"bench{uuid.uuid4().hex[:8]}.", topic_partitions=partitions,
    )  # fmt: skip
    topic_ops.create_topics(settings)
    return settings


def delete_topics(settings: Settings) -> None:
    with contextlib.suppress(Exception):
        topic_ops.delete_topics(settings, [s.name for s in topic_ops.all_topics(settings)])


# --- worker processes ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _scrape(port: int) -> dict[str, float]:
    """Samples of a worker's /metrics, ``name{labels}`` -> value (labels sorted)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}"] = float(s.value)
    return out


@dataclass
class Worker:
    stage: str
    port: int
    proc: subprocess.Popen[bytes]
    ps: psutil.Process
    peak_rss: int = 0

    def counters(self) -> dict[str, float]:
        """Records handled, handler seconds, database round trips and bytes produced per
        topic (``bytes:<topic>``) so far, from the worker's /metrics."""
        m = _scrape(self.port)
        key = f"{{stage={self.stage}}}"
        out = {
            "records": m.get(f"factstream_processing_seconds_count{key}", 0.0),
            "handler_s": m.get(f"factstream_processing_seconds_sum{key}", 0.0),
            "round_trips": m.get(f"factstream_db_round_trips_total{key}", 0.0),
            "commits": m.get(f"factstream_commits_total{{result=ok,stage={self.stage}}}", 0.0),
        }
        prefix = "factstream_produced_bytes_total{stage=" + self.stage + ",topic="
        for name, value in m.items():
            if name.startswith(prefix):
                out["bytes:" + name[len(prefix) : -1]] = value
        return out

    def cpu(self) -> float:
        t = self.ps.cpu_times()
        return float(t.user + t.system)


@dataclass
class Fleet:
    """One worker process per stage, all with the same settings and model environment."""

    settings: Settings
    log_dir: Path
    concurrency: int
    model_env: Mapping[str, str] = field(default_factory=dict)
    # Investigation only: run each worker under cProfile, one .prof file per stage here.
    profile_dir: Path | None = None
    workers: dict[str, Worker] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _sampler: threading.Thread | None = None

    def env(self) -> dict[str, str]:
        s = self.settings
        env = {k: v for k, v in os.environ.items() if not k.startswith("FACTSTREAM_")}
        env.update({
            "FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS": s.kafka_bootstrap_servers,
            "FACTSTREAM_DATABASE_URL": s.require_database_url(),
            "FACTSTREAM_TOPIC_PREFIX": s.topic_prefix,
            "FACTSTREAM_TOPIC_PARTITIONS": str(s.topic_partitions),
            "FACTSTREAM_EMBEDDING_DIM": str(s.embedding_dim),
            "FACTSTREAM_MODEL_PROVIDER": PROVIDER,
            "FACTSTREAM_LOG_LEVEL": "INFO",
            **self.model_env,
        })  # fmt: skip
        return env

    def start(self, timeout_s: float = 90.0) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        env = self.env()
        for stage in STAGES:
            port = _free_port()
            log = (self.log_dir / f"{stage}.log").open("ab")
            group = f"{self.settings.topic_prefix}{stage}"
            cmd = [str(FACTSTREAM), "worker", stage, "--concurrency", str(self.concurrency),
                   "--metrics-port", str(port), "--group", group]  # fmt: skip
            if self.profile_dir is not None:
                self.profile_dir.mkdir(parents=True, exist_ok=True)
                out = self.profile_dir / f"{stage}.prof"
                cmd = [sys.executable, "-m", "bench._cpuprofile", str(out), *cmd[1:]]
            proc = subprocess.Popen(cmd, env=env, cwd=REPO, stdout=log, stderr=log)
            self.workers[stage] = Worker(stage, port, proc, psutil.Process(proc.pid))
        self._wait_assigned(timeout_s)
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _wait_assigned(self, timeout_s: float) -> None:
        want = self.settings.topic_partitions
        deadline = time.monotonic() + timeout_s
        pending = set(self.workers)
        while pending:
            for stage in sorted(pending):
                w = self.workers[stage]
                if w.proc.poll() is not None:
                    raise RuntimeError(
                        f"{stage} worker exited ({w.proc.returncode}); "
                        f"see {self.log_dir / (stage + '.log')}"
                    )
                with contextlib.suppress(OSError):
                    got = _scrape(w.port).get(
                        f"factstream_assigned_partitions{{stage={stage}}}", 0.0
                    )
                    if got >= want:
                        pending.discard(stage)
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers not assigned after {timeout_s:.0f}s: {pending}")
            time.sleep(0.2)

    def _sample(self) -> None:
        while not self._stop.is_set():
            for w in self.workers.values():
                with contextlib.suppress(psutil.Error):
                    w.peak_rss = max(w.peak_rss, int(w.ps.memory_info().rss))
            self._stop.wait(0.25)

    def check_alive(self) -> None:
        for w in self.workers.values():
            if w.proc.poll() is not None:
                raise RuntimeError(
                    f"{w.stage} worker exited ({w.proc.returncode}); "
                    f"see {self.log_dir / (w.stage + '.log')}"
                )

    def snapshot(self) -> dict[str, dict[str, float]]:
        """Per stage: cpu seconds and the worker's counters (cumulative)."""
        out = {}
        for stage, w in self.workers.items():
            out[stage] = {"cpu_s": w.cpu(), **w.counters()}
        return out

    def peak_rss_mb(self) -> dict[str, float]:
        return {s: round(w.peak_rss / 2**20, 1) for s, w in self.workers.items()}

    def stop(self) -> dict[str, int | None]:
        self._stop.set()
        for w in self.workers.values():
            if w.proc.poll() is None:
                w.proc.send_signal(signal.SIGTERM)
        codes: dict[str, int | None] = {}
        for stage, w in self.workers.items():
            try:
                codes[stage] = w.proc.wait(45)
            except subprocess.TimeoutExpired:
                w.proc.kill()  # our own child, by its pid
                codes[stage] = w.proc.wait(10)
        return codes


def delta(after: Mapping[str, Mapping[str, float]], before: Mapping[str, Mapping[str, float]]
          ) -> dict[str, dict[str, float]]:  # fmt: skip
    return {s: {k: after[s][k] - before[s].get(k, 0.0) for k in after[s]} for s in after}
