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
                         empty, poison, handler_error, transient_exhausted, output_too_large
x-value-truncated        present only when the value was cut to DLQ_MAX_VALUE_BYTES;
                         holds the original length
=======================  ===========================================================

Original headers come first, unchanged; the x- headers above are appended.
"""

from __future__ import annotations

import traceback

from streams.runtime.records import Headers, OutRecord, Record

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
)

# Below the default broker/producer message limit (~1 MB) with room for headers.
DLQ_MAX_VALUE_BYTES = 900_000
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
) -> OutRecord:
    value = record.value or b""
    extra: list[tuple[str, str]] = []
    if len(value) > DLQ_MAX_VALUE_BYTES:
        extra.append((H_TRUNCATED, str(len(value))))
        value = value[:DLQ_MAX_VALUE_BYTES]
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
        *extra,
    ]
    headers: Headers = record.headers + tuple((k, v.encode("utf-8")) for k, v in ours)
    return OutRecord(topic=dlq_topic, key=record.key, value=value, headers=headers)


def error_headers(headers: Headers | list[tuple[str, bytes | None]] | None) -> dict[str, str]:
    """The x- headers of a dead letter as text (for readers such as `factstream dlq`)."""
    out: dict[str, str] = {}
    for name, raw in headers or ():
        if name in DLQ_HEADERS and raw is not None:
            out[name] = raw.decode("utf-8", "replace")
    return out
