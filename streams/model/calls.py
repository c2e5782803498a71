"""What every real provider's calls share: error text, timing, retry logs, embed batches."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from streams.model.ports import CallRecord, ModelCallFailed, ModelResult
from streams.model.retry import RetriesExhausted, RetryableReply

log = logging.getLogger("streams.model")

ERROR_CHARS = 2000


def describe_error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_CHARS]


def elapsed_ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def log_retry(provider: str, kind: str, model: str) -> Callable[[int, BaseException], None]:
    def on_error(attempt: int, exc: BaseException) -> None:
        log.warning("%s %s (%s) attempt %d failed: %s", provider, kind, model, attempt, exc)

    return on_error


def unit(values: list[float]) -> list[float]:
    """``values`` scaled to length 1 (a zero vector stays as it is)."""
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values] if norm > 0 else values


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def checked_vectors(
    vectors: Sequence[Any], count: int, dim: int
) -> tuple[list[list[float]], dict[str, Any]]:
    """A reply's vectors, unit length, and its record summary; raises RetryableReply (the
    attempt is tried again) on the wrong count, the wrong dimension, or a value that is
    not a finite number, or a vector of zeros (no direction, so like nothing and unlike
    nothing): such a vector is never stored."""
    rows = [v if isinstance(v, list) else [] for v in vectors]
    summary: dict[str, Any] = {"count": len(rows), "dims": sorted({len(v) for v in rows})}
    if len(rows) != count:
        raise RetryableReply(f"asked for {count} embeddings, got {len(rows)}", summary)
    if summary["dims"] != [dim]:
        raise RetryableReply(f"asked for dimension {dim}, got {summary['dims']}", summary)
    bad = [i for i, v in enumerate(rows) if not all(_finite_number(x) for x in v)]
    if bad:
        raise RetryableReply(f"embeddings {bad} hold values that are not finite numbers", summary)
    zeros = [i for i, v in enumerate(rows) if not any(v)]
    if zeros:
        raise RetryableReply(f"embeddings {zeros} are all zeros", summary)
    return [unit([float(x) for x in v]) for v in rows], summary


def embed_failed(
    provider: str, model: str, request: dict[str, Any], texts: Sequence[str], purpose: str,
    started: float, exc: RetriesExhausted,
) -> ModelCallFailed:  # fmt: skip
    """The error of an embedding call whose attempts are used up, with its record (what
    came back last, when a reply was refused)."""
    reply = exc.error.response if isinstance(exc.error, RetryableReply) else None
    record = CallRecord(
        "embed", model, request, reply, elapsed_ms(started), attempts=exc.attempts,
        error=describe_error(exc.error),
    )  # fmt: skip
    return ModelCallFailed(
        f"{provider} embed call ({model}, {len(texts)} {purpose} texts)"
        f" failed after {exc.attempts} attempt(s): {describe_error(exc.error)}",
        [record],
        outage=exc.outage,
    )


Batch = Callable[[list[str]], Awaitable[tuple[list[list[float]], CallRecord]]]


async def embed_in_batches(
    texts: Sequence[str], max_batch: int, batch: Batch
) -> ModelResult[list[list[float]]]:
    """Embed ``texts`` with one ``batch`` call per ``max_batch`` texts, vectors in order;
    a failed batch fails the whole call, carrying the records of the batches before it."""
    vectors: list[list[float]] = []
    calls: list[CallRecord] = []
    texts = list(texts)
    for first in range(0, len(texts), max_batch):
        try:
            got, record = await batch(texts[first : first + max_batch])
        except ModelCallFailed as exc:
            raise ModelCallFailed(str(exc), [*calls, *exc.calls], outage=exc.outage) from exc
        vectors += got
        calls.append(record)
    return ModelResult(vectors, calls)
