"""EpisodeCompleted rejects every over-limit or malformed event with a clear message."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from streams.events import (
    MAX_CLOCK_SKEW,
    MAX_EVENT_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_EPISODE,
    EpisodeCompleted,
    Fact,
    FactsJudged,
    decode_episode,
)


def episode(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "dataset": "acme",
        "project_id": "p1",
        "episode_id": "ep-1",
        "session_id": "s-1",
        "window": {"from_seq": 1, "to_seq": 2},
        "messages": [
            {
                "seq": 1,
                "role": "user",
                "content": "I work at Google",
                "created_at": "2026-01-01T10:00:00Z",
            },
            {
                "seq": 2,
                "role": "assistant",
                "content": "Nice!",
                "created_at": "2026-01-01T10:00:05Z",
            },
        ],
        "completed_at": "2026-01-01T10:01:00Z",
    }
    base.update(overrides)
    return base


def test_a_valid_event_parses_and_knows_its_tenant() -> None:
    event = EpisodeCompleted.model_validate(episode())
    assert event.tenant == "acme:p1"
    assert event.schema_version == 1
    assert event.event_id  # generated when absent


def reject(payload: dict[str, Any], expected: str) -> None:
    with pytest.raises(ValidationError) as info:
        EpisodeCompleted.model_validate(payload)
    assert expected in str(info.value)


def test_too_many_messages() -> None:
    messages = [
        {"seq": i, "role": "user", "content": "hi", "created_at": "2026-01-01T10:00:00Z"}
        for i in range(MAX_MESSAGES_PER_EPISODE + 1)
    ]
    reject(
        episode(messages=messages, window={"from_seq": 0, "to_seq": MAX_MESSAGES_PER_EPISODE}),
        f"at most {MAX_MESSAGES_PER_EPISODE} items",
    )


def test_message_too_long() -> None:
    long = {
        "seq": 1,
        "role": "user",
        "content": "x" * (MAX_MESSAGE_CHARS + 1),
        "created_at": "2026-01-01T10:00:00Z",
    }
    reject(episode(messages=[long]), f"at most {MAX_MESSAGE_CHARS} characters")


def test_unknown_role() -> None:
    bad = {"seq": 1, "role": "hacker", "content": "x", "created_at": "2026-01-01T10:00:00Z"}
    reject(episode(messages=[bad]), "'user', 'assistant', 'system' or 'tool'")


@pytest.mark.parametrize("dataset", ["a:b", "has space", "", "-leading", "x" * 129])
def test_dataset_character_set(dataset: str) -> None:
    reject(episode(dataset=dataset), "dataset")


def test_project_id_character_set() -> None:
    reject(episode(project_id="p/1"), "project_id")


def test_missing_field() -> None:
    payload = episode()
    del payload["episode_id"]
    reject(payload, "episode_id\n  Field required")


def test_unknown_field_is_refused() -> None:
    reject(episode(surprise=1), "Extra inputs are not permitted")


def test_a_reversed_window_holds_no_message_and_says_why() -> None:
    event = EpisodeCompleted.model_validate(episode(window={"from_seq": 5, "to_seq": 2}))
    assert event.window_messages() == []
    assert "reversed (to_seq 2 < from_seq 5)" in event.why_empty()


def test_messages_outside_the_window_are_kept_but_not_read() -> None:
    event = EpisodeCompleted.model_validate(episode(window={"from_seq": 2, "to_seq": 2}))
    assert [m.seq for m in event.messages] == [1, 2]
    assert [m.seq for m in event.window_messages()] == [2]


def test_messages_are_read_in_seq_order() -> None:
    first, second = episode()["messages"]
    event = EpisodeCompleted.model_validate(episode(messages=[second, first]))
    assert [m.seq for m in event.window_messages()] == [1, 2]


def test_an_event_whose_copy_would_not_fit_is_refused() -> None:
    """Compact and without the optional fields, it is under the limit; every copy the
    pipeline makes of it (defaults filled in) would be over it."""
    payload = episode()
    payload["messages"] = [
        {"seq": i, "role": "user", "content": "x" * 19_900, "created_at": "2026-01-01T10:00:00Z"}
        for i in range(1, 51)
    ]
    payload["window"] = {"from_seq": 1, "to_seq": 50}
    compact = json.dumps(payload, separators=(",", ":")).encode()
    pad = MAX_EVENT_BYTES - 10 - len(compact)
    for m in payload["messages"]:  # up to the message limit, message by message
        more = min(pad, MAX_MESSAGE_CHARS - len(m["content"]))
        m["content"] += "y" * more
        pad -= more
    raw = json.dumps(payload, separators=(",", ":")).encode()
    assert MAX_EVENT_BYTES - 20 < len(raw) <= MAX_EVENT_BYTES
    with pytest.raises(ValidationError, match="once encoded with every default filled in"):
        decode_episode(raw)


def test_bad_timestamp() -> None:
    reject(episode(completed_at="yesterday"), "completed_at")


@pytest.mark.parametrize(
    ("ahead", "shown"),
    [(timedelta(days=3), "3 days, 0:00:00"), (timedelta(minutes=16), "0:16:00")],
)
def test_an_episode_completed_in_the_future_is_refused(ahead: timedelta, shown: str) -> None:
    at = datetime.now(UTC) + ahead + timedelta(seconds=1)
    reject(episode(completed_at=at.isoformat()), f"completed_at {at.isoformat()} is {shown}")
    reject(episode(completed_at=at.isoformat()), "more than 0:15:00 ahead is refused")


def test_a_clock_running_a_little_ahead_is_allowed() -> None:
    at = datetime.now(UTC) + MAX_CLOCK_SKEW - timedelta(minutes=1)
    assert EpisodeCompleted.model_validate(episode(completed_at=at.isoformat())).completed_at == at


def test_wrong_schema_version() -> None:
    reject(episode(schema_version=2), "schema_version")


def test_oversized_bytes_are_refused_before_parsing() -> None:
    raw = json.dumps(episode()).encode() + b" " * MAX_EVENT_BYTES
    with pytest.raises(ValueError, match=f"over the limit of {MAX_EVENT_BYTES}"):
        decode_episode(raw)


def test_not_json() -> None:
    with pytest.raises(ValidationError, match="Invalid JSON"):
        decode_episode(b"{not json")


def test_a_stage_fact_never_ends_before_it_starts() -> None:
    with pytest.raises(ValidationError, match=r"valid_until .* is before valid_from"):
        Fact.model_validate_json(
            '{"subject": "user", "predicate": "works at", "object": "acme", "kind": "literal",'
            ' "confidence": 0.9, "valid_from": "2026-05-01T00:00:00Z",'
            ' "valid_until": "2025-01-01T00:00:00Z"}'
        )


def test_an_invalidation_must_name_an_insert() -> None:
    payload = {
        "dataset": "acme", "project_id": "p1", "episode_id": "e", "source_event_id": "e",
        "inserts": [], "invalidations": [
            {"fact_id": 1, "subject": "user", "predicate": "p", "object": "o", "by_candidate": 0}
        ],
    }  # fmt: skip
    with pytest.raises(ValidationError, match="by_candidate \\[0\\], past the 0 inserts"):
        FactsJudged.model_validate(payload)
