"""build_models: the provider named in settings, or a clear error saying what to set."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
)
from streams.model.gemini.embed import GeminiEmbedder
from streams.model.gemini.llm import GeminiExtractor, GeminiJudge, GeminiSummarizer
from streams.model.loader import ModelProviderError, build_models
from streams.model.openai.embed import OpenAIEmbedder
from streams.model.openai.llm import OpenAIExtractor, OpenAIJudge, OpenAISummarizer
from streams.model.ports import CallScope, Models, SummarizeInput, SummaryOutput
from streams.model.replay import Cassette, RecordingModels, ReplayModels
from streams.settings import Settings

FACTORY_CALLS: list[Settings] = []


def custom_factory(settings: Settings) -> Models:
    """A user's own provider, loaded by `package.module:factory`."""
    FACTORY_CALLS.append(settings)
    return Models(
        extractor=ScriptedExtractor(lambda r: None),
        judge=ScriptedJudge(lambda r: None),
        summarizer=ScriptedSummarizer(lambda r: SummaryOutput(summary="custom")),
        embedder=ScriptedEmbedder(settings.embedding_dim),
    )


def not_models(settings: Settings) -> Any:
    return {"extractor": None}


def settings(**kw: Any) -> Settings:
    # No key or endpoint from the developer's environment leaks into these tests.
    return Settings(
        **{"gemini_api_key": None, "openai_api_key": None, "openai_base_url": None, **kw}
    )


OPENAI_MODELS = {
    "extract_model": "gpt-4.1-mini",
    "judge_model": "gpt-4.1-mini",
    "summarize_model": "gpt-4.1-nano",
    "embed_model": "text-embedding-3-small",
}


def test_gemini_needs_an_api_key() -> None:
    with pytest.raises(ModelProviderError, match="GEMINI_API_KEY"):
        build_models(settings(model_provider="gemini"))


def test_gemini_builds_the_four_gemini_ports() -> None:
    models = build_models(settings(model_provider="gemini", gemini_api_key="k"))
    assert isinstance(models.extractor, GeminiExtractor)
    assert isinstance(models.judge, GeminiJudge)
    assert isinstance(models.summarizer, GeminiSummarizer)
    assert isinstance(models.embedder, GeminiEmbedder)


def test_record_wraps_gemini_with_the_recorder(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    models = build_models(
        settings(model_provider="record", gemini_api_key="k", cassette_path=str(path))
    )
    assert isinstance(models.extractor, RecordingModels)
    assert isinstance(models.extractor.inner.extractor, GeminiExtractor)
    assert models.extractor.cassette.path == path


async def test_replay_reads_the_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    scope = CallScope(dataset="d", project_id="p", episode_id="e")
    request = SummarizeInput(scope=scope, messages=[])
    await RecordingModels(custom_factory(settings()), Cassette(path)).summarize(request)
    models = build_models(settings(model_provider="replay", cassette_path=str(path)))
    assert isinstance(models.summarizer, ReplayModels)
    assert (await models.summarizer.summarize(request)).value.summary == "custom"


def test_replay_without_a_cassette_says_so(tmp_path: Path) -> None:
    with pytest.raises(ModelProviderError, match="no cassette"):
        build_models(settings(model_provider="replay", cassette_path=str(tmp_path / "none.jsonl")))


async def test_custom_factory_is_imported_and_called_with_settings() -> None:
    chosen = settings(model_provider=f"{__name__}:custom_factory", embedding_dim=8)
    models = build_models(chosen)
    assert FACTORY_CALLS[-1] is chosen
    scope = CallScope(dataset="d", project_id="p", episode_id="e")
    assert (
        await models.summarizer.summarize(SummarizeInput(scope=scope, messages=[]))
    ).value.summary == "custom"


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        (f"{__name__}:not_models", "returned dict, expected"),
        (f"{__name__}:missing", "has no callable missing"),
        ("no_such_package.mod:factory", "cannot import no_such_package"),
        ("anthropic", "unknown model provider 'anthropic'"),
        (":factory", "expected 'package.module:factory'"),
    ],
)
def test_bad_provider_names_fail_clearly(provider: str, expected: str) -> None:
    with pytest.raises(ModelProviderError, match=expected):
        build_models(settings(model_provider=provider))


def test_openai_needs_a_key_or_a_local_base_url() -> None:
    with pytest.raises(ModelProviderError, match="OPENAI_API_KEY"):
        build_models(settings(model_provider="openai", **OPENAI_MODELS))
    local = settings(
        model_provider="openai", openai_base_url="http://127.0.0.1:11434/v1", **OPENAI_MODELS
    )
    assert isinstance(build_models(local).extractor, OpenAIExtractor)


def test_openai_needs_the_model_names_it_would_otherwise_take_from_gemini() -> None:
    only_extract = {"extract_model": "gpt-4.1-mini"}
    with pytest.raises(ModelProviderError) as failed:
        build_models(settings(model_provider="openai", openai_api_key="k", **only_extract))
    message = str(failed.value)
    for name in ("JUDGE_MODEL", "SUMMARIZE_MODEL", "EMBED_MODEL"):
        assert f"FACTSTREAM_{name}" in message
    assert "FACTSTREAM_EXTRACT_MODEL" not in message


def test_openai_builds_the_four_openai_ports() -> None:
    models = build_models(settings(model_provider="openai", openai_api_key="k", **OPENAI_MODELS))
    assert isinstance(models.extractor, OpenAIExtractor)
    assert isinstance(models.judge, OpenAIJudge)
    assert isinstance(models.summarizer, OpenAISummarizer)
    assert isinstance(models.embedder, OpenAIEmbedder)


def test_record_wraps_openai_when_told_to(tmp_path: Path) -> None:
    models = build_models(
        settings(
            model_provider="record",
            record_inner_provider="openai",
            openai_api_key="k",
            cassette_path=str(tmp_path / "rec.jsonl"),
            **OPENAI_MODELS,
        )
    )
    assert isinstance(models.extractor, RecordingModels)
    assert isinstance(models.extractor.inner.embedder, OpenAIEmbedder)
