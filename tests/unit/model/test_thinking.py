"""Thinking per model: off where the model allows it, else the least it takes."""

from __future__ import annotations

import logging

import pytest
from google.genai import types

from streams.model.gemini.thinking import thinking_config


def sent(model: str) -> dict[str, object] | None:
    config = thinking_config(model)
    return None if config is None else config.model_dump(mode="json", exclude_none=True)


@pytest.mark.parametrize(
    "model",
    [
        "gemini-2.5-flash",
        "gemini-2.5-flash-lite",
        "gemini-2.5-flash-preview-09-2025",
        "gemini-2.5-flash-lite-preview-06-17",
        "models/gemini-2.5-flash",
        " Gemini-2.5-Flash ",
    ],
)
def test_gemini_2_5_flash_and_flash_lite_turn_thinking_off(model: str) -> None:
    assert sent(model) == {"thinking_budget": 0}


@pytest.mark.parametrize("model", ["gemini-2.5-pro", "gemini-2.5-pro-preview-06-05"])
def test_gemini_2_5_pro_cannot_turn_it_off_and_gets_its_minimum_budget(model: str) -> None:
    assert sent(model) == {"thinking_budget": 128}


@pytest.mark.parametrize(
    "model",
    ["gemini-3-flash-preview", "gemini-3.1-flash-lite-preview", "gemini-3.5-flash"],
)
def test_gemini_3_flash_models_take_the_minimal_level(model: str) -> None:
    assert thinking_config(model) == types.ThinkingConfig(
        thinking_level=types.ThinkingLevel.MINIMAL
    )


@pytest.mark.parametrize(
    "model", ["gemini-3-pro-preview", "gemini-3.1-pro-preview", "gemini-4-pro"]
)
def test_gemini_3_pro_models_take_the_low_level_their_least(model: str) -> None:
    assert sent(model) == {"thinking_level": "LOW"}


@pytest.mark.parametrize("model", ["gemini-2.0-flash", "gemini-2.0-flash-lite", "gemini-1.5-pro"])
def test_models_before_2_5_do_not_think_and_get_no_config(model: str) -> None:
    assert thinking_config(model) is None


def test_gemma_gets_no_config() -> None:
    assert thinking_config("gemma-3-27b-it") is None


@pytest.mark.parametrize("model", ["gemini-flash-latest", "my-tuned-model", "gemini-2.5-ultra"])
def test_an_unknown_model_keeps_its_default_and_says_so(
    model: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="streams.model.gemini.thinking"):
        assert thinking_config(model) is None
    assert model in caplog.text
