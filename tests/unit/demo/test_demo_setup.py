"""Recording the scripted demo model (record_inner_provider) and the demo's model choice."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pydantic import SecretStr

from streams.demo.setup import CASSETTE, CASSETTE_DIM, DEMO_MODEL, DemoError, choose_models
from streams.events import Message, Role
from streams.model.loader import build_models
from streams.model.ports import CallScope, ExtractInput
from streams.model.replay import Cassette, ReplayModels
from streams.settings import Settings

REQUEST = ExtractInput(
    scope=CallScope(dataset="demo", project_id="carol", episode_id="carol-1"),
    messages=[
        Message(
            seq=1,
            role=Role.USER,
            content="I live in Chennai",
            created_at=datetime(2026, 1, 20, tzinfo=UTC),
        )
    ],
)


async def test_record_wraps_the_named_factory_and_replay_answers_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cassette.jsonl"
    recording = build_models(
        Settings(
            model_provider="record",
            record_inner_provider=DEMO_MODEL,
            cassette_path=str(path),
            embedding_dim=CASSETTE_DIM,
        )
    )
    recorded = await recording.extractor.extract(REQUEST)
    assert [c.object for c in recorded.value.relationships] == ["chennai", "chennai"]
    [line] = path.read_text().splitlines()
    assert json.loads(line)["kind"] == "extract"
    replayed = await ReplayModels(Cassette(path)).extract(REQUEST)
    assert replayed.value == recorded.value


def test_demo_uses_the_bundled_cassette_without_a_key_and_gemini_with_one(
    tmp_path: Path,
) -> None:
    offline = choose_models(Settings(gemini_api_key=None), "auto", False, tmp_path)
    assert offline.env["FACTSTREAM_MODEL_PROVIDER"] == "replay"
    assert offline.env["FACTSTREAM_CASSETTE_PATH"] == str(CASSETTE)
    assert "not of Gemini" in offline.banner
    online = choose_models(Settings(gemini_api_key=SecretStr("k")), "auto", False, tmp_path)
    assert online.env == {"FACTSTREAM_MODEL_PROVIDER": "gemini"}
    record = choose_models(Settings(gemini_api_key=None), "auto", True, tmp_path)
    assert record.env["FACTSTREAM_RECORD_INNER_PROVIDER"] == DEMO_MODEL


def test_demo_follows_an_openai_compatible_provider_set_in_the_environment(
    tmp_path: Path,
) -> None:
    local = Settings(
        gemini_api_key=SecretStr("k"),  # the provider setting wins over a Gemini key
        model_provider="openai",
        openai_base_url="http://127.0.0.1:11434/v1",
        extract_model="qwen2.5:7b",
        judge_model="qwen2.5:7b",
        summarize_model="qwen2.5:7b",
        embed_model="nomic-embed-text",
        embedding_dim=768,
    )
    choice = choose_models(local, "auto", False, tmp_path)
    assert choice.env == {"FACTSTREAM_MODEL_PROVIDER": "openai"} and choice.dim == 768
    assert "127.0.0.1:11434" in choice.banner and "nomic-embed-text" in choice.banner
    unnamed = Settings(
        model_provider="openai", openai_base_url="http://127.0.0.1:11434/v1", openai_api_key=None
    )
    with pytest.raises(DemoError, match="FACTSTREAM_EXTRACT_MODEL"):
        choose_models(unnamed, "auto", False, tmp_path)
