"""A model provider for fault drills: scripted answers, served through the Gemini provider
with faults injected BELOW its retry loop.

``FACTSTREAM_MODEL_PROVIDER=streams.model.fakes.chaos:create_models`` builds the real
``GeminiExtractor``/``GeminiJudge``/``GeminiSummarizer``/``GeminiEmbedder`` on a fake of the
one google-genai surface they call (``client.aio.models.generate_content`` /
``embed_content``). The fake answers with what an inner scripted provider
(``FACTSTREAM_CHAOS_INNER``, a ``package.module:factory``) says, rendered to JSON, or,
on ``FACTSTREAM_CHAOS_FAULT_RATE`` of the attempts, with a fault:

- ``429``: ``google.genai.errors.ClientError`` 429 with a RetryInfo delay (retried),
- ``500``: ``google.genai.errors.ServerError`` 500 (retried),
- ``timeout``: the call hangs past ``llm_timeout_s`` (the retry loop's timeout fires),
- ``malformed``: the reply text is not JSON (single quotes, as a Python repr: not
  retried, ModelCallFailed, as with Gemini; a cut-off answer would keep its complete
  entries instead); embeddings have no JSON text, so they get one of the other three.

So the provider's own code runs: prompt rendering (injection strings go through the
fence), ``streams.model.retry`` (backoff, server delay, timeouts), reply validation and
the call records. ``FACTSTREAM_CHAOS_FAULT_LOG`` appends one JSON line per attempt
(``{"kind", "fault"}``) so a drill can count what it injected.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from pydantic import BaseModel
from pydantic_settings import BaseSettings, SettingsConfigDict

from streams.domain.graph import RawGraph
from streams.model import ports
from streams.model.gemini.embed import GeminiEmbedder
from streams.model.gemini.llm import GeminiJsonCall
from streams.model.loader import ModelProviderError, build_models
from streams.model.prompts import extract as extract_prompt
from streams.model.prompts import judge as judge_prompt
from streams.model.prompts import summarize as summarize_prompt
from streams.settings import Settings

FAULT_KINDS = ("429", "500", "timeout", "malformed")

Req = TypeVar("Req", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)


class ChaosSettings(BaseSettings):
    """``FACTSTREAM_CHAOS_*``: what to wrap and how often to fail."""

    model_config = SettingsConfigDict(env_prefix="FACTSTREAM_CHAOS_", frozen=True, extra="ignore")

    inner: str = "streams.model.fakes.demo:create_models"
    fault_rate: float = 0.0
    fault_kinds: str = ",".join(FAULT_KINDS)
    seed: int | None = None
    fault_log: str | None = None
    retry_delay_s: float = 0.2  # what the injected 429 asks for (RetryInfo.retryDelay)


@dataclass
class FaultInjector:
    """Decides each attempt's fate and logs it (one O_APPEND line: safe across processes)."""

    rate: float
    kinds: tuple[str, ...]
    hang_s: float
    retry_delay_s: float = 0.2
    log_path: str | None = None
    rng: random.Random = field(default_factory=random.Random)

    def draw(self, kind: ports.CallKind, json_reply: bool) -> str | None:
        fault: str | None = None
        if self.rate > 0 and self.rng.random() < self.rate:
            allowed = [k for k in self.kinds if json_reply or k != "malformed"]
            fault = self.rng.choice(allowed) if allowed else None
        self._log(kind, fault)
        return fault

    def _log(self, kind: ports.CallKind, fault: str | None) -> None:
        if self.log_path is None:
            return
        line = json.dumps({"kind": kind, "fault": fault, "pid": os.getpid()}) + "\n"
        fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    async def apply(self, fault: str | None) -> None:
        """Raise (or hang) as Gemini would for ``fault``; return for none/malformed."""
        if fault == "429":
            raise genai_errors.ClientError(429, {"error": {
                "code": 429, "status": "RESOURCE_EXHAUSTED",
                "message": "Resource has been exhausted (chaos drill)",
                "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                             "retryDelay": f"{self.retry_delay_s}s"}],
            }})  # fmt: skip
        if fault == "500":
            raise genai_errors.ServerError(500, {"error": {
                "code": 500, "status": "INTERNAL", "message": "Internal error (chaos drill)",
            }})  # fmt: skip
        if fault == "timeout":
            await asyncio.sleep(self.hang_s)  # the retry loop's wait_for gives up first


def _reply(text: str) -> types.GenerateContentResponse:
    return types.GenerateContentResponse.model_validate({
        "candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                        "finishReason": "MAX_TOKENS" if text.endswith("…") else "STOP"}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": len(text) // 4},
    })  # fmt: skip


class _FakeModels:
    """The ``client.aio.models`` surface: answers registered per prompt / per text batch."""

    def __init__(self, kind: ports.CallKind, injector: FaultInjector) -> None:
        self.kind, self.injector = kind, injector
        self.answers: dict[str, str] = {}
        self.vectors: dict[tuple[str, ...], list[list[float]]] = {}

    async def generate_content(self, *, model: str, contents: Any, config: Any) -> Any:
        answer = self.answers[str(contents)]
        fault = self.injector.draw(self.kind, json_reply=True)
        await self.injector.apply(fault)
        if fault == "malformed":
            return _reply(answer.replace('"', "'"))  # a Python repr: nothing to salvage
        return _reply(answer)

    async def embed_content(self, *, model: str, contents: Any, config: Any) -> Any:
        vectors = self.vectors[tuple(contents)]
        await self.injector.apply(self.injector.draw(self.kind, json_reply=False))
        return types.EmbedContentResponse(
            embeddings=[types.ContentEmbedding(values=v) for v in vectors]
        )


