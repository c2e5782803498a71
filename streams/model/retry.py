"""Retrying model calls: which errors are worth another try, and how long to wait.

The SDKs' own retries are switched off (gemini/llm.py, openai/client.py) so this is the
only retry loop: exponential backoff with full jitter (streams/backoff.py), a
server-given delay (``Retry-After`` or ``retry-after-ms`` header, or
``google.rpc.RetryInfo.retryDelay`` in the error body) honoured but capped by the backoff
maximum, and client errors (4xx other than 408/429) failing at once. A provider passes
its own ``retryable`` when its SDK raises errors of its own (openai/client.py).
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx2
from google.genai import errors as genai_errors

from streams.backoff import Backoff
from streams.errors import FactstreamError
from streams.settings import Settings

T = TypeVar("T")

RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)s\s*$")
_RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int
    base_s: float
    max_s: float
    timeout_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> RetryPolicy:
        return cls(
            max_attempts=settings.llm_max_attempts,
            base_s=settings.llm_backoff_base_s,
            max_s=settings.llm_backoff_max_s,
            timeout_s=settings.llm_timeout_s,
        )

    def delay(self, attempt: int, server_delay_s: float | None, rng: random.Random) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        return Backoff(self.base_s, self.max_s).delay(attempt, rng.random, server_delay_s)


class RetryableReply(FactstreamError):
    """A reply that arrived but cannot be used, where a new attempt may get a good one (an
    embedding batch with NaN or the wrong dimension); ``response`` is what the call
    record shows of it."""

    def __init__(self, message: str, response: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.response = response


class RetriesExhausted(FactstreamError):
    """The last error of a call that will not be tried again, and how many tries it took."""

    def __init__(self, error: BaseException, attempts: int, retryable: bool) -> None:
        super().__init__(str(error))
        self.error, self.attempts, self.retryable = error, attempts, retryable

    @property
    def outage(self) -> bool:
        """Whether the attempts ran out on the provider being down or overloaded, not on
        a reply it gave (which the model would most likely give again)."""
        return self.retryable and not isinstance(self.error, RetryableReply)


def _duration_s(value: Any) -> float | None:
    if isinstance(value, str) and (m := _DURATION.match(value)):
        return float(m.group(1))
    if isinstance(value, Mapping):  # protobuf Duration as an object
        return float(value.get("seconds", 0)) + float(value.get("nanos", 0)) / 1e9
    return None


def _retry_after_s(value: str) -> float | None:
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _milliseconds_s(value: str) -> float | None:
    try:
        return max(0.0, float(value.strip()) / 1000)
    except ValueError:
        return None


def server_delay_s(exc: BaseException) -> float | None:
    """The delay the server asked for, if any: the largest of Retry-After, retry-after-ms
    and RetryInfo."""
    found: list[float] = []
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is not None:
        header = headers.get("retry-after")
        if isinstance(header, str) and (seconds := _retry_after_s(header)) is not None:
            found.append(seconds)
        millis = headers.get("retry-after-ms")  # OpenAI's, finer than Retry-After
        if isinstance(millis, str) and (seconds := _milliseconds_s(millis)) is not None:
            found.append(seconds)
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, Mapping) else None
    items = error.get("details") if isinstance(error, Mapping) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping) or item.get("@type") != _RETRY_INFO:
            continue
        if (seconds := _duration_s(item.get("retryDelay"))) is not None:
            found.append(seconds)
    return max(found) if found else None


def is_retryable(exc: BaseException) -> bool:
    """429, 408 and 5xx, timeouts and lost connections, and replies worth asking for again;
    everything else fails at once."""
    if isinstance(exc, RetryableReply):
        return True
    if isinstance(exc, genai_errors.APIError):
        return exc.code in RETRYABLE_STATUS
    # httpx2 is google-genai's HTTP client: TransportError covers timeouts, refused and
    # dropped connections and protocol errors mid-response.
    return isinstance(exc, (TimeoutError, ConnectionError, httpx2.TransportError))


async def with_retries(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    on_error: Callable[[int, BaseException], None] | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
    retryable: Callable[[BaseException], bool] = is_retryable,
) -> tuple[T, int]:
    """Run ``call`` (each attempt under the policy's timeout) until it succeeds.

    Returns the result and the number of attempts; raises RetriesExhausted with the last
    error when an error is not ``retryable`` or the attempts are used up.
    """
    rng = rng or random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            # Not asyncio.wait_for: on Python 3.11 it swallows a cancellation that comes
            # as the call returns, and a stopping worker's lane would then go on.
            async with asyncio.timeout(policy.timeout_s):
                result = await call()
            return result, attempt
        except Exception as exc:
            if on_error is not None:
                on_error(attempt, exc)
            again = retryable(exc)
            if not again or attempt >= policy.max_attempts:
                raise RetriesExhausted(exc, attempt, again) from exc
            await sleep(policy.delay(attempt, server_delay_s(exc), rng))
