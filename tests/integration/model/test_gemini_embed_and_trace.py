"""Gemini embeddings against the stub; CallRecords stored in llm_calls; record -> replay."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from streams.model.gemini.embed import GeminiEmbedder
from streams.model.gemini.llm import GeminiExtractor
from streams.model.loader import build_models
from streams.model.ports import CallScope, EmbedInput, ExtractInput, ModelCallFailed
from streams.settings import Settings
from streams.store.db import connect
from streams.store.llm_calls import record_calls
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database
from tests.support.gemini_stub import GeminiStub, embed_reply, error_reply, generate_reply

SCOPE = CallScope(dataset="ds", project_id="p1", episode_id="ep-9")
TEXTS = ["user works at acme", "user drives honda civic", "user lives in chennai"]


def vec(seed: int, dim: int = TEST_EMBEDDING_DIM) -> list[float]:
    return [float((seed * 7 + i) % 5 + 1) for i in range(dim)]


async def test_one_batch_request_per_embed_call_with_output_dimensionality(
    gemini_stub: GeminiStub, stub_settings: Settings
) -> None:
    gemini_stub.reply(embed_reply([vec(1), vec(2), vec(3)]))
    result = await GeminiEmbedder(stub_settings).embed(
        EmbedInput(scope=SCOPE, purpose="facts", texts=TEXTS)
    )

    [seen] = gemini_stub.requests
    assert seen.method == "batchEmbedContents" and seen.model == stub_settings.embed_model
    sent = seen.body["requests"]
    assert [r["content"]["parts"][0]["text"] for r in sent] == TEXTS
    assert {r["outputDimensionality"] for r in sent} == {TEST_EMBEDDING_DIM}

    assert len(result.value) == 3
    assert all(len(v) == TEST_EMBEDDING_DIM for v in result.value)
    assert all(math.isclose(math.hypot(*v), 1.0) for v in result.value)  # normalised
    [record] = result.calls
    assert record.kind == "embed" and record.request["texts"] == TEXTS
    assert record.response == {"count": 3, "dims": [TEST_EMBEDDING_DIM]}


async def test_more_than_100_texts_go_in_batches_of_100(
    gemini_stub: GeminiStub, stub_settings: Settings
) -> None:
    """The API refuses a batch over 100 texts; vectors come back in the texts' order."""
    texts = [f"fact {i}" for i in range(230)]
    gemini_stub.reply(*(embed_reply([vec(i) for i in range(a, b)])
                        for a, b in ((0, 100), (100, 200), (200, 230))))  # fmt: skip
    result = await GeminiEmbedder(stub_settings).embed(
        EmbedInput(scope=SCOPE, purpose="facts", texts=texts)
    )
    sent = [[r["content"]["parts"][0]["text"] for r in seen.body["requests"]]
            for seen in gemini_stub.calls("batchEmbedContents")]  # fmt: skip
    assert [len(batch) for batch in sent] == [100, 100, 30]
    assert [t for batch in sent for t in batch] == texts
    norm = [v / math.hypot(*vec(201)) for v in vec(201)]
    assert all(math.isclose(a, b) for a, b in zip(result.value[201], norm, strict=True))
    assert [c.request["texts"] for c in result.calls] == sent


async def test_a_failed_later_batch_reports_every_call(
    gemini_stub: GeminiStub, stub_settings: Settings
) -> None:
    texts = [f"fact {i}" for i in range(150)]
    short = embed_reply([vec(1)])  # every attempt at the second batch
    gemini_stub.reply(embed_reply([vec(i) for i in range(100)]), short, short, short)
    with pytest.raises(ModelCallFailed) as failed:
        await GeminiEmbedder(stub_settings).embed(
            EmbedInput(scope=SCOPE, purpose="facts", texts=texts)
        )
    first, second = failed.value.calls
    assert first.error is None and "asked for 50 embeddings, got 1" in (second.error or "")


async def test_empty_batch_makes_no_request(
    gemini_stub: GeminiStub, stub_settings: Settings
) -> None:
    result = await GeminiEmbedder(stub_settings).embed(
        EmbedInput(scope=SCOPE, purpose="entities", texts=[])
    )
    assert result.value == [] and gemini_stub.requests == []


def with_nan(seed: int) -> list[float]:
    values = vec(seed)
    values[3] = math.nan
    return values


