"""The field types of every event (streams/events/), and the limits they enforce.

Each type validates in the consumer exactly what its JSON Schema says, so a publisher
that validates against schemas/*.json gets the consumer's answer:

- text never holds NUL (Postgres text cannot store it);
- integers are JSON integers (not "1", not true) within the database column's range;
- a date-time is an RFC 3339 string with a UTC offset, years 1000-9998 as written, so it
  stays inside Python's and Postgres' range once converted to UTC.

Patterns are written for every regex dialect a validator may use (ECMA-262, Python,
Rust): [0-9] rather than \\d (Python's \\d matches any script's digits), and "(?![\\s\\S])"
after "$", since Python's "$" also matches before a trailing newline. The consumer
checks them with Python's fullmatch.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

SCHEMA_VERSION: Literal[1] = 1

# Explicit size limits of EpisodeCompleted. An event over them is dead-lettered.
MAX_MESSAGES_PER_EPISODE = 500
MAX_MESSAGE_CHARS = 20_000
MAX_EVENT_BYTES = 1_000_000
# Longest object and source quote a Fact carries (the seed's length caps); the settings
# object_max_chars / quote_max_chars may lower them, never raise them.
MAX_OBJECT_CHARS = 500
MAX_QUOTE_CHARS = 200
# Column ranges: window and seq are Postgres integer, ids bigint.
INT4_MAX = 2**31 - 1
INT8_MAX = 2**63 - 1
# Years a date-time may carry as written: any UTC offset keeps it inside Python's
# datetime (years 1-9999) and away from its ends, which asyncpg maps to -infinity/infinity.
EARLIEST_YEAR = 1000
LATEST_YEAR = 9998
# An embedding value Postgres' vector (float4) can hold.
FLOAT4_MAX = 3.4028234e38

# Patterns are written for every regex dialect a validator may use (ECMA-262, Python,
# Rust): [0-9] rather than \d (Python's \d matches any script's digits), and "(?![\s\S])"
# after "$", since Python's "$" also matches before a trailing newline.
_END = r"$(?![\s\S])"
TENANT_ID_CORE = r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}"
# dataset / project_id: no ':' (the tenant key joins them with one), no whitespace.
TENANT_ID_PATTERN = f"^{TENANT_ID_CORE}{_END}"
NO_NUL_PATTERN = r"^[^\u0000]*$"
_YEAR = r"(?:1[0-9]{3}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
_DAY = (
    rf"(?:{_YEAR}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    # February 29th of leap years: divisible by 4, centuries only when divisible by 400.
    r"|(?:[1-9][0-9](?:0[48]|[2468][048]|[13579][26])|(?:1[26]|[2468][048]|[3579][26])00)-02-29)"
)
_TIME = (
    r"[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?"
    r"(?:[Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
DATE_TIME_CORE = _DAY + _TIME
DATE_TIME_PATTERN = f"^{DATE_TIME_CORE}{_END}"
_DATE_TIME = re.compile(DATE_TIME_CORE)
_TENANT_ID = re.compile(TENANT_ID_CORE)


def no_nul(text: str) -> str:
    if "\x00" in text:
        raise ValueError("contains NUL (U+0000), which no stored text can hold")
    return text


def _tenant_id(text: str) -> str:
    if not _TENANT_ID.fullmatch(text):
        raise ValueError(
            f"{text[:40]!r} is not an id of 1-128 letters, digits, '_', '.' or '-' starting"
            " with a letter or digit"
        )
    return text


def _json_integer(value: Any) -> Any:
    """A JSON integer (1, or 1.0 as JSON Schema counts it), never a string or a boolean."""
    if isinstance(value, bool | str):
        raise ValueError(f"must be a JSON integer, not {type(value).__name__} {value!r:.40}")
    return value


def _event_time(value: Any) -> Any:
    """An RFC 3339 string with an offset (or an aware datetime in Python), years 1000-9998."""
    if isinstance(value, datetime):
        if value.utcoffset() is None:
            raise ValueError("a date-time needs a UTC offset (naive datetime)")
        if not EARLIEST_YEAR <= value.year <= LATEST_YEAR:
            raise ValueError(f"year {value.year} is outside {EARLIEST_YEAR}-{LATEST_YEAR}")
        return value
    if not isinstance(value, str):
        raise ValueError(
            f"a date-time is an RFC 3339 string like 2026-03-01T12:00:00Z, not"
            f" {type(value).__name__} {value!r:.40}"
        )
    if not _DATE_TIME.fullmatch(value):
        raise ValueError(
            f"{value[:40]!r} is not an RFC 3339 date-time with a UTC offset (like"
            f" 2026-03-01T12:00:00Z) in the years {EARLIEST_YEAR}-{LATEST_YEAR}"
        )
    return value


def text_field(max_length: int | None = None, min_length: int = 0, **schema: Any) -> Any:
    return Field(
        min_length=min_length, max_length=max_length,
        json_schema_extra={"pattern": NO_NUL_PATTERN, **schema},
    )  # fmt: skip


Text = Annotated[str, text_field(), AfterValidator(no_nul)]
TenantId = Annotated[
    str, Field(json_schema_extra={"pattern": TENANT_ID_PATTERN}), AfterValidator(_tenant_id)
]
ShortId = Annotated[str, text_field(200, 1), AfterValidator(no_nul)]
EventId = Annotated[str, text_field(100, 1), AfterValidator(no_nul)]
Seq = Annotated[int, Field(ge=0, le=INT4_MAX), BeforeValidator(_json_integer)]
RowId = Annotated[int, Field(ge=0, le=INT8_MAX), BeforeValidator(_json_integer)]
EventTime = Annotated[
    datetime,
    BeforeValidator(_event_time),
    WithJsonSchema({"type": "string", "format": "date-time", "pattern": DATE_TIME_PATTERN}),
]
Vector = list[Annotated[float, Field(allow_inf_nan=False, ge=-FLOAT4_MAX, le=FLOAT4_MAX)]]


def check_version(value: Any) -> Any:
    if isinstance(value, bool | str):
        raise ValueError(f"schema_version is the integer {SCHEMA_VERSION}, not {value!r:.20}")
    return value