class _FakeClient:
    def __init__(self, models: _FakeModels) -> None:
        self.aio = type("Aio", (), {"models": models})()


class _ChaosJson(Generic[Req, Out]):
    """One JSON port: the inner answer becomes the fake reply to the real rendered prompt."""

    def __init__(
        self,
        kind: ports.CallKind,
        settings: Settings,
        injector: FaultInjector,
        render: Callable[[Req], str],
        response_model: type[Out],
    ) -> None:
        self.fake = _FakeModels(kind, injector)
        self.render = render
        self.pending: dict[int, str] = {}  # id(request) -> answer JSON, until rendered
        self.prompts: dict[int, str] = {}  # id(request) -> its prompt, while in flight
        client = cast(genai.Client, _FakeClient(self.fake))
        self.call = GeminiJsonCall[Req, Out](
            client, settings, kind, f"chaos-{kind}", self._render, response_model
        )

    def _render(self, request: Req) -> str:
        prompt = self.render(request)  # the real prompt (random fence boundary: unique)
        self.fake.answers[prompt] = self.pending.pop(id(request))
        self.prompts[id(request)] = prompt
        return prompt

    async def __call__(self, request: Req, answer: BaseModel) -> ports.ModelResult[Out]:
        self.pending[id(request)] = answer.model_dump_json()
        try:
            return await self.call(request)
        finally:
            self.pending.pop(id(request), None)
            self.fake.answers.pop(self.prompts.pop(id(request), ""), None)


class ChaosModels:
    """Models whose every call goes through the Gemini provider code and the injector."""

    def __init__(self, inner: ports.Models, settings: Settings, injector: FaultInjector) -> None:
        self.inner = inner
        self._extract = _ChaosJson[ports.ExtractInput, RawGraph](
            "extract", settings, injector, extract_prompt.render, extract_prompt.RESPONSE_MODEL
        )
        self._judge = _ChaosJson[ports.JudgeInput, ports.JudgeOutput](
            "judge", settings, injector, judge_prompt.render, judge_prompt.RESPONSE_MODEL
        )
        self._summarize = _ChaosJson[ports.SummarizeInput, ports.SummaryOutput](
            "summarize", settings, injector, summarize_prompt.render,
            summarize_prompt.RESPONSE_MODEL,
        )  # fmt: skip
        self._embed_fake = _FakeModels("embed", injector)
        self._embed_users: dict[tuple[str, ...], int] = {}
        self._embedder = GeminiEmbedder(settings, cast(genai.Client, _FakeClient(self._embed_fake)))

    async def extract(self, request: ports.ExtractInput) -> ports.ModelResult[RawGraph]:
        answer = await self.inner.extractor.extract(request)
        return await self._extract(request, answer.value)

    async def judge(self, request: ports.JudgeInput) -> ports.ModelResult[ports.JudgeOutput]:
        answer = await self.inner.judge.judge(request)
        return await self._judge(request, answer.value)

    async def summarize(
        self, request: ports.SummarizeInput
    ) -> ports.ModelResult[ports.SummaryOutput]:
        answer = await self.inner.summarizer.summarize(request)
        return await self._summarize(request, answer.value)

    async def embed(self, request: ports.EmbedInput) -> ports.ModelResult[list[list[float]]]:
        answer = await self.inner.embedder.embed(request)
        texts = tuple(request.texts)
        # Concurrent calls may embed the same texts: keep the entry while any is in flight.
        self._embed_users[texts] = self._embed_users.get(texts, 0) + 1
        self._embed_fake.vectors[texts] = answer.value
        try:
            return await self._embedder.embed(request)
        finally:
            self._embed_users[texts] -= 1
            if not self._embed_users[texts]:
                del self._embed_users[texts]
                self._embed_fake.vectors.pop(texts, None)

    def as_models(self) -> ports.Models:
        return ports.Models(extractor=self, judge=self, summarizer=self, embedder=self)


def injector_from(chaos: ChaosSettings, settings: Settings) -> FaultInjector:
    kinds = tuple(k.strip() for k in chaos.fault_kinds.split(",") if k.strip())
    unknown = set(kinds) - set(FAULT_KINDS)
    if unknown or not 0 <= chaos.fault_rate <= 1:
        raise ModelProviderError(
            f"chaos provider: fault kinds must be among {FAULT_KINDS} (got {sorted(unknown)})"
            f" and the fault rate in [0, 1] (got {chaos.fault_rate})"
        )
    seed = chaos.seed if chaos.seed is None else chaos.seed + os.getpid()
    return FaultInjector(
        rate=chaos.fault_rate, kinds=kinds, hang_s=settings.llm_timeout_s + 1.0,
        retry_delay_s=chaos.retry_delay_s, log_path=chaos.fault_log, rng=random.Random(seed),
    )  # fmt: skip


def create_models(settings: Settings, **_: Any) -> ports.Models:
    chaos = ChaosSettings()
    inner = build_models(settings.model_copy(update={"model_provider": chaos.inner}))
    return ChaosModels(inner, settings, injector_from(chaos, settings)).as_models()
