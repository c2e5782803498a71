"""Thinking per model: off where the model allows it, else the least it takes (Gemini's
thinking budget or level, an OpenAI-compatible model's reasoning effort)."""

from __future__ import annotations

import logging
from typing import cast

import pytest
from google.genai import types

from streams.model.gemini.thinking import thinking_config
from streams.model.openai.reasoning import Effort, Sampling, least_effort, sampling


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


# --- OpenAI-compatible models: reasoning_effort and temperature ------------------------------


@pytest.mark.parametrize("model", ["gpt-5.1", "gpt-5.2", "gpt-5.1-2025-11-13", "openai/gpt-5.2"])
def test_gpt_5_1_and_later_reason_not_at_all_and_take_a_temperature(model: str) -> None:
    assert sampling(model) == Sampling("none", 0.0)


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-5-2025-08-07"])
def test_gpt_5_cannot_turn_reasoning_off_and_gets_minimal_without_a_temperature(
    model: str,
) -> None:
    assert sampling(model) == Sampling("minimal", None)


@pytest.mark.parametrize(
    ("model", "effort"),
    [("gpt-5-pro", "high"), ("gpt-5-codex", "low"), ("gpt-5.1-codex-max", "low")],
)
def test_pro_and_codex_models_get_the_least_they_take(model: str, effort: str) -> None:
    assert sampling(model) == Sampling(cast(Effort, effort), None)


@pytest.mark.parametrize("model", ["o1", "o3", "o3-mini", "o4-mini", "o3-pro-2025-06-10"])
def test_o_series_models_get_low_without_a_temperature(model: str) -> None:
    assert sampling(model) == Sampling("low", None)


@pytest.mark.parametrize("model", ["o1-mini", "o1-preview"])
def test_early_o1_models_take_no_effort(model: str) -> None:
    assert least_effort(model) is None and sampling(model).temperature is None


@pytest.mark.parametrize("model", ["gpt-oss:20b", "gpt-oss-120b", "openai/gpt-oss-20b"])
def test_gpt_oss_on_local_servers_gets_low_and_temperature_0(model: str) -> None:
    assert sampling(model) == Sampling("low", 0.0)


@pytest.mark.parametrize(
    "model",
    ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "llama3.1:8b", "Qwen/Qwen2.5-7B-Instruct"],
)
def test_models_that_do_not_reason_get_no_effort_and_temperature_0(model: str) -> None:
    assert sampling(model) == Sampling(None, 0.0)


def test_the_setting_overrides_the_table() -> None:
    assert sampling("llama3.1:8b", "low") == Sampling("low", 0.0)
    assert sampling("gpt-5-mini", "omit") == Sampling(None, None)  # still reasons: no temperature
    assert sampling("gpt-5.1", "omit") == Sampling(None, None)
    assert sampling("gpt-5.1", "none") == Sampling("none", 0.0)
