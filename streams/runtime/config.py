"""What one worker needs, derived once from Settings plus the command line."""

from __future__ import annotations

import itertools
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from streams.pipeline import EPISODES
from streams.settings import Settings, producer_max_bytes

_seq = itertools.count(1)


def default_instance_id() -> str:
    """hostname-pid, plus a counter when one process runs several workers (tests)."""
    n = next(_seq)
    return f"{socket.gethostname()}-{os.getpid()}" + (f"-{n}" if n > 1 else "")


# More than a fetch's wait brings in below capacity, so a gathering fetch returns after its
# wait, or at once when a backlog holds this much.
GATHER_BYTES = 1 << 20

# Settings a worker takes over as they are.
_FROM_SETTINGS = (
    "shutdown_deadline_s", "max_poll_interval_ms", "session_timeout_ms", "transient_max_attempts",
    "transient_min_retry_s", "kafka_txn_watchdog_s", "max_record_bytes",
)  # fmt: skip


@dataclass(frozen=True)
class WorkerConfig:
    stage: str
    group: str
    dlq_topic: str
    kafka: Mapping[str, Any] = field(default_factory=dict)
    # A stable id (e.g. a StatefulSet pod name) turns on static group membership
    # (group.instance.id) and makes transactional.id survive restarts, so a restarted
    # worker fences its predecessor's open transaction at once. None: hostname-pid.
    instance_id: str | None = None
    # Names this worker when instance_id is None (transactional.id, client.id).
    member_name: str = field(default_factory=default_instance_id)
    concurrency: int = 32
    commit_interval_s: float = 0.4
    commit_quiet_s: float = 0.05
    shutdown_deadline_s: float = 30.0
    max_poll_interval_ms: int = 300_000
    session_timeout_ms: int = 45_000
    transient_max_attempts: int = 6
    # A transient failure is dead-lettered only after transient_max_attempts attempts AND
    # this many seconds since the first one (a short outage must not exhaust the attempts).
    transient_min_retry_s: float = 60.0
    retry_base_s: float = 0.5
    retry_max_s: float = 30.0
    max_record_bytes: int = 1_000_000
    metrics_port: int = 0
    metrics_host: str = "0.0.0.0"  # the metrics server's bind address
    transaction_timeout_ms: int = 10_000
    # Deadline of ONE transactional call (init/begin/send_offsets/commit/abort) before the
    # worker exits (watchdog.py, librdkafka#5456); 0 = off. kafka_commit gives each call a
    # 30 s timeout (transaction_timeout_ms, 10 s, bounds only how long the broker keeps a
    # transaction open), so an honest call returns by ~30 s even at load 10 on 2 cores;
    # twice that is a hang (the chaos drill's hangs were all in send_offsets, for good),
    # and it trips well before the liveness probe (no poll for 150 s).
    kafka_txn_watchdog_s: float = 60.0
    # Pause fetching when this many finished records wait for a lower offset.
    max_held: int = 10_000
    statistics_interval_ms: int = 5_000
    # How long a fetch waits for records (librdkafka's fetch.wait.max.ms), and how many
    # bytes it waits for (fetch.min.bytes): see consumer_conf.
    fetch_wait_ms: int = 500
    fetch_min_bytes: int = 1
    # Consecutive failed commits before the worker gives up (exit 1, restart by supervisor).
    max_commit_failures: int = 20
    # Overrides the stage's own lane_by (streams/runtime/stage.py) when set.
    lane_by: str | None = None

    @property
    def transactional_id(self) -> str:
        return f"{self.group}-{self.instance_id or self.member_name}"

    @property
    def revoke_wait_s(self) -> float:
        """How long a revocation waits for in-flight work before abandoning it."""
        return max(0.5, min(self.shutdown_deadline_s, self.max_poll_interval_ms / 2000))

    def with_(self, **changes: Any) -> WorkerConfig:
        return replace(self, **changes)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        stage: str,
        *,
        group: str | None = None,
        instance_id: str | None = None,
        concurrency: int | None = None,
        metrics_port: int | None = None,
        input_topic: str | None = None,
        **overrides: Any,
    ) -> WorkerConfig:
        """The worker's settings; ``input_topic``, when it is the episodes topic, makes its
        fetches gather records for ``source_fetch_wait_ms`` (see :func:`consumer_conf`)."""
        gather = input_topic == settings.topic(EPISODES) and settings.source_fetch_wait_ms > 0
        cfg = cls(
            stage=stage,
            group=group or f"factstream-{stage}",
            dlq_topic=settings.dlq_topic(stage),
            kafka=dict(settings.kafka_common),
            instance_id=instance_id,
            concurrency=concurrency or settings.worker_concurrency,
            commit_interval_s=settings.commit_interval_ms / 1000,
            commit_quiet_s=settings.commit_quiet_ms / 1000,
            metrics_port=settings.metrics_port if metrics_port is None else metrics_port,
            **{name: getattr(settings, name) for name in _FROM_SETTINGS},
            metrics_host=settings.metrics_bind_address,
        )
        if gather:
            cfg = replace(
                cfg, fetch_wait_ms=settings.source_fetch_wait_ms, fetch_min_bytes=GATHER_BYTES
            )
        return replace(cfg, **overrides)


def consumer_conf(cfg: WorkerConfig) -> dict[str, Any]:
    """librdkafka consumer settings of a worker (callbacks are added by KafkaIO)."""
    conf: dict[str, Any] = dict(cfg.kafka)
    conf.update(
        {
            "group.id": cfg.group,
            "client.id": cfg.transactional_id,
            "partition.assignment.strategy": "cooperative-sticky",
            "enable.auto.commit": False,
            "enable.auto.offset.store": False,
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            "max.poll.interval.ms": cfg.max_poll_interval_ms,
            "session.timeout.ms": cfg.session_timeout_ms,
            "heartbeat.interval.ms": max(100, min(3000, cfg.session_timeout_ms // 3)),
            # By default a fetch returns as soon as records come; with none it returns
            # empty after fetch_wait_ms, and every empty fetch is a request the broker
            # serves (its CPU, not ours). A resumed partition can wait up to this for the
            # fetch in flight, which only happens under backpressure, with records still
            # queued. A source consumer (gathering) waits the whole time for its records.
            "fetch.wait.max.ms": cfg.fetch_wait_ms,
            "fetch.min.bytes": cfg.fetch_min_bytes,
        }
    )
    if cfg.statistics_interval_ms > 0:
        conf["statistics.interval.ms"] = cfg.statistics_interval_ms
    if cfg.instance_id:
        conf["group.instance.id"] = cfg.instance_id
    return conf


def producer_conf(cfg: WorkerConfig) -> dict[str, Any]:
    """The worker's transactional producer. A sink uses it too, for its outputs (dead
    letters, republished episodes): they commit with its consumed offsets, or not at all."""
    conf: dict[str, Any] = dict(cfg.kafka)
    conf.update(
        {
            "client.id": cfg.transactional_id,
            "partitioner": "murmur2_random",
            "enable.idempotence": True,
            "acks": "all",
            "linger.ms": 5,
            "message.max.bytes": producer_max_bytes(cfg.max_record_bytes),
            "transactional.id": cfg.transactional_id,
            "transaction.timeout.ms": cfg.transaction_timeout_ms,
        }
    )
    return conf
