"""Prometheus metrics of model calls, for any provider: the four ports, wrapped.

``metered(models, meter)`` returns Models whose ports forward to the given ones and read
the CallRecords every call returns (or carries in ModelCallFailed): latency, tokens in
and out, errors by kind, 429s, and the attempts the provider needed. Nothing here knows a
provider, so Gemini, an OpenAI-compatible server, the cassette and a user's own factory
are measured alike. A port that raises something else (no records) counts as one error.

What a CallRecord cannot say is not guessed: a 429 that the provider retried past leaves
only its attempt count (``factstream_model_retries_total``); ``..._rate_limited_total``
counts the calls that failed on one. Error kinds come from the recorded error text (HTTP
status, exception name), the same text ``factstream trace`` shows.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Histogram

from streams.domain.graph import RawGraph
from streams.model.ports import (
    CallRecord,
    EmbedInput,
    ExtractInput,
    JudgeInput,
    JudgeOutput,
    ModelCallFailed,
    ModelResult,
    Models,
    SummarizeInput,
    SummaryOutput,
)

T = TypeVar("T")
R = TypeVar("R")
# Model calls take from milliseconds (a local embedder) to a minute (a long extraction).
_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120)
ERROR_KINDS = (
    "rate_limited", "timeout", "server_error", "client_error", "invalid_reply",
    "connection", "other",
)  # fmt: skip
# An HTTP status where errors say it: right after the exception name ("ClientError: 429
# RESOURCE_EXHAUSTED", "RateLimitError: Error code: 429 - ...") or as "status 503".
_STATUS = re.compile(
    r"^[\w.]*:\s*(?:error code:\s*)?(\d{3})\b|\bstatus(?:_code| code)?[=: ]+(\d{3})\b"
)
_TEXT_RULES = (
    ("rate_limited", re.compile(r"resource.?exhausted|rate.?limit|too many requests")),
    ("timeout", re.compile(r"timeout|timed out|deadline exceeded")),
    ("invalid_reply", re.compile(r"not a valid|validation error|invalid json|malformed")),
    ("server_error", re.compile(r"unavailable|internal server error")),
    ("connection", re.compile(r"connect|transport|network|reset by peer|broken pipe")),
)


def error_kind(error: str) -> str:
    """One of ERROR_KINDS for a recorded error text (``"ClientError: 429 ..."``)."""
    text = error.lower()
    if m := _STATUS.search(text):
        status = int(m.group(1) or m.group(2))
        if status == 429:
            return "rate_limited"
        if status == 408:
            return "timeout"
        if 500 <= status < 600:
            return "server_error"
        if 400 <= status < 500:
            return "client_error"
    for kind, pattern in _TEXT_RULES:
        if pattern.search(text):
            return kind
    return "other"


class ModelMetrics:
    """The model-call metrics of one worker, in its registry.

    ``stage`` labels every sample; the worker entry point sets it once the stage is built
    (the models are built first, and no call happens before the stage runs)."""

    def __init__(self, registry: CollectorRegistry, stage: str = "") -> None:
        self.stage = stage
        labels = ["stage", "kind", "model"]
        self._latency = Histogram(
            "factstream_model_call_seconds",
            "Model call latency, all attempts included, by outcome (ok, error)",
            [*labels, "outcome"],
            buckets=_BUCKETS,
            registry=registry,
        )
        self._tokens_in = Counter(
            "factstream_model_input_tokens", "Tokens sent to the model", labels, registry=registry
        )
        self._tokens_out = Counter(
            "factstream_model_output_tokens",
            "Tokens the model returned",
            labels,
            registry=registry,
        )
        self._errors = Counter(
            "factstream_model_errors",
            "Model calls that failed, by kind (rate_limited, timeout, server_error, ...)",
            [*labels, "error"],
            registry=registry,
        )
        self._rate_limited = Counter(
            "factstream_model_rate_limited",
            "Model calls that failed on HTTP 429 (rate limit or quota)",
            labels,
            registry=registry,
        )
        self._retries = Counter(
            "factstream_model_retries",
            "Attempts past the first inside the provider (429s, 5xx, timeouts it retried)",
            labels,
            registry=registry,
        )

    def observe(self, calls: Iterable[CallRecord]) -> None:
        for call in calls:
            labels = (self.stage, call.kind, call.model)
            outcome = "ok" if call.error is None else "error"
            self._latency.labels(*labels, outcome).observe(max(0.0, call.latency_ms) / 1000)
            if call.input_tokens:
                self._tokens_in.labels(*labels).inc(call.input_tokens)
            if call.output_tokens:
                self._tokens_out.labels(*labels).inc(call.output_tokens)
            if call.attempts > 1:
                self._retries.labels(*labels).inc(call.attempts - 1)
            if call.error is not None:
                self._error(labels, error_kind(call.error))

    def failed(self, kind: str, exc: BaseException) -> None:
        """A port raised without CallRecords (a user's provider, a broken connection)."""
        self._error((self.stage, kind, "unknown"), error_kind(f"{type(exc).__name__}: {exc}"))

    def _error(self, labels: tuple[str, str, str], kind: str) -> None:
        self._errors.labels(*labels, kind).inc()
        if kind == "rate_limited":
            self._rate_limited.labels(*labels).inc()


async def _measured(
    meter: ModelMetrics, kind: str, call: Callable[[R], Awaitable[ModelResult[T]]], request: R
) -> ModelResult[T]:
    try:
        result = await call(request)
    except ModelCallFailed as exc:
        if exc.calls:
            meter.observe(exc.calls)
        else:
            meter.failed(kind, exc)
        raise
    except Exception as exc:
        meter.failed(kind, exc)
        raise
    meter.observe(result.calls)
    return result


class _Extractor:
    def __init__(self, models: Models, meter: ModelMetrics) -> None:
        self._inner, self._meter = models.extractor, meter

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        return await _measured(self._meter, "extract", self._inner.extract, request)


class _Judge:
    def __init__(self, models: Models, meter: ModelMetrics) -> None:
        self._inner, self._meter = models.judge, meter

    async def judge(self, request: JudgeInput) -> ModelResult[JudgeOutput]:
        return await _measured(self._meter, "judge", self._inner.judge, request)


class _Summarizer:
    def __init__(self, models: Models, meter: ModelMetrics) -> None:
        self._inner, self._meter = models.summarizer, meter

    async def summarize(self, request: SummarizeInput) -> ModelResult[SummaryOutput]:
        return await _measured(self._meter, "summarize", self._inner.summarize, request)


class _Embedder:
    def __init__(self, models: Models, meter: ModelMetrics) -> None:
        self._inner, self._meter = models.embedder, meter

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        return await _measured(self._meter, "embed", self._inner.embed, request)


def metered(models: Models, meter: ModelMetrics) -> Models:
    """``models`` with every call measured into ``meter``."""
    return Models(
        extractor=_Extractor(models, meter),
        judge=_Judge(models, meter),
        summarizer=_Summarizer(models, meter),
        embedder=_Embedder(models, meter),
    )
