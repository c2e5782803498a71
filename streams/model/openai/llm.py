"""The OpenAI-compatible provider: extract, judge and summarize as chat completions.

Each call sends the rendered prompt (streams/model/prompts, as for Gemini) as the one
user message, with ``response_format`` a strict JSON schema derived from the same
pydantic response model (openai/schema.py), the least reasoning the model takes and
temperature 0 where the model accepts one (openai/reasoning.py). The reply is validated
with that pydantic model, so JSON that is malformed or breaks the schema, a refusal
(``message.refusal``) or an empty reply is a ModelCallFailed with its record, never a
crash further down; like Gemini's, these are not retried (at temperature 0 a retry
would repeat them). Retries (429, 5xx, timeouts) live in streams/model/retry.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar, cast

import openai
from openai.types.chat import ChatCompletion
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ValidationError

from streams.domain.graph import RawGraph
from streams.domain.lenient import read_reply
from streams.model.calls import ERROR_CHARS, describe_error, elapsed_ms, log_retry
from streams.model.openai.client import is_retryable, make_client
from streams.model.openai.reasoning import sampling
from streams.model.openai.schema import response_format
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


class OpenAIJsonCall(Generic[Req, Out]):
    """One strict-JSON chat completion per request, with retries and a record."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        settings: Settings,
        kind: CallKind,
        model: str,
        render: Callable[[Req], str],
        response_model: type[Out],
    ) -> None:
        self.client, self.kind, self.model = client, kind, model
        self.render, self.response_model = render, response_model
        self.policy = RetryPolicy.from_settings(settings)
        self.sampling = sampling(model, settings.openai_reasoning_effort)
        self.response_format = response_format(response_model)
        # The request body besides model and messages, as sent (None: not sent at all).
        self.sent_config: dict[str, Any] = {
            "response_format": self.response_format,
            "reasoning_effort": self.sampling.reasoning_effort,
            "temperature": self.sampling.temperature,
            "timeout_s": self.policy.timeout_s,
        }

    async def _create(self, prompt: str) -> ChatCompletion:
        s = self.sampling
        return await self.client.chat.completions.create(
            model=self.model,
            messages=[{"role": "user", "content": prompt}],
            response_format=cast(ResponseFormatJSONSchema, self.response_format),
            reasoning_effort=openai.omit if s.reasoning_effort is None else s.reasoning_effort,
            temperature=openai.omit if s.temperature is None else s.temperature,
        )

    def _record(self, request: dict[str, Any], started: float, **fields: Any) -> CallRecord:
        return CallRecord(self.kind, self.model, request, latency_ms=elapsed_ms(started), **fields)

    async def __call__(self, request: Req) -> ModelResult[Out]:
        prompt = self.render(request)
        # The prompt is the one user message ("messages": [{"role": "user", ...}]).
        record_request = {"model": self.model, "prompt": prompt, "config": self.sent_config}
        started = time.perf_counter()
        try:
            response, attempts = await with_retries(
                lambda: self._create(prompt),
                self.policy,
                on_error=log_retry("openai", self.kind, self.model),
                retryable=is_retryable,
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
                f"openai {self.kind} call ({self.model}) failed after {exc.attempts}"
                f" attempt(s): {describe_error(exc.error)}",
                [record],
                outage=exc.outage,
            ) from exc.error
        return self._parse(response, record_request, started, attempts)

    def _parse(
        self, response: Any, record_request: dict[str, Any], started: float, attempts: int
    ) -> ModelResult[Out]:
        # The SDK builds the reply without validating it: a server may leave anything out.
        choices = getattr(response, "choices", None) or []
        choice = choices[0] if choices else None
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None)
        refusal = getattr(message, "refusal", None)
        finish_reason = getattr(choice, "finish_reason", None)
        usage = getattr(response, "usage", None)
        tokens = {
            "input_tokens": getattr(usage, "prompt_tokens", None),
            "output_tokens": getattr(usage, "completion_tokens", None),
        }
        more = {"refusal": refusal} if refusal else {}
        value: Out | None = None
        error: str | None = None
        if refusal:
            error = f"the model refused: {refusal}"
        elif not isinstance(text, str):
            error = f"the reply has no text (finish reason {finish_reason})"
        else:
            try:
                value = read_reply(self.response_model, text)
            except ValidationError as exc:
                error = (
                    f"reply is not a valid {self.response_model.__name__} (finish reason"
                    f" {finish_reason}): {exc}"
                )
        record = self._record(
            record_request,
            started,
            response=reply_record(
                text if isinstance(text, str) else None, value, finish_reason, **more
            ),
            attempts=attempts,
            error=None if error is None else error[:ERROR_CHARS],
            **tokens,
        )
        if value is None:
            raise ModelCallFailed(
                f"openai {self.kind} call ({self.model}): {record.error}", [record]
            )
        return ModelResult(value, [record])


class OpenAIExtractor:
    def __init__(self, settings: Settings, client: openai.AsyncOpenAI | None = None) -> None:
        self._call = OpenAIJsonCall[ExtractInput, RawGraph](
            client or make_client(settings),
            settings,
            "extract",
            settings.extract_model,
            extract_prompt.render,
            extract_prompt.RESPONSE_MODEL,
        )

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        return await self._call(request)


class OpenAIJudge:
    def __init__(self, settings: Settings, client: openai.AsyncOpenAI | None = None) -> None:
        self._call = OpenAIJsonCall[JudgeInput, JudgeOutput](
            client or make_client(settings),
            settings,
            "judge",
            settings.judge_model,
            judge_prompt.render,
            judge_prompt.RESPONSE_MODEL,
        )

    async def judge(self, request: JudgeInput) -> ModelResult[JudgeOutput]:
        return await self._call(request)


class OpenAISummarizer:
    def __init__(self, settings: Settings, client: openai.AsyncOpenAI | None = None) -> None:
        self._call = OpenAIJsonCall[SummarizeInput, SummaryOutput](
            client or make_client(settings),
            settings,
            "summarize",
            settings.summarize_model,
            summarize_prompt.render,
            summarize_prompt.RESPONSE_MODEL,
        )

    async def summarize(self, request: SummarizeInput) -> ModelResult[SummaryOutput]:
        return await self._call(request)
