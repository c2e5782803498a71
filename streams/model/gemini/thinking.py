"""How little each Gemini model may think: off where the model allows it, else its least.

The seed turns thinking off for our calls (extraction is pattern matching, and thinking
was seen to spiral for minutes on trivial inputs). Not every model can turn it off:

- Gemini 2.5 Flash and Flash-Lite: ``thinking_budget=0`` turns thinking off.
- Gemini 2.5 Pro always thinks; its smallest budget is 128 tokens.
- Gemini 3 and later take a thinking *level* instead of a budget (sending both is
  refused): Flash models (Flash-Lite too) go down to ``MINIMAL``, Pro models to ``LOW``.
- Gemini before 2.5 (2.0, 1.5) and Gemma do not think and get no thinking config.
- Any other name (an alias such as ``gemini-flash-latest``, a tuned model) gets no
  thinking config either, so the model's default applies; a warning names the model.
"""

from __future__ import annotations

import logging
import re

from google.genai import types

log = logging.getLogger(__name__)

PRO_MIN_BUDGET = 128
_GEMINI = re.compile(r"^gemini-(?P<major>\d+)(?:\.(?P<minor>\d+))?-(?P<variant>[a-z].*)$")


def thinking_config(model: str) -> types.ThinkingConfig | None:
    """The least thinking ``model`` accepts, or None to send no thinking config."""
    name = model.strip().lower().rsplit("/", 1)[-1]  # "models/gemini-2.5-flash" too
    if name.startswith("gemma-"):
        return None
    m = _GEMINI.match(name)
    if m is None:
        log.warning("no thinking rule for model %r: its default thinking applies", model)
        return None
    version = (int(m["major"]), int(m["minor"] or 0))
    variant = m["variant"]
    if version < (2, 5):
        return None
    if version == (2, 5):
        if variant.startswith("flash"):
            return types.ThinkingConfig(thinking_budget=0)
        if variant.startswith("pro"):
            return types.ThinkingConfig(thinking_budget=PRO_MIN_BUDGET)
        log.warning("no thinking rule for model %r: its default thinking applies", model)
        return None
    # Gemini 3 and later: every model takes LOW; Flash models go down to MINIMAL.
    level = types.ThinkingLevel.MINIMAL if variant.startswith("flash") else types.ThinkingLevel.LOW
    return types.ThinkingConfig(thinking_level=level)
