"""Prometheus metrics of one worker, in its own CollectorRegistry.

Records, retries, dead letters, commits, lag from librdkafka's statistics, backpressure,
and (``watch_pool``) the database pool. ``streams.runtime.metrics_http`` serves them;
model-call metrics are added to the same registry by ``streams.model.metered``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

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
        self._produced = Counter(
            "factstream_produced_bytes",
            "Bytes of the records this worker produced (value, key and headers), per topic",
            ["stage", "topic"],
            registry=r,
        )
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

    def produced(self, topic: str, size: int) -> None:
        self._produced.labels(self.stage, topic).inc(size)

    def lag(self, topic: str, partition: int, value: float) -> None:
        self._lag.labels(self.stage, topic, str(partition)).set(value)

    def forget_partition(self, topic: str, partition: int) -> None:
        with contextlib.suppress(KeyError):
            self._lag.remove(self.stage, topic, str(partition))

    def value(self, name: str, **labels: str) -> float:
        """A sample's value (tests, bench); 0 when absent."""
        got = self.registry.get_sample_value(name, {"stage": self.stage, **labels})
        return 0.0 if got is None else got

    def watch_pool(self, pool: Pool, round_trips: Callable[[], int] | None = None) -> None:
        """Export the size of a database pool (asyncpg's) at every scrape, and the
        statements its connections sent when ``round_trips`` reads them."""
        self.registry.register(_PoolCollector(self.stage, pool, round_trips))


class Pool(Protocol):
    """What the pool gauges read (asyncpg.Pool has these)."""

    def get_size(self) -> int: ...
    def get_idle_size(self) -> int: ...
    def get_max_size(self) -> int: ...


class _PoolCollector(Collector):
    """Pool gauges, read when scraped. asyncpg's counters are plain reads of the pool's
    connection holders, safe from the HTTP thread."""

    def __init__(self, stage: str, pool: Pool, round_trips: Callable[[], int] | None) -> None:
        self._stage, self._pool, self._round_trips = stage, pool, round_trips

    def describe(self) -> Iterable[Metric]:
        """The families without reading the pool (registration, ``?name[]=`` filters)."""
        for name, help_text in _POOL_GAUGES:
            yield GaugeMetricFamily(name, help_text, labels=["stage"])
        if self._round_trips is not None:
            yield CounterMetricFamily(*_ROUND_TRIPS, labels=["stage"])

    def collect(self) -> Iterable[Metric]:
        size, idle = self._pool.get_size(), self._pool.get_idle_size()
        values = (size, idle, size - idle, self._pool.get_max_size())
        for (name, help_text), value in zip(_POOL_GAUGES, values, strict=True):
            family = GaugeMetricFamily(name, help_text, labels=["stage"])
            family.add_metric([self._stage], value)
            yield family
        if self._round_trips is not None:
            trips = CounterMetricFamily(*_ROUND_TRIPS, labels=["stage"])
            trips.add_metric([self._stage], self._round_trips())
            yield trips


_ROUND_TRIPS = (
    "factstream_db_round_trips",
    "Statements the database pool's connections sent, each one round trip",
)
_POOL_GAUGES = (
    ("factstream_db_pool_connections", "Open connections of the database pool"),
    ("factstream_db_pool_idle_connections", "Open connections of the pool not in use"),
    ("factstream_db_pool_in_use_connections", "Connections of the pool in use"),
    ("factstream_db_pool_max_connections", "Most connections the pool opens"),
)
