"""Read fixed offset ranges of a topic once, without joining or committing to any group."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from confluent_kafka import Consumer, KafkaError, TopicPartition

from streams.kafka.client import consumer_config
from streams.settings import Settings

STALL_TIMEOUT_S = 30.0
Headers = tuple[tuple[str, bytes], ...]


@dataclass(frozen=True)
class RangeRecord:
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: bytes | None
    value: bytes | None
    headers: Headers


def read_ranges(
    settings: Settings,
    topic: str,
    ranges: dict[int, tuple[int, int]],
    *,
    on_progress: Callable[[int], None] | None = None,
    stall_timeout_s: float = STALL_TIMEOUT_S,
) -> Iterator[RangeRecord]:
    """Yield the records of ``partition -> [start, end)`` (read_committed), in offset order
    per partition. ``on_progress(n)``: offsets passed since the last call, for a progress bar.

    Offsets without a record (transaction markers, compaction) are passed silently.
    """
    todo = {p: r for p, r in ranges.items() if r[1] > r[0]}
    if not todo:
        return
    # assign() needs a group id; nothing is ever committed to this throwaway one.
    group = f"factstream-reader-{uuid.uuid4().hex[:12]}"
    consumer = Consumer(consumer_config(settings, group, **{"enable.partition.eof": True}))
    position = {p: start for p, (start, _) in todo.items()}
    try:
        consumer.assign([TopicPartition(topic, p, start) for p, (start, _) in todo.items()])
        last_seen = time.monotonic()
        while todo:
            msg = consumer.poll(0.5)
            if msg is None:
                if time.monotonic() - last_seen > stall_timeout_s:
                    raise TimeoutError(
                        f"no records from {topic} partitions {sorted(todo)}"
                        f" for {stall_timeout_s:.0f} s"
                    )
                continue
            last_seen = time.monotonic()
            partition, offset = msg.partition(), msg.offset()
            if partition is None or offset is None or partition not in todo:
                continue
            end = todo[partition][1]
            err = msg.error()
            if err is not None and err.code() != KafkaError._PARTITION_EOF:
                raise RuntimeError(f"reading {topic}/{partition}: {err}")
            if err is None and offset < end:
                stamp = msg.timestamp()[1]
                yield RangeRecord(
                    topic,
                    partition,
                    offset,
                    stamp,
                    msg.key(),
                    msg.value(),
                    _headers(msg.headers()),
                )
                reached = offset + 1
            else:
                reached = end  # log end, or a record past the range: this partition is done
            if on_progress is not None and reached > position[partition]:
                on_progress(min(reached, end) - position[partition])
            position[partition] = max(position[partition], min(reached, end))
            if position[partition] >= end:
                del todo[partition]
                consumer.incremental_unassign([TopicPartition(topic, partition)])
    finally:
        consumer.close()


def _headers(raw: object) -> Headers:
    """confluent-kafka gives a list of (name, bytes | None) pairs, or None."""
    if not isinstance(raw, list):
        return ()
    out: list[tuple[str, bytes]] = []
    for name, value in raw:
        data = value.encode() if isinstance(value, str) else (value or b"")
        out.append((str(name), data))
    return tuple(out)
