"""What every confluent-kafka client outside the runtime shares: its config and its errors.

Operator commands, the publisher, the readers and the local broker's readiness probe get
their clients here, so a SASL/SSL setting or a logging choice applies to all of them.
Callers catch :data:`KafkaFailure` (any error a client call raises) without importing
confluent_kafka themselves. :func:`require_cluster` tells within a second or two that a
broker is unreachable, and why, where a client call would wait out its whole timeout.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from streams.errors import InfraError
from streams.settings import Settings, producer_max_bytes

KafkaFailure = KafkaException
# librdkafka's own log lines go to this logger (the runtime's too) instead of stderr;
# streams/runtime/jsonlog.py rate-limits it.
LIBRDKAFKA_LOG = logging.getLogger("librdkafka")
PROBE_TIMEOUT_S = 10.0
_HINT = (
    "is the broker running? Start one with `factstream dev up`, or point"
    " FACTSTREAM_KAFKA_BOOTSTRAP_SERVERS at your cluster"
)
# Errors that mean "no usable broker", as opposed to a refused request.
_UNREACHABLE = {
    KafkaError._TRANSPORT,
    KafkaError._ALL_BROKERS_DOWN,
    KafkaError._RESOLVE,
    KafkaError._TIMED_OUT,
    KafkaError._MSG_TIMED_OUT,
    KafkaError._SSL,
    KafkaError._AUTHENTICATION,
    KafkaError._BAD_MSG,
}
_GIVE_UP_AT_ONCE = {KafkaError._SSL, KafkaError._AUTHENTICATION}
# "127.0.0.1:1/bootstrap: Connect to ... failed: Connection refused (after 0ms in state
# CONNECT)": the address is named by the message around it, the state is librdkafka's.
_BROKER_PREFIX = re.compile(r"^\S+/(bootstrap|\d+): ")
_STATE_SUFFIX = re.compile(r" \(after \d+ms in state [A-Z_]+\)$")


class KafkaUnreachable(InfraError):
    """No broker of the configured bootstrap servers answers (or it is no Kafka broker)."""

    def __init__(self, bootstrap: str, reason: str) -> None:
        self.bootstrap = bootstrap
        super().__init__(f"Kafka at {bootstrap} is unreachable ({reason}); {_HINT}")


def admin_client(settings: Settings) -> AdminClient:
    return AdminClient(
        {
            # An admin client is a producer-type handle: asking for a missing topic's
            # metadata would create it (with the broker's default partition count).
            "allow.auto.create.topics": False,
            # notice: keeps librdkafka's info line about purging its queue at exit quiet.
            "log_level": 5,
            **settings.kafka_common,
        },
        logger=LIBRDKAFKA_LOG,
    )


def producer_config(settings: Settings, **overrides: Any) -> dict[str, Any]:
    """The config of every factstream producer outside the runtime's transactional one."""
    return {
        **settings.kafka_common,
        "enable.idempotence": True,
        "acks": "all",
        # A missing topic is an error (`factstream topics create`), never auto-created
        # with the broker's default partition count, which would break per-tenant order.
        "allow.auto.create.topics": False,
        "partitioner": "murmur2_random",
        "linger.ms": 5,
        "message.max.bytes": producer_max_bytes(settings.max_record_bytes),
        "compression.type": "zstd",
        "logger": LIBRDKAFKA_LOG,
        **overrides,
    }


def consumer_config(settings: Settings, group: str, **overrides: Any) -> dict[str, Any]:
    """A consumer that reads committed records and never commits on its own."""
    return {
        **settings.kafka_common,
        "group.id": group,
        "enable.auto.commit": False,
        "isolation.level": "read_committed",
        "logger": LIBRDKAFKA_LOG,
        **overrides,
    }


def _reason(err: KafkaError) -> str:
    return _STATE_SUFFIX.sub("", _BROKER_PREFIX.sub("", err.str()))


def require_cluster(settings: Settings, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Return when the cluster answers metadata; raise KafkaUnreachable when it does not.

    A refused connection or an unknown host is known within about a second (librdkafka
    reports every broker down, and keeps reporting it for a second), a TLS or SASL failure
    at once; a silent address takes ``timeout_s``.
    """
    _probe(settings.kafka_common, settings.kafka_bootstrap_servers, timeout_s)


def _probe(common: dict[str, Any], bootstrap: str, timeout_s: float) -> None:
    errors: list[KafkaError] = []
    conf = {**common, "error_cb": errors.append, "log_level": 0}
    admin = AdminClient(conf, logger=LIBRDKAFKA_LOG)
    started = time.monotonic()
    all_down_since: float | None = None
    last = "no answer"
    while True:
        try:
            if admin.list_topics(timeout=0.5).brokers:
                return
        except KafkaException as exc:
            last = _reason(exc.args[0])
        admin.poll(0)  # serves error_cb
        now = time.monotonic()
        if any(e.code() == KafkaError._ALL_BROKERS_DOWN for e in errors):
            all_down_since = all_down_since or now
        specific = [e for e in errors if e.code() != KafkaError._ALL_BROKERS_DOWN]
        at_once = any(e.code() in _GIVE_UP_AT_ONCE for e in specific)
        down_for_long = all_down_since is not None and now - all_down_since > 1.0
        if at_once or down_for_long or now - started > timeout_s:
            reason = _reason(specific[0]) if specific else last
            if now - started > timeout_s and not specific:
                reason = f"no answer within {timeout_s:.0f} s"
            raise KafkaUnreachable(bootstrap, reason)


def cluster_answers(bootstrap: str, timeout_s: float = 3.0) -> bool:
    """True when the cluster returns metadata (the broker is ready, not just listening)."""
    try:
        _probe({"bootstrap.servers": bootstrap}, bootstrap, timeout_s)
    except KafkaUnreachable:
        return False
    return True


def explain(exc: KafkaException, bootstrap: str) -> str:
    """One line for an error a client call raised, naming the cluster."""
    err = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
    if err is None:
        return f"Kafka at {bootstrap}: {exc}"
    if err.code() in _UNREACHABLE:
        return str(KafkaUnreachable(bootstrap, _reason(err)))
    return f"Kafka at {bootstrap}: {_reason(err)}"
