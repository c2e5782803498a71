"""Record bytes <-> pydantic models. Anything that cannot be decoded is poison."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from streams.errors import PoisonError
from streams.events import TenantEvent

M = TypeVar("M", bound=BaseModel)

# pydantic error types that mean "too large", not "malformed" (streams/events/).
_SIZE_ERRORS = {"event_too_large"}


class DecodeError(PoisonError):
    """A consumed value that is not a valid event. ``reason`` is a short machine word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class OutputTooLarge(PoisonError):
    """A handler produced an event larger than the record limit."""

    reason = "output_too_large"


def decode(value: bytes | None, model: type[M], max_bytes: int) -> M:
    """Size, then UTF-8, then JSON, then the schema; the first failure names the reason.

    An event the pipeline copies later (an episode: wake-ups, the sweep, releases are
    rebuilt from the ledger with every default filled in) is refused as ``oversized``
    when that copy would not fit ``max_bytes``: accepting it would fail every copy."""
    if value is None:
        raise DecodeError("empty", "record has no value (tombstone)")
    if len(value) > max_bytes:
        raise DecodeError("oversized", f"{len(value)} bytes > limit {max_bytes}")
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError("not_utf8", str(exc)) from exc
    # pydantic's own JSON parser, one pass instead of json.loads + model_validate; a JSON
    # syntax error is its "json_invalid" error.
    try:
        event = model.model_validate_json(text)
    except ValidationError as exc:
        kinds = {e["type"] for e in exc.errors()}
        if "json_invalid" in kinds:
            raise DecodeError("bad_json", str(exc)) from exc
        raise DecodeError(
            "oversized" if kinds & _SIZE_ERRORS else "invalid_schema", str(exc)
        ) from exc
    copy_size = event.copy_size() if isinstance(event, TenantEvent) else None
    if copy_size is not None and copy_size > max_bytes:
        raise DecodeError(
            "oversized",
            f"{len(value)} bytes as sent, {copy_size} once encoded with every default filled"
            f" in (as the pipeline's copies of it are) > limit {max_bytes}",
        )
    return event


def encode(event: BaseModel, max_bytes: int) -> bytes:
    """The event as compact JSON; a model that says ``omit_none_fields`` (the stage
    outputs, read only by our own stages) leaves out fields that are None, which every
    reader fills in again as their default."""
    compact = bool(getattr(type(event), "omit_none_fields", False))
    data = event.model_dump_json(exclude_none=compact).encode("utf-8")
    if len(data) > max_bytes:
        raise OutputTooLarge(
            f"output {type(event).__name__} is {len(data)} bytes > limit {max_bytes}"
        )
    return data
