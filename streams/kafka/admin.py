"""Thin, typed wrappers over the AdminClient calls that lag and replay need.

Each returns plain dicts keyed by partition, so the planning code above stays pure.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from confluent_kafka import (
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient as AdminClient
from confluent_kafka.admin import OffsetSpec  # type: ignore[attr-defined]  # no __all__ there

from streams.backoff import Backoff
from streams.errors import InfraError
from streams.kafka.client import admin_client as admin_client

TIMEOUT_S = 15.0
RETRIES = 8
_SETTLING_BACKOFF = Backoff(0.2, 2.0, jitter=False)
# The admin client flags these as not retriable, yet they clear within a second of a
# topic's creation or a leader election.
_SETTLING = {
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
}


class TopicNotFoundError(InfraError, LookupError):
    pass


@dataclass(frozen=True)
class Member:
    member_id: str
    client_id: str
    host: str

    def __str__(self) -> str:
        return f"{self.client_id}@{self.host} ({self.member_id})"


def topic_partitions(
    admin: AdminClient, topic: str, only: Sequence[int] | None = None
) -> list[int]:
    """The topic's partitions (or the requested subset, each checked to exist)."""
    metadata = admin.list_topics(topic, timeout=TIMEOUT_S).topics.get(topic)
    if metadata is None or metadata.error is not None or not metadata.partitions:
        error = None if metadata is None else metadata.error
        # "Unknown topic or partition" says it again; any other error is worth naming.
        reason = ""
        if error is not None and error.code() != KafkaError.UNKNOWN_TOPIC_OR_PART:
            reason = f" ({error.str()})"
        raise TopicNotFoundError(f"topic {topic!r} does not exist{reason}")
    existing = sorted(metadata.partitions)
    if only is None:
        return existing
    missing = sorted(set(only) - set(existing))
    if missing:
        raise TopicNotFoundError(
            f"topic {topic!r} has partitions 0..{existing[-1]}; no partition {missing}"
        )
    return sorted(set(only))


def _list_offsets(
    admin: AdminClient, topic: str, partitions: Sequence[int], spec: OffsetSpec
) -> dict[int, int]:
    if not partitions:
        return {}
    request = {TopicPartition(topic, p): spec for p in partitions}
    for attempt in range(RETRIES):
        futures = admin.list_offsets(request, request_timeout=TIMEOUT_S)
        try:
            return {tp.partition: fut.result().offset for tp, fut in futures.items()}
        except KafkaException as exc:
            # Right after a topic is created or a leader moves, the broker answers
            # NOT_LEADER / LEADER_NOT_AVAILABLE for a moment: ask again.
            error = exc.args[0]
            if attempt == RETRIES - 1 or not (error.retriable() or error.code() in _SETTLING):
                raise
            time.sleep(_SETTLING_BACKOFF.delay(attempt + 1))
    raise AssertionError("unreachable")


def watermarks(
    admin: AdminClient, topic: str, partitions: Sequence[int]
) -> dict[int, tuple[int, int]]:
    """partition -> (earliest offset, log-end offset)."""
    # OffsetSpec's class methods carry no annotations in confluent-kafka 2.16.
    earliest: OffsetSpec = OffsetSpec.earliest()  # type: ignore[no-untyped-call]
    latest: OffsetSpec = OffsetSpec.latest()  # type: ignore[no-untyped-call]
    low = _list_offsets(admin, topic, partitions, earliest)
    high = _list_offsets(admin, topic, partitions, latest)
    return {p: (low[p], high[p]) for p in partitions}


def offsets_for_timestamp(
    admin: AdminClient, topic: str, partitions: Sequence[int], timestamp_ms: int
) -> dict[int, int | None]:
    """partition -> first offset whose timestamp is >= timestamp_ms (None: no such record).

    A time before 1970 asks for every record: negative timestamps are Kafka's sentinels
    (-1 the log end, -2 the earliest, -3 the largest timestamp) or invalid, so a replay
    --to-datetime 1969-12-31T23:59:59.999Z would otherwise have replayed nothing."""
    at = OffsetSpec.for_timestamp(max(timestamp_ms, 0))
    found = _list_offsets(admin, topic, partitions, at)
    return {p: (offset if offset >= 0 else None) for p, offset in found.items()}


def committed_offsets(
    admin: AdminClient, group: str, topic: str, partitions: Sequence[int]
) -> dict[int, int | None]:
    """partition -> the group's committed offset (None: the group never committed there)."""
    found = committed_with_metadata(admin, group, topic, partitions)
    return {p: offset for p, (offset, _) in found.items()}


def committed_with_metadata(
    admin: AdminClient, group: str, topic: str, partitions: Sequence[int]
) -> dict[int, tuple[int | None, str]]:
    """partition -> (committed offset or None, the commit's metadata string)."""
    if not partitions:
        return {}
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in partitions])]
    result = admin.list_consumer_group_offsets(request, request_timeout=TIMEOUT_S)[group].result()
    found: dict[int, tuple[int | None, str]] = {p: (None, "") for p in partitions}
    for tp in result.topic_partitions or []:
        if tp.error is not None:
            raise KafkaException(tp.error)
        found[tp.partition] = (tp.offset if tp.offset >= 0 else None, tp.metadata or "")
    return found


def active_members(admin: AdminClient, group: str) -> list[Member]:
    """Members currently in the group (empty for an empty or unknown group)."""
    description = admin.describe_consumer_groups([group], request_timeout=TIMEOUT_S)[group].result()
    return [Member(m.member_id, m.client_id, m.host) for m in (description.members or [])]


def alter_offsets(
    admin: AdminClient,
    group: str,
    topic: str,
    offsets: dict[int, int],
    metadata: dict[int, str] | None = None,
) -> None:
    """Set the group's committed offsets; the broker refuses while the group has members."""
    if not offsets:
        return
    meta = metadata or {}
    partitions = [
        TopicPartition(topic, p, offset, metadata=meta[p])
        if p in meta
        else TopicPartition(topic, p, offset)  # metadata=None is refused by the client
        for p, offset in sorted(offsets.items())
    ]
    request = [ConsumerGroupTopicPartitions(group, partitions)]
    result = admin.alter_consumer_group_offsets(request, request_timeout=TIMEOUT_S)[group].result()
    for tp in result.topic_partitions or []:
        if tp.error is not None:
            raise KafkaException(tp.error)


def ping(admin: AdminClient, timeout_s: float = 3.0) -> None:
    """Return when the cluster answers a metadata request; raise KafkaException if not."""
    admin.list_topics(timeout=timeout_s)
