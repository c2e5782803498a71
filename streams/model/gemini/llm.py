"""The Gemini provider (google-genai): extract, judge and summarize as JSON calls.

Every call is schema-constrained (the pydantic output model is the response schema),
temperature 0 and thinking off, or as low as the model allows (gemini/thinking.py; the
seed: extraction is pattern matching, and thinking was seen to spiral for minutes on
trivial inputs). The reply is re-validated with
pydantic, so JSON that is malformed or breaks the schema is a ModelCallFailed, never a
crash further down. Retries live in streams/model/retry.py; the SDK's own are off.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from google import genai
from google.genai import _transformers as genai_transformers
from google.genai import types
from pydantic import BaseModel, ValidationError

from streams.domain.graph import RawGraph
from streams.domain.lenient import read_reply
from streams.errors import ConfigError
from streams.model.calls import ERROR_CHARS, describe_error, elapsed_ms, log_retry
from streams.model.gemini.thinking import thinking_config
from streams.model.ports import (
    CallKind,
    CallRecord,
    ExtractInput,
    JudgeInput,
    JudgeOutput,
    ModelCallFailed,
    ModelResult,
    SummarizeInput,
    SummaryOutput,
    reply_record,
)
from streams.model.prompts import extract as extract_prompt
from streams.model.prompts import judge as judge_prompt
from streams.model.prompts import summarize as summarize_prompt
from streams.model.retry import RetriesExhausted, RetryPolicy, with_retries
from streams.settings import Settings

Req = TypeVar("Req", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)


class GeminiConfigError(ConfigError, ValueError):
    """The settings cannot build a Gemini client (no API key)."""


def make_client(settings: Settings) -> genai.Client:
    """One client per process; its own retries off, its HTTP timeout = llm_timeout_s."""
    if settings.gemini_api_key is None or not settings.gemini_api_key.get_secret_value():
        raise GeminiConfigError(
            "model provider 'gemini' needs an API key: set FACTSTREAM_GEMINI_API_KEY (or"
            " GEMINI_API_KEY), or choose FACTSTREAM_MODEL_PROVIDER=replay for the recorded"
            " cassette"
        )
    http_options = types.HttpOptions(
        base_url=settings.gemini_base_url,
        timeout=max(1, round(settings.llm_timeout_s * 1000)),  # milliseconds
        # attempts=1: tenacity stops after one try, and the SDK's implicit aiohttp
        # reconnect-and-retry is skipped too, so streams/model/retry.py is the only loop.
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    return genai.Client(
        api_key=settings.gemini_api_key.get_secret_value(), http_options=http_options
    )


def wire_schema(client: genai.Client, response_model: type[BaseModel]) -> dict[str, Any]:
    """The ``responseSchema`` google-genai sends for ``response_model``, as it sends it.

    The SDK converts the pydantic model itself on every call; running the same conversion
    here puts the full schema on the wire into llm_calls, not just the model's name
    (tests/integration/model compare it with the body the stub server received).
    """
    # The API client only decides which schema features are refused; fakes have none.
    api_client = getattr(client, "_api_client", None)
    schema = genai_transformers.t_schema(api_client, response_model)
    if schema is None:  # not reached for a pydantic model; keeps the record complete anyway
        return response_model.model_json_schema()
    return schema.model_dump(mode="json", exclude_none=True)


def _finish_reason(response: types.GenerateContentResponse) -> str | None:
    if response.candidates and response.candidates[0].finish_reason is not None:
        reason = response.candidates[0].finish_reason
        return str(getattr(reason, "value", reason))
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        return f"blocked: {getattr(feedback.block_reason, 'value', feedback.block_reason)}"
    return None


class GeminiJsonCall(Generic[Req, Out]):
    """One schema-constrained generateContent call per request, with retries and a record."""

    def __init__(
        self,
        client: genai.Client,
        settings: Settings,
        kind: CallKind,
        model: str,
        render: Callable[[Req], str],
        response_model: type[Out],
    ) -> None:
        self.client, self.kind, self.model = client, kind, model
        self.render, self.response_model = render, response_model
        self.policy = RetryPolicy.from_settings(settings)
        thinking = thinking_config(model)
        self.config = types.GenerateContentConfig(
            response_mime_type="application/json",
            response_schema=response_model,
            temperature=0,
            thinking_config=thinking,
        )
        self.sent_config: dict[str, Any] = {
            "response_mime_type": "application/json",
            "response_schema": wire_schema(client, response_model),
            "temperature": 0,
            "thinking_config": (
                None if thinking is None else thinking.model_dump(mode="json", exclude_none=True)
            ),
            "timeout_s": self.policy.timeout_s,
        }

    def _request_record(self, prompt: str) -> dict[str, Any]:
        return {"model": self.model, "prompt": prompt, "config": self.sent_config}

    def _record(self, request: dict[str, Any], started: float, **fields: Any) -> CallRecord:
        return CallRecord(self.kind, self.model, request, latency_ms=elapsed_ms(started), **fields)

    async def __call__(self, request: Req) -> ModelResult[Out]:
        prompt = self.render(request)
        record_request = self._request_record(prompt)
        started = time.perf_counter()
        try:
            response, attempts = await with_retries(
                lambda: self.client.aio.models.generate_content(
                    model=self.model, contents=prompt, config=self.config
                ),
                self.policy,
                on_error=log_retry("gemini", self.kind, self.model),
            )
        except RetriesExhausted as exc:
            record = self._record(
                record_request,
                started,
                response=None,
                attempts=exc.attempts,
                error=describe_error(exc.error),
            )
            raise ModelCallFailed(
                f"gemini {self.kind} call ({self.model}) failed after {exc.attempts}"
                f" attempt(s): {describe_error(exc.error)}",
                [record],
                outage=exc.outage,
            ) from exc.error

        usage = response.usage_metadata
        tokens = {
            "input_tokens": usage.prompt_token_count if usage else None,
            "output_tokens": usage.candidates_token_count if usage else None,
        }
        text = response.text
        finish_reason = _finish_reason(response)
        try:
            value = read_reply(self.response_model, text or "")
        except ValidationError as exc:
            # Schema-constrained output can still arrive truncated (MAX_TOKENS), blocked
            # (no text) or off-schema; at temperature 0 a retry would repeat it.
            error = (
                f"reply is not a valid {self.response_model.__name__} (finish reason"
                f" {finish_reason}): {exc}"
            )[:ERROR_CHARS]
            record = self._record(
                record_request,
                started,
                response=reply_record(text, None, finish_reason),
                attempts=attempts,
                error=error,
                **tokens,
            )
            raise ModelCallFailed(f"gemini {self.kind} call: {error}", [record]) from exc
        record = self._record(
            record_request,
            started,
            response=reply_record(text, value, finish_reason),
            attempts=attempts,
            **tokens,
        )
        return ModelResult(value, [record])


class GeminiExtractor:
    def __init__(self, settings: Settings, client: genai.Client | None = None) -> None:
        self._call = GeminiJsonCall[ExtractInput, RawGraph](
            client or make_client(settings),
            settings,
            "extract",
            settings.extract_model,
            extract_prompt.render,
            extract_prompt.RESPONSE_MODEL,
        )

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        return await self._call(request)


class GeminiJudge:
    def __init__(self, settings: Settings, client: genai.Client | None = None) -> None:
        self._call = GeminiJsonCall[JudgeInput, JudgeOutput](
            client or make_client(settings),
            settings,
            "judge",
            settings.judge_model,
            judge_prompt.render,
            judge_prompt.RESPONSE_MODEL,
        )

    async def judge(self, request: JudgeInput) -> ModelResult[JudgeOutput]:
        return await self._call(request)


class GeminiSummarizer:
    def __init__(self, settings: Settings, client: genai.Client | None = None) -> None:
        self._call = GeminiJsonCall[SummarizeInput, SummaryOutput](
            client or make_client(settings),
            settings,
            "summarize",
            settings.summarize_model,
            summarize_prompt.render,
            summarize_prompt.RESPONSE_MODEL,
        )

    async def summarize(self, request: SummarizeInput) -> ModelResult[SummaryOutput]:
        return await self._call(request)
