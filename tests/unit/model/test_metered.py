"""Model-call metrics from the CallRecords every port returns, whatever the provider."""

from __future__ import annotations

from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from streams.domain.graph import RawGraph
from streams.model.fakes.scripted import scripted_models
from streams.model.metered import ModelMetrics, error_kind, metered
from streams.model.ports import (
    CallRecord,
    CallScope,
    EmbedInput,
    ExtractInput,
    ModelCallFailed,
    ModelResult,
    Models,
)

SCOPE = CallScope(dataset="ds", project_id="p", episode_id="e1")


class MeasuredExtractor:
    """A provider of our own port: what it returns says tokens and attempts."""

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        record = CallRecord(
            "extract", "big-model", {}, {}, 1500.0, input_tokens=1200, output_tokens=80,
            attempts=3,
        )  # fmt: skip
        return ModelResult(RawGraph(), [record])


class RateLimitedEmbedder:
    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        record = CallRecord(
            "embed", "embedder", {}, None, 20.0, attempts=4,
            error="ClientError: 429 RESOURCE_EXHAUSTED. {'error': {'code': 429}}",
        )  # fmt: skip
        raise ModelCallFailed("embed failed after 4 attempts", [record])


class BrokenEmbedder:
    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        raise ConnectionError("connection refused")


def value(registry: CollectorRegistry, name: str, **labels: str) -> float:
    got = registry.get_sample_value(name, labels)
    return 0.0 if got is None else got


def models_with(**ports: Any) -> Models:
    base = scripted_models(dim=4)
    return Models(
        extractor=ports.get("extractor", base.extractor),
        judge=base.judge,
        summarizer=base.summarizer,
        embedder=ports.get("embedder", base.embedder),
    )


async def test_latency_tokens_and_attempts_of_a_call() -> None:
    registry = CollectorRegistry()
    meter = ModelMetrics(registry)
    models = metered(models_with(extractor=MeasuredExtractor()), meter)
    meter.stage = "extract"  # set once the stage exists, before any call
    result = await models.extractor.extract(ExtractInput(scope=SCOPE, messages=[]))
    assert result.calls[0].model == "big-model"  # the value passes through untouched
    labels = {"stage": "extract", "kind": "extract", "model": "big-model"}
    assert value(registry, "factstream_model_input_tokens_total", **labels) == 1200
    assert value(registry, "factstream_model_output_tokens_total", **labels) == 80
    assert value(registry, "factstream_model_retries_total", **labels) == 2
    hist = {**labels, "outcome": "ok"}
    assert value(registry, "factstream_model_call_seconds_count", **hist) == 1
    assert value(registry, "factstream_model_call_seconds_sum", **hist) == pytest.approx(1.5)
    assert value(registry, "factstream_model_call_seconds_bucket", **hist, le="2.0") == 1
    assert value(registry, "factstream_model_call_seconds_bucket", **hist, le="1.0") == 0


async def test_a_429_counts_as_rate_limited_and_as_an_error() -> None:
    registry = CollectorRegistry()
    meter = ModelMetrics(registry, "summarize")
    models = metered(models_with(embedder=RateLimitedEmbedder()), meter)
    with pytest.raises(ModelCallFailed):
        await models.embedder.embed(EmbedInput(scope=SCOPE, purpose="summary", texts=["x"]))
    labels = {"stage": "summarize", "kind": "embed", "model": "embedder"}
    assert value(registry, "factstream_model_rate_limited_total", **labels) == 1
    assert value(registry, "factstream_model_errors_total", **labels, error="rate_limited") == 1
    assert value(registry, "factstream_model_retries_total", **labels) == 3
    assert value(registry, "factstream_model_call_seconds_count", **labels, outcome="error") == 1


async def test_an_exception_without_records_is_one_error_of_its_kind() -> None:
    registry = CollectorRegistry()
    models = metered(models_with(embedder=BrokenEmbedder()), ModelMetrics(registry, "dedup"))
    with pytest.raises(ConnectionError):
        await models.embedder.embed(EmbedInput(scope=SCOPE, purpose="facts", texts=["x"]))
    labels = {"stage": "dedup", "kind": "embed", "model": "unknown", "error": "connection"}
    assert value(registry, "factstream_model_errors_total", **labels) == 1


async def test_scripted_failures_are_counted_from_their_records() -> None:
    def fail(_request: Any) -> Any:
        raise TimeoutError("the model did not answer")

    registry = CollectorRegistry()
    models = metered(scripted_models(dim=4, extract=fail), ModelMetrics(registry, "extract"))
    with pytest.raises(ModelCallFailed):
        await models.extractor.extract(ExtractInput(scope=SCOPE, messages=[]))
    labels = {"stage": "extract", "kind": "extract", "model": "scripted", "error": "timeout"}
    assert value(registry, "factstream_model_errors_total", **labels) == 1


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("ClientError: 429 RESOURCE_EXHAUSTED. {...}", "rate_limited"),
        ("RateLimitError: Error code: 429 - {'error': ...}", "rate_limited"),
        ("ServerError: 503 UNAVAILABLE.", "server_error"),
        ("InternalServerError: Error code: 500 - ...", "server_error"),
        ("ClientError: 400 INVALID_ARGUMENT. ...", "client_error"),
        ("ReadTimeout: ", "timeout"),
        ("ConnectError: All connection attempts failed", "connection"),
        ("reply is not a valid RawGraph (finish reason MAX_TOKENS): ...", "invalid_reply"),
        ("ValueError: the reply held 500 facts", "other"),
    ],
)  # fmt: skip
def test_error_kinds(error: str, kind: str) -> None:
    assert error_kind(error) == kind
