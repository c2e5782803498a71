"""Build the model ports named by ``settings.model_provider``, once, at the entry point.

- ``gemini``: google-genai (needs an API key);
- ``openai``: any OpenAI-compatible server through the ``openai`` SDK (OpenAI, Azure,
  vLLM, Ollama, llama.cpp server; needs a key or a base URL, and the model names);
- ``replay``: answers from the cassette at ``settings.cassette_path``, offline;
- ``record``: ``settings.record_inner_provider`` (``gemini``, ``openai`` or a
  ``package.module:factory``), with every call appended to that cassette;
- ``package.module:factory``: your own provider; ``factory(settings)`` returns Models.
"""

from __future__ import annotations

import importlib

from streams.errors import ConfigError
from streams.model.ports import Models
from streams.model.replay import Cassette, RecordingModels, ReplayModels
from streams.settings import Settings

BUILTIN = ("gemini", "openai", "replay", "record")


class ModelProviderError(ConfigError, ValueError):
    """``model_provider`` names nothing usable; the message says what to set."""


def gemini_models(settings: Settings) -> Models:
    # Imported here so custom and replay providers need no Gemini configuration.
    from streams.model.gemini.embed import GeminiEmbedder
    from streams.model.gemini.llm import (
        GeminiConfigError,
        GeminiExtractor,
        GeminiJudge,
        GeminiSummarizer,
        make_client,
    )

    try:
        client = make_client(settings)
    except GeminiConfigError as exc:
        raise ModelProviderError(str(exc)) from exc
    return Models(
        extractor=GeminiExtractor(settings, client),
        judge=GeminiJudge(settings, client),
        summarizer=GeminiSummarizer(settings, client),
        embedder=GeminiEmbedder(settings, client),
    )


def openai_models(settings: Settings) -> Models:
    # Imported here so the other providers need no OpenAI configuration.
    from streams.model.openai.client import OpenAIConfigError, make_client
    from streams.model.openai.embed import OpenAIEmbedder
    from streams.model.openai.llm import OpenAIExtractor, OpenAIJudge, OpenAISummarizer

    try:
        client = make_client(settings)
    except OpenAIConfigError as exc:
        raise ModelProviderError(str(exc)) from exc
    return Models(
        extractor=OpenAIExtractor(settings, client),
        judge=OpenAIJudge(settings, client),
        summarizer=OpenAISummarizer(settings, client),
        embedder=OpenAIEmbedder(
            settings,
            make_client(settings, embeddings=True) if settings.openai_embed_base_url else client,
        ),
    )


_NAMED = {"gemini": gemini_models, "openai": openai_models}


def _factory_models(settings: Settings, spec: str) -> Models:
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ModelProviderError(f"model provider {spec!r}: expected 'package.module:factory'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ModelProviderError(
            f"model provider {spec!r}: cannot import {module_name}: {exc}"
        ) from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ModelProviderError(f"model provider {spec!r}: {module_name} has no callable {attr}")
    models = factory(settings)
    if not isinstance(models, Models):
        raise ModelProviderError(
            f"model provider {spec!r} returned {type(models).__name__}, expected"
            " streams.model.ports.Models"
        )
    return models


def build_models(settings: Settings) -> Models:
    provider = settings.model_provider.strip()
    if provider in _NAMED:
        return _NAMED[provider](settings)
    if provider == "replay":
        try:
            replay = ReplayModels(Cassette(settings.cassette_path), settings.embedding_dim)
        except (OSError, ValueError) as exc:
            raise ModelProviderError(f"model provider 'replay': {exc}") from exc
        return replay.as_models()
    if provider == "record":
        inner_spec = settings.record_inner_provider.strip()
        inner = (
            _NAMED[inner_spec](settings)
            if inner_spec in _NAMED
            else _factory_models(settings, inner_spec)
        )
        return RecordingModels(inner, Cassette(settings.cassette_path)).as_models()
    if ":" in provider:
        return _factory_models(settings, provider)
    raise ModelProviderError(
        f"unknown model provider {provider!r}: use one of {', '.join(BUILTIN)} or"
        " 'package.module:factory'"
    )
