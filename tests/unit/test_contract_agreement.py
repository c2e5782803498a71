"""The published JSON Schema and the consumer give the same answer to every event.

Each case is an episodes.completed payload as a client in another language might write
it. The schema side is what such a client runs: jsonschema's Draft 2020-12 validator with
its format checker, on the committed schemas/episodes.completed.schema.json. The consumer
side is the worker's own decode (streams/runtime/codec.py). Any case one accepts and the
other refuses fails the test, and a refusal must name the field.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from streams.events import MAX_EVENT_BYTES, MAX_MESSAGE_CHARS, EpisodeCompleted
from streams.runtime.codec import DecodeError, decode

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "episodes.completed.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(
    SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)
NOW = datetime.now(UTC).replace(microsecond=0)
WHEN = (NOW - timedelta(days=3)).isoformat().replace("+00:00", "Z")


def message(seq: Any = 1, **overrides: Any) -> dict[str, Any]:
    base = {"seq": seq, "role": "user", "content": "I work at Acme.", "created_at": WHEN}
    return base | overrides


def episode(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "event_id": "e-1", "dataset": "acme", "project_id": "p1", "episode_id": "ep-1",
        "session_id": "s-1", "window": {"from_seq": 1, "to_seq": 2},
        "messages": [message(1), message(2, role="assistant", content="Noted.")],
        "completed_at": WHEN,
    }  # fmt: skip
    return base | overrides


def with_message(**overrides: Any) -> dict[str, Any]:
    return episode(messages=[message(**overrides)])


def without(field: str) -> dict[str, Any]:
    payload = episode()
    del payload[field]
    return payload


# (name, payload, accepted?): the expected answer, which both sides must give.
CASES: list[tuple[str, Any, bool]] = [
    ("plain", episode(), True),
    ("no event_id", without("event_id"), True),
    ("explicit defaults", episode(schema_version=1, reprocess=False), True),
    ("schema_version 1.0", episode(schema_version=1.0), True),
    ("schema_version 2", episode(schema_version=2), False),
    ("schema_version '1'", episode(schema_version="1"), False),
    ("schema_version true", episode(schema_version=True), False),
    ("reprocess true", episode(reprocess=True), True),
    ("reprocess 'true'", episode(reprocess="true"), False),
    ("reprocess 1", episode(reprocess=1), False),
    ("reprocess null", episode(reprocess=None), False),
    ("event_id null", episode(event_id=None), False),
    ("event_id empty", episode(event_id=""), False),
    ("event_id 101 chars", episode(event_id="e" * 101), False),
    ("unknown field", episode(trace_id="x"), False),
    ("missing session_id", without("session_id"), False),
    ("missing completed_at", without("completed_at"), False),
    ("dataset with colon", episode(dataset="a:b"), False),
    ("dataset with trailing newline", episode(dataset="acme\n"), False),
    ("dataset 128 chars", episode(dataset="a" * 128), True),
    ("dataset 129 chars", episode(dataset="a" * 129), False),
    ("dataset non-ASCII", episode(dataset="acmé"), False),
    ("episode_id with NUL", episode(episode_id="ep\u00001"), False),
    ("session_id with NUL", episode(session_id="s\u0000"), False),
    ("event_id with NUL", episode(event_id="e\u0000"), False),
    ("content with NUL", with_message(content="a\u0000b"), False),
    ("content with control characters", with_message(content="a\u0001\u001fb\tc\n"), True),
    ("content at the limit", with_message(content="x" * MAX_MESSAGE_CHARS), True),
    ("content over the limit", with_message(content="x" * (MAX_MESSAGE_CHARS + 1)), False),
    ("content a number", with_message(content=42), False),
    ("content null", with_message(content=None), False),
    ("role upper case", with_message(role="USER"), False),
    ("role unknown", with_message(role="root"), False),
    ("seq '1'", with_message(seq="1"), False),
    ("seq 1.0", with_message(seq=1.0), True),
    ("seq 1.5", with_message(seq=1.5), False),
    ("seq true", with_message(seq=True), False),
    ("seq negative", with_message(seq=-1), False),
    (
        "seq 2^31-1",
        episode(window={"from_seq": 0, "to_seq": 2**31 - 1}, messages=[message(2**31 - 1)]),
        True,
    ),
    (
        "seq 2^31",
        episode(window={"from_seq": 0, "to_seq": 2**31 - 1}, messages=[message(2**31)]),
        False,
    ),
    ("to_seq 2^31", episode(window={"from_seq": 0, "to_seq": 2**31}), False),
    ("to_seq 10^30", episode(window={"from_seq": 0, "to_seq": 10**30}), False),
    ("window '0'", episode(window={"from_seq": "0", "to_seq": 2}), False),
    ("window missing to_seq", episode(window={"from_seq": 0}), False),
    ("window reversed (read as empty)", episode(window={"from_seq": 5, "to_seq": 1}), True),
    ("messages outside the window", episode(window={"from_seq": 2, "to_seq": 2}), True),
    ("messages unsorted", episode(messages=[message(2), message(1)]), True),
    ("messages with one seq twice", episode(messages=[message(1), message(1)]), True),
    ("no messages", episode(messages=[]), True),
    ("messages not a list", episode(messages={"seq": 1}), False),
    ("501 messages", episode(messages=[message(1)] * 501), False),
    ("completed_at naive", episode(completed_at="2026-01-01T10:00:00"), False),
    ("completed_at date only", episode(completed_at="2026-01-01"), False),
    ("completed_at epoch seconds", episode(completed_at=1767225600), False),
    ("completed_at epoch milliseconds", episode(completed_at=1767225600000), False),
    ("completed_at epoch as text", episode(completed_at="1767225600"), False),
    ("completed_at epoch float", episode(completed_at=1767225600.5), False),
    ("completed_at with space", episode(completed_at="2026-01-01 10:00:00Z"), False),
    ("completed_at lower case t and z", episode(completed_at="2026-01-01t10:00:00z"), True),
    ("completed_at +05:30", episode(completed_at="2026-01-01T10:00:00+05:30"), True),
    ("completed_at -00:00", episode(completed_at="2026-01-01T10:00:00-00:00"), True),
    ("completed_at offset +24:00", episode(completed_at="2026-01-01T10:00:00+24:00"), False),
    (
        "completed_at offset without colon",
        episode(completed_at="2026-01-01T10:00:00+0530"),
        False,
    ),
    ("completed_at nanoseconds", episode(completed_at="2026-01-01T10:00:00.123456789Z"), True),
    ("completed_at no seconds", episode(completed_at="2026-01-01T10:00Z"), False),
    ("completed_at basic format", episode(completed_at="20260101T100000Z"), False),
    ("completed_at hour 24", episode(completed_at="2026-01-01T24:00:00Z"), False),
    ("completed_at second 60", episode(completed_at=f"{NOW.year - 1}-12-31T23:59:60Z"), False),
    ("completed_at month 13", episode(completed_at=f"{NOW.year - 1}-13-01T10:00:00Z"), False),
    ("completed_at February 30", episode(completed_at="2026-02-30T10:00:00Z"), False),
    ("completed_at April 31", episode(completed_at="2026-04-31T10:00:00Z"), False),
    ("completed_at February 29 of 2024", episode(completed_at="2024-02-29T10:00:00Z"), True),
    ("completed_at February 29 of 2026", episode(completed_at="2026-02-29T10:00:00Z"), False),
    ("completed_at February 29 of 2000", episode(completed_at="2000-02-29T10:00:00Z"), True),
    ("completed_at February 29 of 1900", episode(completed_at="1900-02-29T10:00:00Z"), False),
    ("completed_at year 1", episode(completed_at="0001-01-01T00:00:00Z"), False),
    ("completed_at year 999", episode(completed_at="0999-12-31T23:59:59Z"), False),
    (
        "completed_at year 1000 at +14:00",
        episode(completed_at="1000-01-01T00:00:00+14:00"),
        True,
    ),
    (
        "created_at year 9998 at -12:00",
        with_message(created_at="9998-12-31T23:59:59-12:00"),
        True,
    ),
    ("completed_at year 9999", episode(completed_at="9999-12-31T23:00:00-05:00"), False),
    ("completed_at year 10000", episode(completed_at="10000-01-01T00:00:00Z"), False),
    ("completed_at Arabic-Indic digits", episode(completed_at="٢٠٢٦-01-01T10:00:00Z"), False),
    ("completed_at trailing newline", episode(completed_at="2026-01-01T10:00:00Z\n"), False),
    ("completed_at null", episode(completed_at=None), False),
    ("created_at naive", with_message(created_at="2026-01-01T10:00:00"), False),
    ("created_at epoch", with_message(created_at=1767225600), False),
    ("top level array", [episode()], False),
    ("top level string", "episode", False),
]


@pytest.mark.parametrize(("name", "payload", "expected"), CASES, ids=[c[0] for c in CASES])
def test_schema_and_consumer_agree(name: str, payload: Any, expected: bool) -> None:
    raw = json.dumps(payload, ensure_ascii=False).encode()
    schema_errors = [e.message for e in VALIDATOR.iter_errors(json.loads(raw))]
    try:
        decode(raw, EpisodeCompleted, MAX_EVENT_BYTES)
        consumer_error = None
    except DecodeError as exc:
        consumer_error = str(exc)
    assert (not schema_errors, consumer_error is None) == (expected, expected), (
        f"{name}: schema says {schema_errors or 'valid'}; consumer says {consumer_error or 'valid'}"
    )
    if consumer_error is not None and isinstance(payload, dict):
        assert consumer_error.startswith("invalid_schema"), consumer_error


def test_a_refusal_names_the_field() -> None:
    cases = {
        "completed_at": episode(completed_at="2026-01-01T10:00:00"),
        "messages.0.content": with_message(content="a\u0000b"),
        "window.to_seq": episode(window={"from_seq": 0, "to_seq": 2**31}),
        "messages.0.seq": with_message(seq="1"),
    }
    for field, payload in cases.items():
        with pytest.raises(DecodeError, match=field.replace(".", r"\.")):
            decode(json.dumps(payload).encode(), EpisodeCompleted, MAX_EVENT_BYTES)


def test_a_missing_event_id_is_the_same_on_every_decode() -> None:
    raw = json.dumps(without("event_id")).encode()
    first = decode(raw, EpisodeCompleted, MAX_EVENT_BYTES)
    again = decode(raw, EpisodeCompleted, MAX_EVENT_BYTES)
    spaced = decode(json.dumps(without("event_id"), indent=2).encode(), EpisodeCompleted, 10**6)
    other = decode(json.dumps(without("event_id") | {"episode_id": "ep-2"}).encode(),
                   EpisodeCompleted, MAX_EVENT_BYTES)  # fmt: skip
    assert first.event_id == again.event_id == spaced.event_id != other.event_id


def test_schemas_name_their_dialect_and_an_absolute_id() -> None:
    for path in (ROOT / "schemas").glob("*.schema.json"):
        schema = json.loads(path.read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", path.name
        assert ":" in schema["$id"] and not schema["$id"].startswith("#"), path.name
        jsonschema.Draft202012Validator.check_schema(schema)


def test_a_completed_at_in_the_future_is_the_one_limit_only_the_consumer_knows() -> None:
    """A schema cannot say "not after now"; its description says it, the consumer
    checks it."""
    payload = episode(completed_at=(NOW + timedelta(days=2)).isoformat())
    assert not list(VALIDATOR.iter_errors(payload))
    assert "15 minutes ahead" in SCHEMA["description"]
    with pytest.raises(DecodeError, match=r"completed_at .* ahead of this clock"):
        decode(json.dumps(payload).encode(), EpisodeCompleted, MAX_EVENT_BYTES)
