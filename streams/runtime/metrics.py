"""Prometheus metrics of one worker (own CollectorRegistry) and its /metrics, /healthz server."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class WorkerMetrics:
    def __init__(self, stage: str, registry: CollectorRegistry | None = None) -> None:
        self.stage = stage
        self.registry = registry or CollectorRegistry()
        r = self.registry
        self._records = Counter(
            "factstream_records",
            "Records finished, by outcome (ok, retried, dead_lettered)",
            ["stage", "outcome"],
            registry=r,
        )
        self.processing = Histogram(
            "factstream_processing_seconds",
            "Time from handler start to a record's outcome",
            ["stage"],
            buckets=_BUCKETS,
            registry=r,
        ).labels(stage)
        self.in_flight = Gauge(
            "factstream_in_flight_records",
            "Records consumed and not finished",
            ["stage"],
            registry=r,
        ).labels(stage)
        self.retries = Counter(
            "factstream_retries", "Transient handler failures retried", ["stage"], registry=r
        ).labels(stage)
        self._dead = Counter(
            "factstream_dead_letters",
            "Records sent to the dead-letter topic",
            ["stage", "reason"],
            registry=r,
        )
        self._commits = Counter(
            "factstream_commits",
            "Offset commits (transactions in Kafka-to-Kafka mode)",
            ["stage", "result"],
            registry=r,
        )
        self._lag = Gauge(
            "factstream_consumer_lag",
            "Last stable offset minus committed offset",
            ["stage", "topic", "partition"],
            registry=r,
        )
        self.assigned = Gauge(
            "factstream_assigned_partitions",
            "Partitions assigned to this worker",
            ["stage"],
            registry=r,
        ).labels(stage)
        self.paused = Gauge(
            "factstream_fetch_paused",
            "1 while fetching is paused for backpressure",
            ["stage"],
            registry=r,
        ).labels(stage)
        for outcome in ("ok", "retried", "dead_lettered"):
            self._records.labels(stage, outcome)

    def record(self, outcome: str) -> None:
        self._records.labels(self.stage, outcome).inc()

    def dead_letter(self, reason: str) -> None:
        self._dead.labels(self.stage, reason).inc()

    def commit(self, result: str) -> None:
        self._commits.labels(self.stage, result).inc()

    def lag(self, topic: str, partition: int, value: float) -> None:
        self._lag.labels(self.stage, topic, str(partition)).set(value)

    def forget_partition(self, topic: str, partition: int) -> None:
        with contextlib.suppress(KeyError):
            self._lag.remove(self.stage, topic, str(partition))

    def value(self, name: str, **labels: str) -> float:
        """A sample's value (tests, bench); 0 when absent."""
        got = self.registry.get_sample_value(name, {"stage": self.stage, **labels})
        return 0.0 if got is None else got


class MetricsServer:
    """``/metrics`` (Prometheus text) and ``/healthz`` (200 ok / 503 reason) in a thread.

    Serves the worker's own registry plus prometheus_client's default one, where stage
    modules and the process collector register (their metric names must not collide).
    """

    def __init__(
        self,
        registry: CollectorRegistry,
        health: Callable[[], tuple[bool, str]],
        port: int,
        host: str = "0.0.0.0",
        *,
        include_default: bool = True,
    ) -> None:
        registries = [registry, *([REGISTRY] if include_default else [])]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    body = b"".join(generate_latest(r) for r in registries)
                    ctype, code = CONTENT_TYPE_LATEST, 200
                elif path == "/healthz":
                    ok, why = health()
                    body, ctype, code = why.encode(), "text/plain", 200 if ok else 503
                else:
                    body, ctype, code = b"not found", "text/plain", 404
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics-http", daemon=True
        )

    def start(self) -> MetricsServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
