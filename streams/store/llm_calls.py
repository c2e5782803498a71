"""The seed's Playground: every model request and response, stored per episode.

Rows hold what was sent and received as faithfully as Postgres can store it. Two things
in model and user text cannot be stored at all: NUL (text and jsonb refuse U+0000) and
unpaired UTF-16 surrogates (not encodable as UTF-8; jsonb refuses their escapes). Each
is replaced by U+FFFD, and a non-finite float (NaN, ±Infinity: not JSON) by its name as a
string; every other character and value is stored exactly as given, so one bad byte in
a reply never loses the call's record.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from streams.model.ports import CallRecord, CallScope
from streams.store.statements import with_write

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(text: str) -> str:
    """``text`` with NUL and unpaired surrogates replaced by U+FFFD, else unchanged.

    A surrogate pair split over two code points is joined into its character.
    """
    if not _UNSTORABLE.search(text):
        return text
    if "\x00" in text:
        text = text.replace("\x00", REPLACEMENT)
    # Round-trip through UTF-16: paired surrogates become their character, lone ones U+FFFD.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def storable(value: Any) -> Any:
    """A JSON-able value whose strings (keys too) and floats Postgres jsonb accepts."""
    try:  # the common case, checked in one C-speed pass: nothing to replace
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return _storable(value)
    if "\\u0000" in text or _UNSTORABLE.search(text):  # NUL is written escaped
        return _storable(value)
    return value


def _storable(value: Any) -> Any:
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else json.dumps(value)  # NaN, Infinity
    if isinstance(value, Mapping):
        return {storable_text(str(k)): _storable(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return [_storable(v) for v in value]
    return value


def _row(scope: CallScope, stage: str, c: CallRecord) -> tuple[Any, ...]:
    return (
        scope.dataset,
        scope.project_id,
        scope.episode_id,
        stage,
        c.kind,
        storable_text(c.model),
        storable(c.request),
        storable(c.response),
        c.input_tokens,
        c.output_tokens,
        c.latency_ms,
        c.attempts,
        None if c.error is None else storable_text(c.error),
    )


async def record_calls(
    conn: Any, scope: CallScope, stage: str, calls: Sequence[CallRecord]
) -> None:
    """Insert one llm_calls row per call; `conn` is an asyncpg connection or pool."""
    if not calls:
        return
    await conn.executemany(
        "INSERT INTO llm_calls (dataset, project_id, episode_id, stage, kind, model, request,"
        " response, input_tokens, output_tokens, latency_ms, attempts, error)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        [_row(scope, stage, c) for c in calls],
    )


_INSERT_CALLS = (
    "INSERT INTO llm_calls (dataset, project_id, episode_id, stage, kind, model, request,"
    " response, input_tokens, output_tokens, latency_ms, attempts, error)"
    " SELECT $1, $2, $3, $4, c.* FROM unnest($5::text[], $6::text[], $7::jsonb[], $8::jsonb[],"
    " $9::int[], $10::int[], $11::float8[], $12::int[], $13::text[]) AS c"
)


def with_calls(
    query: str, args: Sequence[Any], scope: CallScope, stage: str, calls: Sequence[CallRecord]
) -> tuple[str, list[Any]]:
    """``query`` (one statement, its parameters ``args``) that also stores ``calls``: the
    calls are recorded in the same round trip as the statement that follows them, and in
    its transaction."""
    if not calls:
        return query, list(args)
    rows = [_row(scope, stage, c) for c in calls]
    columns = [list(column) for column in zip(*(r[4:] for r in rows), strict=True)]
    return with_write(query, args, "recorded_calls", _INSERT_CALLS, [*rows[0][:4], *columns])
