"""Record and replay model calls through a JSONL cassette.

Recording wraps any Models and appends one line per call:
``{key, kind, scope, input, output, error}``, plus ``response_text`` (the reply text
exactly as the provider received it) when the provider recorded one. Replay answers from
the cassette, with no network, deterministically: from ``response_text`` parsed with
today's response model when the entry has it (so a replay sees what the live provider
would make of that reply), else from ``output`` (cassettes of scripted models, and
those written before ``response_text`` existed, such as the bundled demo cassette).

The key is call kind + dataset + project + episode + sha256 of the canonical JSON of the
call's INPUT DATA (the request model without its scope, sorted keys), never of the
prompt text: the prompt can be reworded and the cassette stays valid.

When a key was recorded more than once, the last success wins; a recorded failure is
replayed only for a key that never succeeded (a regression run wants the good answer).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from streams.domain.graph import RawGraph
from streams.domain.lenient import read_reply
from streams.model import ports

REPLAY_MODEL = "replay"
_PREVIEW_CHARS = 300

AnyRequest = ports.ExtractInput | ports.JudgeInput | ports.SummarizeInput | ports.EmbedInput
Req = TypeVar("Req", ports.EmbedInput, ports.ExtractInput, ports.JudgeInput, ports.SummarizeInput)
T = TypeVar("T")


def input_data(request: BaseModel) -> dict[str, Any]:
    """What the call is about, without the scope (the scope is in the key already) and
    without the judge's clock, which differs on every run of the same episodes."""
    exclude = {"scope", "reference_time"} if isinstance(request, ports.JudgeInput) else {"scope"}
    return request.model_dump(mode="json", exclude=exclude)


