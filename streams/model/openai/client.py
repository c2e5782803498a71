"""The ``openai`` SDK client for any OpenAI-compatible server, and which of its errors retry.

One AsyncOpenAI per process, pointed at ``openai_base_url`` (None: api.openai.com; Azure,
vLLM, Ollama and llama.cpp servers give their ``.../v1`` URL), and a second one for
embeddings when ``openai_embed_base_url`` names another server. Its own retries are off
(``max_retries=0``) and its HTTP timeout is ``llm_timeout_s``, so streams/model/retry.py
is the only retry loop, as for Gemini. The model names are the shared settings
``extract_model``, ``judge_model``, ``summarize_model`` and ``embed_model``; their
defaults name Gemini models, so this provider refuses to start until they are set.
"""

from __future__ import annotations

import openai

from streams.errors import ConfigError
from streams.model import retry
from streams.settings import Settings

MODEL_SETTINGS = ("extract_model", "judge_model", "summarize_model", "embed_model")
# The SDK insists on a key; a local server without authentication ignores this one.
NO_KEY = "no-key"


class OpenAIConfigError(ConfigError, ValueError):
    """The settings cannot build an OpenAI-compatible client; the message says what to set."""


def check_settings(settings: Settings) -> None:
    """Refuse settings that would send every call to the wrong place or model."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    if not key and not settings.openai_base_url:
        raise OpenAIConfigError(
            "model provider 'openai' needs an API key: set FACTSTREAM_OPENAI_API_KEY (or"
            " OPENAI_API_KEY), or FACTSTREAM_OPENAI_BASE_URL for a local server"
        )
    unset = [name for name in MODEL_SETTINGS if name not in settings.model_fields_set]
    if unset:
        names = ", ".join(f"FACTSTREAM_{name.upper()}" for name in unset)
        raise OpenAIConfigError(
            f"model provider 'openai' needs your endpoint's model names: set {names} (their"
            " defaults are Gemini models)"
        )


def make_client(settings: Settings, *, embeddings: bool = False) -> openai.AsyncOpenAI:
    """The client for chat completions, or with ``embeddings`` for the embeddings
    endpoint (``openai_embed_base_url`` when set, else the same server)."""
    check_settings(settings)
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    base_url = settings.openai_base_url
    if embeddings and settings.openai_embed_base_url:
        base_url = settings.openai_embed_base_url
    return openai.AsyncOpenAI(
        api_key=key or NO_KEY,
        base_url=base_url or None,
        timeout=settings.llm_timeout_s,
        max_retries=0,
    )


def is_retryable(exc: BaseException) -> bool:
    """429, 408 and 5xx answers, timeouts and lost connections (the SDK's own errors), and
    what streams/model/retry.py retries for every provider."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in retry.RETRYABLE_STATUS
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError too
        return True
    return retry.is_retryable(exc)
