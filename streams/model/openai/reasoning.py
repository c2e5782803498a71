"""How little each OpenAI-compatible model may reason, and whether it takes a temperature.

The seed turns thinking off for our calls (pattern matching; thinking was seen to spiral
on trivial inputs). Reasoning models take ``reasoning_effort``; the least each family
accepts:

- GPT-5.1 and later (gpt-5.1, gpt-5.2, their mini models): ``none``, no reasoning;
- GPT-5 (gpt-5, gpt-5-mini, gpt-5-nano): ``minimal`` (they do not take ``none``);
- Codex models: ``low``; Pro models (gpt-5-pro): ``high``, the only value they take;
- o-series (o1, o3, o3-mini, o4-mini, ...): ``low``; o1-mini and o1-preview take none;
- gpt-oss (on vLLM, Ollama and others): ``low``.

Every other model (gpt-4o, gpt-4.1, Llama, Qwen, Mistral, gpt-5-chat ...) is sent no
``reasoning_effort``: most servers refuse it for a model that does not reason. The
setting ``openai_reasoning_effort`` overrides this table (``omit``, or a value).

OpenAI's reasoning models refuse any temperature but the default unless their effort is
``none``, so they are sent none; every other model is sent temperature 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, cast

Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]

_GPT5 = re.compile(r"^gpt-5(?:\.(?P<minor>\d+))?(?P<rest>(?:-.*)?)$")
_O_SERIES = re.compile(r"^o\d+(?:-.*)?$")


@dataclass(frozen=True)
class Sampling:
    """What a chat completions request sends for reasoning and temperature (None: omitted)."""

    reasoning_effort: Effort | None
    temperature: float | None


def _name(model: str) -> str:
    # "openai/gpt-5-mini" (routers), "gpt-oss:20b" (Ollama tags) and dated snapshots.
    return model.strip().lower().rsplit("/", 1)[-1]


def _openai_reasoning(name: str) -> bool:
    """An OpenAI reasoning model, which refuses temperatures unless its effort is none."""
    gpt5 = _GPT5.match(name)
    if gpt5 is not None:
        return "-chat" not in gpt5["rest"]
    return _O_SERIES.match(name) is not None


def least_effort(model: str) -> Effort | None:
    """The least ``reasoning_effort`` ``model`` takes, or None for a model that takes none."""
    name = _name(model)
    if name.startswith("gpt-oss"):
        return "low"
    gpt5 = _GPT5.match(name)
    if gpt5 is not None:
        rest = gpt5["rest"]
        if "-chat" in rest:
            return None
        if rest.startswith("-pro"):
            return "high"
        if "codex" in rest:
            return "low"
        return "none" if int(gpt5["minor"] or 0) >= 1 else "minimal"
    if _O_SERIES.match(name) is not None:
        return None if name.startswith(("o1-mini", "o1-preview")) else "low"
    return None


def sampling(model: str, setting: str = "auto") -> Sampling:
    """Reasoning effort and temperature for ``model``; ``setting`` is
    ``openai_reasoning_effort`` (``auto``: :func:`least_effort`; ``omit``; or a value)."""
    if setting == "auto":
        effort = least_effort(model)
    elif setting == "omit":
        effort = None
    else:
        effort = cast(Effort, setting)
    # An OpenAI reasoning model reasons unless told "none" (also when no effort is sent).
    reasoning = effort != "none" and _openai_reasoning(_name(model))
    return Sampling(effort, None if reasoning else 0.0)
