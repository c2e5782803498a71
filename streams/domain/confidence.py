"""A claim's confidence as the model wrote it, read into [0, 1] with why it is untrusted.

The seed clamps confidence into [0, 1]. What is not a confidence at all (missing, NaN,
``true``, ``"90%"``, a list, a number far above 1) is 0 and untrusted: below every
threshold, so it never supersedes, closes or cascades anything.
"""

from __future__ import annotations

import json
import math
import re

NO_CONFIDENCE = "no confidence given"


def read_confidence(value: object) -> tuple[float, str | None]:
    """(confidence in [0, 1], why it is untrusted). A missing, non-finite or non-numeric
    confidence (``true``, ``"90%"``, ``"0,9"``) is 0 and untrusted: below every threshold,
    never certain. A number written as a plain decimal string ("0.9") is read. Clamped
    into [0, 1]; one far above 1 (30, 90) is on some other scale, and reading it as
    certain would trust a model's 30% most, so it is 0 and untrusted too."""
    if value is None:
        return 0.0, NO_CONFIDENCE
    number = _as_number(value)
    if number is None or not math.isfinite(number):
        return 0.0, f"confidence {_shown(value)} is not a number"
    if number > _ROUNDS_TO_ONE:
        return 0.0, f"confidence {_shown(value)} is not between 0 and 1"
    return min(1.0, max(0.0, number)), None


_ROUNDS_TO_ONE = 1.01  # above 1 by rounding (1.0000001, 1.005): clamped, not refused


_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _shown(value: object) -> str:
    """The value as the model wrote it (JSON), cut short."""
    if isinstance(value, float):
        return repr(value)
    try:
        return json.dumps(value, ensure_ascii=False)[:40]
    except (TypeError, ValueError):
        return type(value).__name__


def _as_number(value: object) -> float | None:
    if isinstance(value, bool):  # JSON true is not 1.0
        return None
    if isinstance(value, float):
        return value
    if isinstance(value, int):
        return float(value) if abs(value) < 2**63 else math.inf
    if isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        return float(value)
    return None
