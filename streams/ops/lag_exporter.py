"""`factstream lag --serve PORT`: every stage group's lag as Prometheus metrics.

Independent of the workers (which export only what they consume, and only while they
run), it asks the cluster at every scrape, like `factstream lag`, and exports the names
and labels of kafka_exporter (danielqsj/kafka_exporter), so its dashboards, alerts and a
KEDA ``prometheus`` trigger work unchanged:

* ``kafka_consumergroup_lag{consumergroup,topic,partition}``: log-end − committed offset;
* ``kafka_consumergroup_lag_sum{consumergroup,topic}``;
* ``kafka_consumergroup_current_offset{consumergroup,topic,partition}`` and its ``_sum``:
  the committed offset (partitions the group committed only);
* ``kafka_topic_partition_current_offset{topic,partition}`` (log end) and
  ``kafka_topic_partition_oldest_offset{topic,partition}`` (earliest retained);
* ``factstream_lag_exporter_up``: 1 when the last scrape reached the cluster, and
  ``factstream_lag_exporter_scrape_seconds``.

One difference, on purpose: a partition the group never committed counts from the
earliest retained offset, as `factstream lag` and the workers do (kafka_exporter shows
-1 there), so a new group's backlog is visible before its first commit.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from types import FrameType

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from streams.errors import FactstreamError
from streams.kafka import admin as ka
from streams.kafka.client import KafkaFailure
from streams.ops.lag import StageLag, collect_lag
from streams.runtime.metrics_http import MetricsServer
from streams.settings import Settings

log = logging.getLogger("streams.ops.lag_exporter")
GROUP, TOPIC, PARTITION = "consumergroup", "topic", "partition"


def lag_families(report: Sequence[StageLag]) -> list[GaugeMetricFamily]:
    """The kafka_exporter families of one lag report."""
    lag = GaugeMetricFamily(
        "kafka_consumergroup_lag",
        "Log-end minus committed offset",
        labels=[GROUP, TOPIC, PARTITION],
    )
    lag_sum = GaugeMetricFamily(
        "kafka_consumergroup_lag_sum", "Lag of the group on the topic", labels=[GROUP, TOPIC]
    )
    current = GaugeMetricFamily(
        "kafka_consumergroup_current_offset",
        "Committed offset of the group",
        labels=[GROUP, TOPIC, PARTITION],
    )
    current_sum = GaugeMetricFamily(
        "kafka_consumergroup_current_offset_sum",
        "Sum of the group's committed offsets on the topic",
        labels=[GROUP, TOPIC],
    )
    log_end = GaugeMetricFamily(
        "kafka_topic_partition_current_offset", "Log-end offset", labels=[TOPIC, PARTITION]
    )
    oldest = GaugeMetricFamily(
        "kafka_topic_partition_oldest_offset", "Earliest retained offset", labels=[TOPIC, PARTITION]
    )
    seen_topics: set[str] = set()
    for stage in report:
        committed = [p.committed for p in stage.partitions if p.committed is not None]
        for p in stage.partitions:
            part = str(p.partition)
            lag.add_metric([stage.group, stage.topic, part], p.lag)
            if p.committed is not None:
                current.add_metric([stage.group, stage.topic, part], p.committed)
            if stage.topic not in seen_topics:  # summarize and extract read one topic
                log_end.add_metric([stage.topic, part], p.log_end)
                oldest.add_metric([stage.topic, part], p.earliest)
        if stage.partitions:
            lag_sum.add_metric([stage.group, stage.topic], stage.lag)
            current_sum.add_metric([stage.group, stage.topic], sum(committed))
        seen_topics.add(stage.topic)
    return [lag, lag_sum, current, current_sum, log_end, oldest]


class LagCollector(Collector):
    """Reads the lag of ``stages`` (groups from ``group_of``) at every collect."""

    def __init__(
        self,
        settings: Settings,
        admin: ka.AdminClient,
        stages: Sequence[str],
        group_of: Callable[[str], str],
    ) -> None:
        self._settings, self._admin = settings, admin
        self._stages, self._group_of = list(stages), group_of

    def describe(self) -> Iterable[Metric]:
        return [*lag_families([]), *self._own(True, 0.0)]

    def collect(self) -> Iterable[Metric]:
        started = time.monotonic()
        try:
            report = collect_lag(self._settings, self._admin, self._stages, self._group_of)
        except (KafkaFailure, FactstreamError) as exc:
            log.warning("lag scrape failed: %s", exc)
            return self._own(False, time.monotonic() - started)
        return [*lag_families(report), *self._own(True, time.monotonic() - started)]

    @staticmethod
    def _own(up: bool, seconds: float) -> list[GaugeMetricFamily]:
        return [
            GaugeMetricFamily(
                "factstream_lag_exporter_up", "1 when the last scrape reached the cluster", up
            ),
            GaugeMetricFamily(
                "factstream_lag_exporter_scrape_seconds", "Time the last scrape took", seconds
            ),
        ]


def lag_server(
    settings: Settings,
    admin: ka.AdminClient,
    stages: Sequence[str],
    group_of: Callable[[str], str],
    port: int,
) -> MetricsServer:
    """The exporter's server (not started): /metrics, /livez (the process serves) and
    /readyz (the cluster answers a metadata request), on ``metrics_bind_address``."""
    registry = CollectorRegistry()
    registry.register(LagCollector(settings, admin, stages, group_of))

    def ready() -> tuple[bool, str]:
        try:
            ka.ping(admin)
        except KafkaFailure as exc:
            return False, f"kafka: broker unreachable ({exc})"
        return True, "ok"

    return MetricsServer(
        registry, lambda: (True, "ok"), port, settings.metrics_bind_address, ready=ready
    )


def serve_until_signal(server: MetricsServer) -> None:
    """Serve until SIGTERM or SIGINT (call from the main thread)."""
    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        with server:
            stop.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