def replay_key(kind: ports.CallKind, request: AnyRequest) -> str:
    canonical = json.dumps(
        input_data(request), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    s = request.scope
    return f"{kind}|{s.dataset}|{s.project_id}|{s.episode_id}|{digest}"


def _output_json(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def reply_text(calls: list[ports.CallRecord]) -> str | None:
    """The reply text of the provider's last call, when its record has one (reply_record)."""
    response = calls[-1].response if calls else None
    text = response.get("text") if isinstance(response, dict) else None
    return text if isinstance(text, str) else None


class Cassette:
    """Append-only JSONL file; each line is written with one O_APPEND write."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def append(self, entry: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n").encode()
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def load(self) -> dict[str, dict[str, Any]]:
        """The entry each key replays: its last success, else its last failure."""
        index: dict[str, dict[str, Any]] = {}
        with self.path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    key = entry["key"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise ValueError(f"{self.path}:{number}: not a cassette entry: {exc}") from exc
                previous = index.get(key)
                if entry.get("error") is None or previous is None or previous.get("error"):
                    index[key] = entry
        return index


def _text_field(kind: ports.CallKind, calls: list[ports.CallRecord]) -> dict[str, str]:
    text = reply_text(calls) if kind != "embed" else None
    return {} if text is None else {"response_text": text}


class RecordingModels:
    """Wraps a provider's four ports and records every call (success or failure)."""

    def __init__(self, inner: ports.Models, cassette: Cassette) -> None:
        self.inner, self.cassette = inner, cassette

    async def _recorded(
        self,
        kind: ports.CallKind,
        request: Req,
        call: Callable[[Req], Awaitable[ports.ModelResult[T]]],
    ) -> ports.ModelResult[T]:
        entry: dict[str, Any] = {
            "key": replay_key(kind, request),
            "kind": kind,
            "scope": request.scope.model_dump(mode="json"),
            "input": input_data(request),
        }
        try:
            result = await call(request)
        except ports.ModelCallFailed as exc:
            self.cassette.append(
                {**entry, **_text_field(kind, exc.calls), "output": None, "error": str(exc)}
            )
            raise
        self.cassette.append(
            {
                **entry,
                **_text_field(kind, result.calls),
                "output": _output_json(result.value),
                "error": None,
            }
        )
        return result

    async def extract(self, request: ports.ExtractInput) -> ports.ModelResult[RawGraph]:
        return await self._recorded("extract", request, self.inner.extractor.extract)

    async def judge(self, request: ports.JudgeInput) -> ports.ModelResult[ports.JudgeOutput]:
        return await self._recorded("judge", request, self.inner.judge.judge)

    async def summarize(
        self, request: ports.SummarizeInput
    ) -> ports.ModelResult[ports.SummaryOutput]:
        return await self._recorded("summarize", request, self.inner.summarizer.summarize)

    async def embed(self, request: ports.EmbedInput) -> ports.ModelResult[list[list[float]]]:
        return await self._recorded("embed", request, self.inner.embedder.embed)

    def as_models(self) -> ports.Models:
        return ports.Models(extractor=self, judge=self, summarizer=self, embedder=self)


class ReplayModels:
    """Answers every port from a cassette; a call never recorded is a clear failure."""

    def __init__(self, cassette: Cassette, embedding_dim: int | None = None) -> None:
        if not cassette.path.exists():
            raise FileNotFoundError(
                f"no cassette at {cassette.path}: record one with FACTSTREAM_MODEL_PROVIDER=record"
            )
        self.cassette, self.embedding_dim = cassette, embedding_dim
        self.entries = cassette.load()

    def _replay(
        self,
        kind: ports.CallKind,
        request: AnyRequest,
        parse: Callable[[Any], T],
        parse_text: Callable[[str], T] | None = None,
    ) -> ports.ModelResult[T]:
        started = time.perf_counter()
        key = replay_key(kind, request)
        data = input_data(request)
        entry = self.entries.get(key)
        s = request.scope
        problem: str | None = None
        value: T | None = None
        text = entry.get("response_text") if entry is not None else None
        if entry is None:
            problem = f"no recording in {self.cassette.path} for this {kind} call"
        elif entry.get("error") is not None:
            problem = f"the recorded {kind} call failed: {entry['error']}"
        else:
            try:
                if parse_text is not None and isinstance(text, str):
                    value = parse_text(text)
                else:
                    value = parse(entry["output"])
            except (ValueError, TypeError, KeyError) as exc:
                problem = f"the recorded {kind} output no longer parses: {exc}"
        latency = (time.perf_counter() - started) * 1000
        request_record: dict[str, Any] = {"key": key, "input": data}
        if kind == "embed":
            request_record["expected_dimension"] = self.embedding_dim
        if problem is not None or value is None:
            preview = json.dumps(data, ensure_ascii=False)[:_PREVIEW_CHARS]
            message = (
                f"replay: {problem} (tenant {s.dataset}:{s.project_id}, episode"
                f" {s.episode_id}, key {key}); input: {preview}"
            )
            record = ports.CallRecord(
                kind, REPLAY_MODEL, request_record, None, latency, error=message
            )
            raise ports.ModelCallFailed(message, [record])
        output = entry["output"] if entry is not None else None
        response = (
            {"count": len(output), "dims": sorted({len(v) for v in output})}
            if kind == "embed" and isinstance(output, list)
            else ports.reply_record(
                text if isinstance(text, str) else None,
                value if isinstance(value, BaseModel) else None,
            )
        )
        record = ports.CallRecord(
            kind, REPLAY_MODEL, request_record, response, latency, input_tokens=0, output_tokens=0
        )
        return ports.ModelResult(value, [record])

    def _vectors(self, output: Any) -> list[list[float]]:
        vectors = [[float(x) for x in v] for v in output]
        dims = {len(v) for v in vectors}
        if self.embedding_dim is not None and dims - {self.embedding_dim}:
            raise ValueError(
                f"recorded embeddings have dimension {sorted(dims)}, the database wants"
                f" {self.embedding_dim} (re-record the cassette)"
            )
        return vectors

    async def extract(self, request: ports.ExtractInput) -> ports.ModelResult[RawGraph]:
        return self._replay(
            "extract", request, RawGraph.model_validate, partial(read_reply, RawGraph)
        )

    async def judge(self, request: ports.JudgeInput) -> ports.ModelResult[ports.JudgeOutput]:
        return self._replay(
            "judge",
            request,
            ports.JudgeOutput.model_validate,
            partial(read_reply, ports.JudgeOutput),
        )

    async def summarize(
        self, request: ports.SummarizeInput
    ) -> ports.ModelResult[ports.SummaryOutput]:
        return self._replay(
            "summarize",
            request,
            ports.SummaryOutput.model_validate,
            partial(read_reply, ports.SummaryOutput),
        )

    async def embed(self, request: ports.EmbedInput) -> ports.ModelResult[list[list[float]]]:
        return self._replay("embed", request, self._vectors)

    def as_models(self) -> ports.Models:
        return ports.Models(extractor=self, judge=self, summarizer=self, embedder=self)
