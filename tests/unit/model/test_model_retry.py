"""The retry loop: which errors retry, how long it waits, and when it gives up."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx2
import openai
import pytest
from google.genai import errors as genai_errors

from streams.model.openai.client import is_retryable as openai_is_retryable
from streams.model.retry import (
    RetriesExhausted,
    RetryableReply,
    RetryPolicy,
    is_retryable,
    server_delay_s,
    with_retries,
)

POLICY = RetryPolicy(max_attempts=4, base_s=0.5, max_s=3.0, timeout_s=1.0)


def api_error(
    code: int, retry_delay: str | None = None, retry_after: str | None = None
) -> Exception:
    error: dict[str, object] = {"code": code, "message": "x", "status": "S"}
    if retry_delay is not None:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        ]
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    response = httpx2.Response(code, headers=headers)
    cls = genai_errors.ClientError if code < 500 else genai_errors.ServerError
    return cls(code, {"error": error}, response)


class Flaky:
    """Fails with the given errors in turn, then answers "ok"."""

    def __init__(self, *errors: Exception) -> None:
        self.errors, self.calls = list(errors), 0

    async def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "ok"


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def test_full_jitter_stays_under_the_capped_exponential() -> None:
    rng = random.Random(7)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (9, 3.0)]:
        delays = [POLICY.delay(attempt, None, rng) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > ceiling * 0.8  # spread over the range, not a constant


def test_server_delay_wins_but_is_capped() -> None:
    rng = random.Random(1)
    assert POLICY.delay(1, 2.5, rng) == 2.5
    assert POLICY.delay(1, 60.0, rng) == 3.0


def test_server_delay_from_retry_info_and_retry_after() -> None:
    assert server_delay_s(api_error(429, retry_delay="1.5s")) == 1.5
    assert server_delay_s(api_error(429, retry_after="2")) == 2.0
    assert server_delay_s(api_error(503, retry_delay="0.5s", retry_after="4")) == 4.0
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 <= (server_delay_s(api_error(503, retry_after=when)) or 0) <= 30
    assert server_delay_s(api_error(429)) is None
    assert server_delay_s(TimeoutError()) is None


@pytest.mark.parametrize(
    ("exc", "retryable"),
    [
        (api_error(429), True),
        (api_error(408), True),
        (api_error(500), True),
        (api_error(503), True),
        (api_error(400), False),
        (api_error(403), False),
        (api_error(404), False),
        (TimeoutError(), True),
        (ConnectionResetError(), True),
        (httpx2.ConnectError("refused"), True),
        (httpx2.ReadTimeout("slow"), True),
        (ValueError("bad json"), False),
    ],
)
def test_what_is_retryable(exc: Exception, retryable: bool) -> None:
    assert is_retryable(exc) is retryable


async def test_retries_until_success_honouring_server_delay() -> None:
    call, sleeps = Flaky(api_error(429, retry_delay="1.25s"), api_error(503)), Sleeps()
    result, attempts = await with_retries(call, POLICY, sleep=sleeps, rng=random.Random(3))
    assert (result, attempts, call.calls) == ("ok", 3, 3)
    assert sleeps.delays[0] == 1.25
    assert 0 <= sleeps.delays[1] <= 1.0


async def test_gives_up_after_max_attempts_with_the_last_error() -> None:
    call, sleeps = Flaky(*[api_error(500)] * 10), Sleeps()
    with pytest.raises(RetriesExhausted) as exhausted:
        await with_retries(call, POLICY, sleep=sleeps)
    assert (exhausted.value.attempts, exhausted.value.retryable, call.calls) == (4, True, 4)
    assert len(sleeps.delays) == 3
    assert isinstance(exhausted.value.error, genai_errors.ServerError)


async def test_client_error_is_not_retried() -> None:
    call, sleeps = Flaky(api_error(400)), Sleeps()
    with pytest.raises(RetriesExhausted) as exhausted:
        await with_retries(call, POLICY, sleep=sleeps)
    assert (exhausted.value.attempts, exhausted.value.retryable) == (1, False)
    assert sleeps.delays == []


async def test_each_attempt_has_the_timeout() -> None:
    attempts: list[int] = []

    async def slow_then_fast() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            await asyncio.sleep(5)
        return "ok"

    policy = RetryPolicy(max_attempts=2, base_s=0.0, max_s=0.0, timeout_s=0.05)
    seen: list[BaseException] = []
    result, n = await with_retries(slow_then_fast, policy, on_error=lambda _, e: seen.append(e))
    assert (result, n) == ("ok", 2)
    assert isinstance(seen[0], TimeoutError)


def openai_error(status: int, headers: dict[str, str] | None = None) -> Exception:
    request = httpx2.Request("POST", "http://stub/v1/chat/completions")
    response = httpx2.Response(status, headers=headers or {}, request=request)
    return openai.APIStatusError("x", response=response, body=None)


def test_server_delay_from_openais_retry_after_ms() -> None:
    assert server_delay_s(openai_error(429, {"retry-after-ms": "250"})) == 0.25
    assert server_delay_s(openai_error(429, {"retry-after": "1", "retry-after-ms": "1500"})) == 1.5
    assert server_delay_s(openai_error(429, {"retry-after-ms": "soon"})) is None


@pytest.mark.parametrize(
    ("exc", "retryable"),
    [
        (openai_error(429), True),
        (openai_error(408), True),
        (openai_error(502), True),
        (openai_error(400), False),
        (openai_error(401), False),
        (openai.APITimeoutError(httpx2.Request("POST", "http://stub")), True),
        (openai.APIConnectionError(request=httpx2.Request("POST", "http://stub")), True),
        (RetryableReply("asked for dimension 16, got [8]"), True),
        (ValueError("bad json"), False),
    ],
)
def test_what_is_retryable_for_the_openai_sdk(exc: Exception, retryable: bool) -> None:
    assert openai_is_retryable(exc) is retryable


async def test_a_provider_chooses_what_retries() -> None:
    call = Flaky(KeyError("provider-specific transient"))
    result, attempts = await with_retries(
        call, POLICY, sleep=Sleeps(), retryable=lambda e: isinstance(e, KeyError)
    )
    assert (result, attempts) == ("ok", 2)


async def test_a_cancel_that_comes_as_the_reply_arrives_still_cancels() -> None:
    # A stopping worker cancels its lanes; a model call answering in the same moment
    # must not swallow that (asyncio.wait_for on Python 3.11 does), or the lane goes on.
    answered = asyncio.Event()

    async def call() -> str:
        await answered.wait()
        return "reply"

    attempt = asyncio.create_task(with_retries(call, POLICY))
    await asyncio.sleep(0.01)  # the call is waiting for its reply
    answered.set()
    attempt.cancel()
    with pytest.raises(asyncio.CancelledError):
        await attempt
