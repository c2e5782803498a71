"""OpenAI-compatible embeddings against the stub; records in llm_calls; record -> replay."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from streams.model.loader import build_models
from streams.model.openai.embed import OpenAIEmbedder
from streams.model.openai.llm import OpenAIExtractor
from streams.model.ports import (
    CallScope,
    EmbedInput,
    ExtractInput,
    ModelCallFailed,
    SummarizeInput,
)
from streams.settings import Settings
from streams.store.db import connect
from streams.store.llm_calls import record_calls
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database
from tests.support.openai_stub import (
    EMBEDDINGS,
    OpenAIStub,
    StubReply,
    chat_reply,
    embeddings_reply,
    error_reply,
    running_openai_stub,
)

SCOPE = CallScope(dataset="ds", project_id="p1", episode_id="ep-oe")
TEXTS = ["user works at acme", "user drives honda civic", "user lives in chennai"]


def vec(seed: int, dim: int = TEST_EMBEDDING_DIM) -> list[float]:
    return [float((seed * 7 + i) % 5 + 1) for i in range(dim)]


def unit(v: list[float]) -> list[float]:
    return [x / math.hypot(*v) for x in v]


def embed_input(texts: list[str] = TEXTS) -> EmbedInput:
    return EmbedInput(scope=SCOPE, purpose="facts", texts=texts)


async def test_one_request_per_batch_vectors_checked_and_normalised(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    openai_stub.reply(embeddings_reply([vec(1), vec(2), vec(3)], prompt_tokens=21))
    result = await OpenAIEmbedder(openai_settings).embed(embed_input())

    [seen] = openai_stub.requests
    assert seen.method == EMBEDDINGS and seen.model == "nomic-embed-text"
    assert seen.body["input"] == TEXTS and seen.body["encoding_format"] == "float"
    assert "dimensions" not in seen.body  # a local model: one size, the field not sent
    assert result.value == [unit(vec(1)), unit(vec(2)), unit(vec(3))]
    [record] = result.calls
    assert record.kind == "embed" and record.request["texts"] == TEXTS
    assert record.request["config"]["expected_dimension"] == TEST_EMBEDDING_DIM
    assert record.response == {"count": 3, "dims": [TEST_EMBEDDING_DIM]}
    assert (record.input_tokens, record.attempts, record.error) == (21, 1, None)


async def test_openai_text_embedding_3_is_sent_the_dimension(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    settings = openai_settings.model_copy(update={"embed_model": "text-embedding-3-small"})
    openai_stub.reply(embeddings_reply([vec(1)]))
    await OpenAIEmbedder(settings).embed(embed_input(["a"]))
    assert openai_stub.requests[0].body["dimensions"] == TEST_EMBEDDING_DIM
    # ...and "always" sends it to any model.
    always = openai_settings.model_copy(update={"openai_send_dimensions": "always"})
    openai_stub.reply(embeddings_reply([vec(1)]))
    await OpenAIEmbedder(always).embed(embed_input(["a"]))
    assert openai_stub.requests[1].body["dimensions"] == TEST_EMBEDDING_DIM


async def test_vectors_come_back_in_the_order_of_their_indices(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    body = embeddings_reply([vec(1), vec(2), vec(3)]).body
    body["data"] = [body["data"][2], body["data"][0], body["data"][1]]
    openai_stub.reply(StubReply(body=body))
    result = await OpenAIEmbedder(openai_settings).embed(embed_input())
    assert result.value == [unit(vec(1)), unit(vec(2)), unit(vec(3))]


BAD_REPLIES = [
    ([vec(1), vec(2)], "asked for 3 embeddings, got 2"),
    ([vec(1), vec(2, 8), vec(3)], f"asked for dimension {TEST_EMBEDDING_DIM}, got \\[8, 16\\]"),
    ([vec(1), [float("nan"), *vec(2)[1:]], vec(3)], "not finite numbers"),
    ([vec(1), vec(2), [None, *vec(3)[1:]]], "not finite numbers"),
    ([vec(1), [0.0] * TEST_EMBEDDING_DIM, vec(3)], "all zeros"),
]


@pytest.mark.parametrize(("vectors", "expected"), BAD_REPLIES)
async def test_a_bad_reply_is_retried_and_never_returned(
    openai_stub: OpenAIStub, openai_settings: Settings, vectors: list[Any], expected: str
) -> None:
    openai_stub.reply(*[embeddings_reply(vectors)] * 3)
    with pytest.raises(ModelCallFailed, match=expected) as failed:
        await OpenAIEmbedder(openai_settings).embed(embed_input())
    assert len(openai_stub.calls(EMBEDDINGS)) == openai_settings.llm_max_attempts == 3
    [record] = failed.value.calls
    assert record.attempts == 3 and record.error is not None
    assert record.response is not None and record.response["count"] == len(vectors)
    assert not failed.value.outage


async def test_a_good_reply_after_a_bad_one_is_used(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    nan = [float("nan")] * TEST_EMBEDDING_DIM
    openai_stub.reply(embeddings_reply([nan]), embeddings_reply([vec(4)]))
    result = await OpenAIEmbedder(openai_settings).embed(embed_input(["a summary"]))
    assert result.value == [unit(vec(4))] and result.calls[0].attempts == 2


async def test_more_than_100_texts_go_in_batches_of_100(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    texts = [f"fact {i}" for i in range(230)]
    openai_stub.reply(*(embeddings_reply([vec(i) for i in range(a, b)])
                        for a, b in ((0, 100), (100, 200), (200, 230))))  # fmt: skip
    result = await OpenAIEmbedder(openai_settings).embed(embed_input(texts))
    sent = [seen.body["input"] for seen in openai_stub.calls(EMBEDDINGS)]
    assert [len(batch) for batch in sent] == [100, 100, 30]
    assert [t for batch in sent for t in batch] == texts
    assert result.value[201] == unit(vec(201)) and len(result.calls) == 3


async def test_429_with_retry_after_then_success(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    settings = openai_settings.model_copy(update={"llm_backoff_max_s": 2.0})
    openai_stub.reply(error_reply(429, retry_after_ms="400"), embeddings_reply([vec(4)]))
    result = await OpenAIEmbedder(settings).embed(embed_input(["a"]))
    first, second = openai_stub.requests
    assert second.at - first.at >= 0.4 and result.calls[0].attempts == 2


async def test_empty_batch_makes_no_request(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    result = await OpenAIEmbedder(openai_settings).embed(embed_input([]))
    assert result.value == [] and openai_stub.requests == []


async def test_call_records_land_in_llm_calls_with_tokens(
    openai_stub: OpenAIStub, openai_settings: Settings, database_url: str
) -> None:
    extractor = OpenAIExtractor(openai_settings)
    request = ExtractInput(scope=SCOPE, messages=[])
    text = '{"entities": [], "relationships": [], "literalFacts": []}'
    openai_stub.reply(chat_reply(text, prompt_tokens=900, completion_tokens=12))
    ok = await extractor.extract(request)
    refusal = "I can't \x00 help"  # a NUL from the model must not lose the record
    openai_stub.reply(chat_reply(None, refusal=refusal))
    with pytest.raises(ModelCallFailed) as failed:
        await extractor.extract(request)

    conn = await connect(await create_fresh_database(database_url))
    try:
        await record_calls(conn, SCOPE, "extract", ok.calls + failed.value.calls)
        rows = await conn.fetch(
            "SELECT model, input_tokens, output_tokens, error, request, response FROM llm_calls"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3 ORDER BY id",
            SCOPE.dataset,
            SCOPE.project_id,
            SCOPE.episode_id,
        )
    finally:
        await conn.close()
    good, bad = rows
    assert (good["model"], good["input_tokens"], good["output_tokens"]) == ("gpt-4.1-mini", 900, 12)
    assert good["response"]["text"] == text and good["error"] is None
    fmt = good["request"]["config"]["response_format"]
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["schema"]["required"] == ["entities", "relationships", "literalFacts"]
    assert bad["response"]["refusal"] == "I can't \ufffd help"
    assert "refused" in bad["error"]


async def test_record_then_replay_without_the_network(
    openai_stub: OpenAIStub, openai_settings: Settings, tmp_path: Path
) -> None:
    cassette = tmp_path / "cassette.jsonl"
    recording = build_models(
        openai_settings.model_copy(
            update={
                "model_provider": "record",
                "record_inner_provider": "openai",
                "cassette_path": str(cassette),
            }
        )
    )
    request = ExtractInput(scope=SCOPE, messages=[], known_entities=["acme"])
    text = (
        '{"entities": [{"name": "acme", "type": "ORG"}], "relationships": [], "literalFacts": []}'
    )
    openai_stub.reply(chat_reply(text), embeddings_reply([vec(5)]))
    recorded = await recording.extractor.extract(request)
    vectors = await recording.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="entities", texts=["acme"])
    )

    replaying = build_models(
        openai_settings.model_copy(
            update={"model_provider": "replay", "cassette_path": str(cassette)}
        )
    )
    before = len(openai_stub.requests)
    replayed = await replaying.extractor.extract(request)
    again = await replaying.embedder.embed(
        EmbedInput(scope=SCOPE, purpose="entities", texts=["acme"])
    )
    assert len(openai_stub.requests) == before  # nothing reached the "network"
    assert replayed.value == recorded.value and again.value == vectors.value
    assert replayed.calls[0].model == "replay" and replayed.calls[0].response is not None
    assert replayed.calls[0].response["text"] == text  # the reply text was recorded too


async def test_embeddings_can_live_on_another_server(
    openai_stub: OpenAIStub, openai_settings: Settings
) -> None:
    """vLLM serves one model per server: chat on one, embeddings on another."""
    with running_openai_stub() as embed_server:
        settings = openai_settings.model_copy(
            update={"openai_embed_base_url": embed_server.api_url}
        )
        models = build_models(settings)
        openai_stub.reply(chat_reply({"summary": "s"}))
        embed_server.reply(embeddings_reply([vec(1)]))
        await models.summarizer.summarize(SummarizeInput(scope=SCOPE, messages=[]))
        await models.embedder.embed(embed_input(["a"]))
        assert [r.method for r in openai_stub.requests] == ["chat.completions"]
        assert [r.method for r in embed_server.requests] == [EMBEDDINGS]
