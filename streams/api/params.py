"""Request parameters of the read API, checked in one place: a bad one is an ApiError
(HTTP 400 with a message naming the parameter), never a 500 or a silent default."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from streams.errors import FactstreamError
from streams.ops.isotime import parse_datetime

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ApiError(FactstreamError):
    """What the API answers instead of a result: an HTTP status and one clear message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def bad(message: str) -> ApiError:
    return ApiError(400, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, message)


def opt_time(params: Mapping[str, str], name: str) -> datetime | None:
    """An ISO 8601 date or datetime (no zone: UTC), or None when absent or empty."""
    text = params.get(name)
    if text is None or not text.strip():
        return None
    try:
        return parse_datetime(text)
    except ValueError as exc:
        raise bad(f"{name}: {exc}") from exc


def opt_bool(params: Mapping[str, str], name: str, default: bool = False) -> bool:
    text = params.get(name)
    if text is None:
        return default
    if text.strip().lower() in _TRUE:
        return True
    if text.strip().lower() in _FALSE:
        return False
    raise bad(f"{name}: expected true or false, not {text!r}")


def opt_int(params: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = params.get(name)
    if text is None or not text.strip():
        return default
    try:
        value = int(text)
    except ValueError as exc:
        raise bad(f"{name}: expected a whole number, not {text!r}") from exc
    if not low <= value <= high:
        raise bad(f"{name}: must be between {low} and {high}, not {value}")
    return value


def opt_float(params: Mapping[str, str], name: str, low: float, high: float) -> float | None:
    text = params.get(name)
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError as exc:
        raise bad(f"{name}: expected a number, not {text!r}") from exc
    if not low <= value <= high:  # also refuses NaN
        raise bad(f"{name}: must be between {low} and {high}, not {text}")
    return value


def path_int(text: str, name: str) -> int:
    try:
        value = int(text)
    except ValueError as exc:
        raise bad(f"{name}: expected a whole number, not {text!r}") from exc
    if value < 0 or value > 2**63 - 1:
        raise bad(f"{name}: out of range: {text}")
    return value