@pytest.mark.parametrize(
    ("vectors", "expected"),
    [
        ([vec(1), vec(2)], "asked for 3 embeddings, got 2"),
        ([vec(1, 8)] * 3, "dimension 16"),
        ([vec(1), with_nan(2), vec(3)], "embeddings \\[1\\] hold values that are not finite"),
    ],
)
async def test_a_wrong_count_dimension_or_nan_is_retried_then_fails_never_returned(
    gemini_stub: GeminiStub, stub_settings: Settings, vectors: list[list[float]], expected: str
) -> None:
    gemini_stub.reply(*[embed_reply(vectors)] * stub_settings.llm_max_attempts)
    with pytest.raises(ModelCallFailed, match=expected) as failed:
        await GeminiEmbedder(stub_settings).embed(
            EmbedInput(scope=SCOPE, purpose="facts", texts=TEXTS)
        )
    [record] = failed.value.calls
    assert record.attempts == stub_settings.llm_max_attempts
    assert len(gemini_stub.calls("batchEmbedContents")) == stub_settings.llm_max_attempts
    assert record.error is not None and record.response is not None  # what came back


async def test_a_bad_vector_is_asked_for_again(
    gemini_stub: GeminiStub, stub_settings: Settings
) -> None:
    gemini_stub.reply(embed_reply([vec(1), with_nan(2), vec(3)]), embed_reply([vec(4)] * 3))
    result = await GeminiEmbedder(stub_settings).embed(
        EmbedInput(scope=SCOPE, purpose="facts", texts=TEXTS)
    )
    assert result.calls[0].attempts == 2
    assert all(math.isfinite(x) for v in result.value for x in v)


async def test_embed_retries_a_429(gemini_stub: GeminiStub, stub_settings: Settings) -> None:
    gemini_stub.reply(error_reply(429, "RESOURCE_EXHAUSTED"), embed_reply([vec(4)]))
    result = await GeminiEmbedder(stub_settings).embed(
        EmbedInput(scope=SCOPE, purpose="summary", texts=["a summary"])
    )
    assert len(gemini_stub.calls("batchEmbedContents")) == 2
    assert result.calls[0].attempts == 2


async def test_call_records_land_in_llm_calls_with_tokens(
    gemini_stub: GeminiStub, stub_settings: Settings, database_url: str
) -> None:
    extractor = GeminiExtractor(stub_settings)
    request = ExtractInput(scope=SCOPE, messages=[])
    gemini_stub.reply(generate_reply({"entities": []}, prompt_tokens=900, output_tokens=12))
    ok = await extractor.extract(request)
    gemini_stub.reply(*[error_reply(503, "UNAVAILABLE", "overloaded")] * 3)
    with pytest.raises(ModelCallFailed) as failed:
        await extractor.extract(request)

    conn = await connect(await create_fresh_database(database_url))
    try:
        await record_calls(conn, SCOPE, "extract", ok.calls + failed.value.calls)
        rows = await conn.fetch(
            "SELECT kind, model, input_tokens, output_tokens, attempts, error, request, response,"
            " latency_ms FROM llm_calls WHERE dataset = $1 AND project_id = $2"
            " AND episode_id = $3 ORDER BY id",
            SCOPE.dataset,
            SCOPE.project_id,
            SCOPE.episode_id,
        )
    finally:
        await conn.close()
    good, bad = rows
    assert (good["kind"], good["model"]) == ("extract", stub_settings.extract_model)
    assert (good["input_tokens"], good["output_tokens"], good["attempts"]) == (900, 12, 1)
    assert good["error"] is None and good["response"]["parsed"]["entities"] == []
    assert good["response"]["text"] == '{"entities": []}'
    schema = good["request"]["config"]["response_schema"]
    assert {"entities", "relationships", "literalFacts"} <= set(schema["properties"])
    assert "TRANSCRIPT" in good["request"]["prompt"] and good["latency_ms"] > 0
    assert bad["attempts"] == 3 and bad["response"] is None
    assert "503" in bad["error"] and "overloaded" in bad["error"]


async def test_record_then_replay_without_the_network(
    gemini_stub: GeminiStub, stub_settings: Settings, tmp_path: Path
) -> None:
    cassette = tmp_path / "cassette.jsonl"
    recording = build_models(
        stub_settings.model_copy(
            update={"model_provider": "record", "cassette_path": str(cassette)}
        )
    )
    request = ExtractInput(scope=SCOPE, messages=[], known_entities=["acme"])
    graph = {"entities": [{"name": "acme", "type": "ORG"}], "relationships": [], "literalFacts": []}
    gemini_stub.reply(generate_reply(graph), embed_reply([vec(5)]))
    recorded = await recording.extractor.extract(request)
    vectors = await recording.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="entities", texts=["acme"])
    )
    assert len(cassette.read_text().splitlines()) == 2

    replaying = build_models(
        stub_settings.model_copy(
            update={"model_provider": "replay", "cassette_path": str(cassette)}
        )
    )
    before = len(gemini_stub.requests)
    replayed = await replaying.extractor.extract(request)
    again = await replaying.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="entities", texts=["acme"])
    )
    assert len(gemini_stub.requests) == before  # nothing reached the "network"
    assert replayed.value == recorded.value and again.value == vectors.value
    assert replayed.calls[0].model == "replay"
