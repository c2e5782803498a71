"""Dead letters: the original key, value and headers, plus these error headers.

Header names (values are UTF-8 text) — `factstream dlq` reads them:

=======================  ===========================================================
x-original-topic         topic the record was consumed from
x-original-partition     its partition (decimal)
x-original-offset        its offset (decimal)
x-original-timestamp     its timestamp, ms since the epoch (decimal)
x-consumer-group         consumer group of the worker that gave up
x-stage                  stage name
x-exception-class        qualified class name of the error
x-exception-message      str(error), at most 2000 characters
x-stack-trace            formatted traceback, at most 16000 characters (tail kept)
x-attempt                handler attempts made (0: never reached the handler)
x-reason                 short word: oversized, not_utf8, bad_json, invalid_schema,
                         empty, key_mismatch, no_key, poison, handler_error,
                         transient_exhausted, output_too_large
x-value-part             "i/n", only on a value split over n records (see below)
x-value-length           the whole value's length, on its first part
x-value-truncated        not written any more; dead letters of older versions carry it
                         when their value was cut (they cannot be redriven)
=======================  ===========================================================

Original headers come first, unchanged, less the stage's delivery headers (they steer
one delivery only: a redriven copy must not carry a release of a claim long ended) and
less any header named like one of the x- headers above: those names are the dead letter's
own (a producer's ``x-value-part: 1/2`` would make a whole letter look like half of one,
its ``x-value-truncated`` would make it unredrivable), and a redrive drops them anyway.
The x- headers above are appended.

A dead letter always holds the original value. One larger than DLQ_PART_BYTES (the
default broker and producer limit is ~1 MB, and the headers need room) is split into
consecutive parts of at most that size, all keyed like the original and produced in the
same transaction: part 1 carries every header, the others the x-original-* headers, the
stage, the group, the reason and their x-value-part. `factstream dlq` joins them again.
"""

from __future__ import annotations

import traceback
from collections.abc import Collection

from streams.runtime.records import Headers, OutRecord, Record, bytes_as_text

H_TOPIC = "x-original-topic"
H_PARTITION = "x-original-partition"
H_OFFSET = "x-original-offset"
H_TIMESTAMP = "x-original-timestamp"
H_GROUP = "x-consumer-group"
H_STAGE = "x-stage"
H_EXC_CLASS = "x-exception-class"
H_EXC_MESSAGE = "x-exception-message"
H_STACK = "x-stack-trace"
H_ATTEMPT = "x-attempt"
H_REASON = "x-reason"
H_TRUNCATED = "x-value-truncated"
H_PART = "x-value-part"
H_LENGTH = "x-value-length"

DLQ_HEADERS: tuple[str, ...] = (
    H_TOPIC,
    H_PARTITION,
    H_OFFSET,
    H_TIMESTAMP,
    H_GROUP,
    H_STAGE,
    H_EXC_CLASS,
    H_EXC_MESSAGE,
    H_STACK,
    H_ATTEMPT,
    H_REASON,
    H_TRUNCATED,
    H_PART,
    H_LENGTH,
)
_OURS = frozenset(DLQ_HEADERS)
# What a continuation part carries besides its x-value-part: enough to find its head.
PART_HEADERS = (H_TOPIC, H_PARTITION, H_OFFSET, H_GROUP, H_STAGE, H_REASON)

# Below the default broker/producer message limit (~1 MB) with room for headers.
DLQ_PART_BYTES = 900_000
_MIN_FIRST_PART = 65_536
_PART_HEADERS_ROOM = 100  # x-value-part and x-value-length of the first part
_MAX_MESSAGE = 2000
_MAX_STACK = 16000


def dead_letter(
    record: Record,
    exc: BaseException,
    *,
    dlq_topic: str,
    group: str,
    stage: str,
    attempt: int,
    reason: str,
    delivery_headers: Collection[str] = (),
) -> tuple[OutRecord, ...]:
    """The dead letter of ``record``: one record, or its parts when the value is large."""
    value = record.value or b""
    stack = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    cls = type(exc)
    ours: list[tuple[str, str]] = [
        (H_TOPIC, record.topic),
        (H_PARTITION, str(record.partition)),
        (H_OFFSET, str(record.offset)),
        (H_TIMESTAMP, str(record.timestamp_ms)),
        (H_GROUP, group),
        (H_STAGE, stage),
        (H_EXC_CLASS, f"{cls.__module__}.{cls.__qualname__}"),
        (H_EXC_MESSAGE, str(exc)[:_MAX_MESSAGE]),
        (H_STACK, stack[-_MAX_STACK:]),
        (H_ATTEMPT, str(attempt)),
        (H_REASON, reason),
    ]
    kept = tuple((k, v) for k, v in record.headers if k not in delivery_headers and k not in _OURS)
    # The first part carries every header: its value gets what they leave of the budget.
    head_room = sum(len(k) + len(v) for k, v in (*kept, *_encoded(ours))) + _PART_HEADERS_ROOM
    first = max(_MIN_FIRST_PART, DLQ_PART_BYTES - head_room)
    chunks = [value[:first]] + [
        value[i : i + DLQ_PART_BYTES] for i in range(first, len(value), DLQ_PART_BYTES)
    ]
    if len(chunks) <= 1:
        return (OutRecord(dlq_topic, record.key, value, kept + _encoded(ours)),)
    n = len(chunks)
    head = [*ours, (H_PART, f"1/{n}"), (H_LENGTH, str(len(value)))]
    parts = [OutRecord(dlq_topic, record.key, chunks[0], kept + _encoded(head))]
    ident = [(k, v) for k, v in ours if k in PART_HEADERS]
    for i, chunk in enumerate(chunks[1:], start=2):
        parts.append(
            OutRecord(dlq_topic, record.key, chunk, _encoded([*ident, (H_PART, f"{i}/{n}")]))
        )
    return tuple(parts)


def _encoded(headers: list[tuple[str, str]]) -> Headers:
    return tuple((k, v.encode("utf-8")) for k, v in headers)


def part_of(headers: Headers | list[tuple[str, bytes | None]] | None) -> tuple[int, int]:
    """(i, n) of a dead letter's part; (1, 1) for a whole one."""
    text = error_headers(headers).get(H_PART, "1/1")
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        return 1, 1
    return (i, n) if 1 <= i <= n else (1, 1)


def error_headers(headers: Headers | list[tuple[str, bytes | None]] | None) -> dict[str, str]:
    """The x- headers of a dead letter as text (for readers such as `factstream dlq`); a
    byte that is not UTF-8 as ``\\xff`` (bytes_as_text), as keys are shown."""
    out: dict[str, str] = {}
    for name, raw in headers or ():
        if name in DLQ_HEADERS and raw is not None:
            out[name] = bytes_as_text(raw)
    return out
