"""Fixtures of the model-layer integration tests: a Gemini stub and Settings aimed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from streams.settings import Settings
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.gemini_stub import GeminiStub, running_stub


@pytest.fixture
def gemini_stub() -> Iterator[GeminiStub]:
    with running_stub() as stub:
        yield stub


@pytest.fixture
def stub_settings(gemini_stub: GeminiStub) -> Settings:
    """Real provider settings against the stub; backoff tiny so retries cost milliseconds."""
    return Settings(
        model_provider="gemini",
        gemini_api_key="test-key",
        gemini_base_url=gemini_stub.base_url,
        llm_timeout_s=5.0,
        llm_max_attempts=3,
        llm_backoff_base_s=0.01,
        llm_backoff_max_s=0.05,
        embedding_dim=TEST_EMBEDDING_DIM,
    )
