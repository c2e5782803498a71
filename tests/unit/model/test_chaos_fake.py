"""The chaos model provider: scripted answers through the real Gemini provider code, with
faults injected below its retry loop (streams/model/fakes/chaos.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from chaos.scenario import build
from streams.model.fakes import chaos as chaos_model
from streams.model.ports import CallScope, EmbedInput, ExtractInput, ModelCallFailed, Models
from streams.settings import Settings

SETTINGS = Settings(
    embedding_dim=16, llm_timeout_s=0.2, llm_max_attempts=3, llm_backoff_base_s=0.001,
    llm_backoff_max_s=0.002,
)  # fmt: skip


def models(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rate: float, kinds: str) -> Models:
    monkeypatch.setenv("FACTSTREAM_CHAOS_INNER", "streams.model.fakes.drill:create_models")
    monkeypatch.setenv("FACTSTREAM_CHAOS_FAULT_RATE", str(rate))
    monkeypatch.setenv("FACTSTREAM_CHAOS_FAULT_KINDS", kinds)
    monkeypatch.setenv("FACTSTREAM_CHAOS_RETRY_DELAY_S", "0.001")
    monkeypatch.setenv("FACTSTREAM_CHAOS_FAULT_LOG", str(tmp_path / "faults.jsonl"))
    return chaos_model.create_models(SETTINGS)


def request() -> ExtractInput:
    e = build(7, 1, 1, "ds").tenants[0].episodes[0]
    scope = CallScope(dataset=e.dataset, project_id=e.project_id, episode_id=e.episode_id)
    return ExtractInput(scope=scope, messages=e.messages)


def logged(tmp_path: Path) -> list[dict[str, str | None]]:
    return [json.loads(line) for line in (tmp_path / "faults.jsonl").read_text().splitlines()]


async def test_no_faults_answers_the_script_through_the_real_prompt(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    result = await models(monkeypatch, tmp_path, 0.0, "429").extractor.extract(request())
    triples = [(c.subject, c.predicate) for c in result.value.relationships]
    assert ("user", "works at") in triples
    (call,) = result.calls
    assert (call.model, call.attempts, call.error) == ("chaos-extract", 1, None)
    assert "I work at" in call.request["prompt"]  # the transcript went through the fence
    assert [(e["kind"], e["fault"]) for e in logged(tmp_path)] == [("extract", None)]


@pytest.mark.parametrize("kind", ["429", "500", "timeout"])
async def test_retryable_faults_are_retried_by_the_provider_then_fail(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    with pytest.raises(ModelCallFailed) as failed:
        await models(monkeypatch, tmp_path, 1.0, kind).extractor.extract(request())
    assert failed.value.calls[0].attempts == SETTINGS.llm_max_attempts
    assert [e["fault"] for e in logged(tmp_path)] == [kind] * SETTINGS.llm_max_attempts


async def test_malformed_json_fails_at_once_as_with_gemini(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(ModelCallFailed, match="not a valid RawGraph") as failed:
        await models(monkeypatch, tmp_path, 1.0, "malformed").extractor.extract(request())
    assert failed.value.calls[0].attempts == 1


async def test_embeddings_get_no_malformed_faults_and_share_concurrent_batches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    m = models(monkeypatch, tmp_path, 1.0, "malformed")
    scope = request().scope
    texts = ["user lives in oslo", "user likes jazz"]
    results = await asyncio.gather(*(
        m.embedder.embed(EmbedInput(scope=scope, purpose="facts", texts=texts))
        for _ in range(5)
    ))  # fmt: skip
    assert all(r.value == results[0].value and len(r.value) == 2 for r in results)
    assert {e["fault"] for e in logged(tmp_path)} == {None}
