"""What every confluent-kafka client outside the runtime shares: its config and its errors.

Operator commands, the publisher, the readers and the local broker's readiness probe get
their clients here, so a SASL/SSL setting or a logging choice applies to all of them.
Callers catch :data:`KafkaFailure` (any error a client call raises) without importing
confluent_kafka themselves.
"""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from streams.settings import Settings, producer_max_bytes

KafkaFailure = KafkaException
# librdkafka's own log lines go to this logger instead of stderr.
LIBRDKAFKA_LOG = logging.getLogger("streams.kafka.librdkafka")


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


def cluster_answers(bootstrap: str, timeout_s: float = 3.0) -> bool:
    """True when the cluster returns metadata (the broker is ready, not just listening)."""
    admin = AdminClient({"bootstrap.servers": bootstrap}, logger=LIBRDKAFKA_LOG)
    try:
        md = admin.list_topics(timeout=timeout_s)
    except KafkaException:
        return False
    return bool(md.brokers)
