"""Record bytes <-> pydantic models. Anything that cannot be decoded is poison."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from streams.errors import PoisonError

M = TypeVar("M", bound=BaseModel)


class DecodeError(PoisonError):
    """A consumed value that is not a valid event. ``reason`` is a short machine word."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class OutputTooLarge(PoisonError):
    """A handler produced an event larger than the record limit."""


def decode(value: bytes | None, model: type[M], max_bytes: int) -> M:
    """Size, then UTF-8, then JSON, then the schema; the first failure names the reason."""
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
        return model.model_validate_json(text)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            raise DecodeError("bad_json", str(exc)) from exc
        raise DecodeError("invalid_schema", str(exc)) from exc


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
