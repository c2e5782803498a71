"""Scripted providers: the ports answered from a script, for tests, the demo, the bench
and the chaos drill.

The model is the only thing faked in tests, and only through these ports. A script is a
function from the request to the answer (or an exception to raise), so a test states
exactly what "the model" says for each input. Calls are recorded like a real provider's.
What scripts are made of (claims, graphs, verdict tables) is in streams/model/fakes/book.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from streams.domain.graph import RawGraph
from streams.model.ports import (
    CallKind,
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

Req = TypeVar("Req", bound=BaseModel)
Out = TypeVar("Out")
Script = Callable[[Req], Out | Awaitable[Out]]


async def _run(
    kind: CallKind, script: Callable[[Any], Any], request: BaseModel, delay_s: float
) -> ModelResult[Any]:
    started = time.perf_counter()
    if delay_s:
        await asyncio.sleep(delay_s)
    try:
        answer = script(request)
        if asyncio.iscoroutine(answer):
            answer = await answer
    except Exception as exc:
        record = CallRecord(
            kind,
            "scripted",
            request.model_dump(mode="json"),
            None,
            (time.perf_counter() - started) * 1000,
            error=repr(exc),
        )
        raise ModelCallFailed(f"scripted {kind} failed: {exc}", [record]) from exc
    response = (
        answer.model_dump(mode="json") if isinstance(answer, BaseModel) else {"value": answer}
    )
    record = CallRecord(
        kind,
        "scripted",
        request.model_dump(mode="json"),
        response,
        (time.perf_counter() - started) * 1000,
        input_tokens=0,
        output_tokens=0,
    )
    return ModelResult(answer, [record])


class ScriptedExtractor:
    def __init__(self, script: Callable[[ExtractInput], Any], delay_s: float = 0.0) -> None:
        self.script, self.delay_s, self.requests = script, delay_s, list[ExtractInput]()

    async def extract(self, request: ExtractInput) -> ModelResult[RawGraph]:
        self.requests.append(request)
        return await _run("extract", self.script, request, self.delay_s)


class ScriptedJudge:
    def __init__(self, script: Callable[[JudgeInput], Any], delay_s: float = 0.0) -> None:
        self.script, self.delay_s, self.requests = script, delay_s, list[JudgeInput]()

    async def judge(self, request: JudgeInput) -> ModelResult[JudgeOutput]:
        self.requests.append(request)
        return await _run("judge", self.script, request, self.delay_s)


class ScriptedSummarizer:
    def __init__(self, script: Callable[[SummarizeInput], Any], delay_s: float = 0.0) -> None:
        self.script, self.delay_s, self.requests = script, delay_s, list[SummarizeInput]()

    async def summarize(self, request: SummarizeInput) -> ModelResult[SummaryOutput]:
        self.requests.append(request)
        return await _run("summarize", self.script, request, self.delay_s)


class ScriptedEmbedder:
    """Vectors from a table of known texts; unknown texts get a stable pseudo-random one.

    ``table`` maps a text to its vector (padded or cut to ``dim``), so a test can place
    two texts at an exact cosine similarity; see :func:`vector_at_similarity`.
    """

    def __init__(
        self,
        dim: int,
        table: dict[str, list[float]] | None = None,
        fail: Callable[[EmbedInput], Exception | None] | None = None,
        delay_s: float = 0.0,
    ) -> None:
        self.dim, self.table, self.fail, self.delay_s = dim, dict(table or {}), fail, delay_s
        self.requests: list[EmbedInput] = []

    def vector(self, text: str) -> list[float]:
        if text in self.table:
            v = (list(self.table[text]) + [0.0] * self.dim)[: self.dim]
            return _normalise(v)
        return hashed_vector(text, self.dim)

    async def embed(self, request: EmbedInput) -> ModelResult[list[list[float]]]:
        self.requests.append(request)

        def answer(req: EmbedInput) -> list[list[float]]:
            if self.fail is not None and (error := self.fail(req)) is not None:
                raise error
            return [self.vector(t) for t in req.texts]

        return await _run("embed", answer, request, self.delay_s)


class KeyedEmbedder(ScriptedEmbedder):
    """Vectors by a folded key of the text (case and punctuation do not matter: "acme
    corp." and "Acme Corp" embed alike); ``near(key)`` may place a key at an exact
    similarity to another: ``("user likes tea", 0.97)``."""

    def __init__(
        self, dim: int, near: Callable[[str], tuple[str, float] | None] = lambda _key: None
    ) -> None:
        super().__init__(dim)
        self.near = near

    def vector(self, text: str) -> list[float]:
        key = fold_key(text)
        if (target := self.near(key)) is not None:
            base, similarity = target
            return vector_at_similarity(hashed_vector(base, self.dim), similarity, seed=key)
        return hashed_vector(key, self.dim)


def fold_key(text: str) -> str:
    """Lower-case letters, digits, spaces and hyphens only, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9 \-]", "", text.lower())).strip()


def _normalise(v: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def hashed_vector(text: str, dim: int) -> list[float]:
    """A deterministic unit vector for a text; unrelated texts are nearly orthogonal."""
    out: list[float] = []
    counter = 0
    while len(out) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        out.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    return _normalise(out[:dim])


def vector_at_similarity(base: list[float], similarity: float, seed: str = "x") -> list[float]:
    """A unit vector whose cosine similarity with unit ``base`` is exactly ``similarity``."""
    base = _normalise(base)
    other = hashed_vector(seed, len(base))
    # Gram-Schmidt: the part of `other` orthogonal to `base`.
    dot = sum(a * b for a, b in zip(base, other, strict=True))
    ortho = _normalise([o - dot * b for o, b in zip(other, base, strict=True)])
    s = similarity
    t = math.sqrt(max(0.0, 1 - s * s))
    return [s * b + t * o for b, o in zip(base, ortho, strict=True)]


def user_turns_summary(request: SummarizeInput) -> SummaryOutput:
    """A summary that repeats what the user said (the fakes' default summarizer)."""
    said = " ".join(m.content for m in request.messages if m.role.value == "user")
    return SummaryOutput(summary=f"The user said: {said[:300]}")


def scripted_models(
    *,
    extract: Callable[[ExtractInput], Any] | None = None,
    judge: Callable[[JudgeInput], Any] | None = None,
    summarize: Callable[[SummarizeInput], Any] | None = None,
    embedder: Any = None,
    dim: int = 16,
) -> Models:
    """Models answered by scripts. Defaults: an empty graph, every pair ``neither``, the
    user's turns as the summary, and hashed vectors of ``dim`` dimensions."""
    return Models(
        extractor=ScriptedExtractor(extract or (lambda _request: RawGraph())),
        judge=ScriptedJudge(judge or (lambda _request: JudgeOutput())),
        summarizer=ScriptedSummarizer(summarize or user_turns_summary),
        embedder=embedder if embedder is not None else ScriptedEmbedder(dim),
    )
