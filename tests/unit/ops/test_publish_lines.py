"""`factstream publish` validation: each bad line named by number and reason, blanks ignored."""

from __future__ import annotations

import json
from typing import Any

from streams.events import MAX_EVENT_BYTES
from streams.kafka.publisher import FailedDelivery
from streams.ops.publish import (
    EXIT_OK,
    EXIT_SKIPPED,
    EXIT_UNDELIVERED,
    BadLine,
    GoodLine,
    PublishSummary,
    parse_lines,
)


def episode(episode_id: str, **overrides: Any) -> str:
    event: dict[str, Any] = {
        "dataset": "acme",
        "project_id": "p1",
        "episode_id": episode_id,
        "session_id": "s-1",
        "window": {"from_seq": 1, "to_seq": 1},
        "messages": [
            {
                "seq": 1,
                "role": "user",
                "content": "I work at Acme",
                "created_at": "2026-01-01T10:00:00Z",
            }
        ],
        "completed_at": "2026-01-01T10:01:00Z",
        **overrides,
    }
    return json.dumps(event)


def test_bad_lines_carry_their_number_and_reason() -> None:
    lines = [
        episode("e1"),
        episode("e2", completed_at="2026-01-01T10:01:00"),
        "",
        "{not json",
        episode(
            "e3",
            messages=[
                {"seq": 1, "role": "robot", "content": "x", "created_at": "2026-01-01T10:00:00Z"}
            ],
        ),
        episode("e4"),
    ]
    parsed = list(parse_lines(lines))
    good = [p for p in parsed if isinstance(p, GoodLine)]
    bad = {p.line_no: p.reason for p in parsed if isinstance(p, BadLine)}
    assert [(g.line_no, g.event.episode_id) for g in good] == [(1, "e1"), (6, "e4")]
    assert sorted(bad) == [2, 4, 5]  # line 3 is blank and simply ignored
    assert bad[2].startswith("completed_at:") and "UTC offset" in bad[2]
    assert "Invalid JSON" in bad[4]
    assert bad[5].startswith("messages.0.role:")


def test_a_file_that_starts_with_a_byte_order_mark_publishes_its_first_line() -> None:
    """Notepad and PowerShell's Out-File write UTF-8 with a BOM (and CRLF line ends)."""
    lines = [b"\xef\xbb\xbf" + episode("e1").encode() + b"\r\n", episode("e2").encode() + b"\r\n"]
    parsed = list(parse_lines(lines))
    assert [(p.line_no, p.event.episode_id) for p in parsed if isinstance(p, GoodLine)] == [
        (1, "e1"),
        (2, "e2"),
    ], parsed
    # only before the first line: inside the data it is a character like any other
    (second,) = parse_lines([b"", b"\xef\xbb\xbf" + episode("e3").encode()])
    assert isinstance(second, BadLine) and "Invalid JSON" in second.reason


def test_oversized_line_is_reported_not_parsed() -> None:
    huge = episode("big", session_id="s" * 10).replace("I work at Acme", "x" * MAX_EVENT_BYTES)
    (result,) = parse_lines([huge.encode()])
    assert isinstance(result, BadLine)
    assert "over the limit" in result.reason


def test_exit_codes() -> None:
    assert PublishSummary().exit_code() == EXIT_OK
    assert PublishSummary(skipped=[BadLine(2, "x")]).exit_code() == EXIT_SKIPPED
    failed = PublishSummary(skipped=[BadLine(2, "x")], failed=[FailedDelivery("a:b", "1", "x")])
    assert failed.exit_code() == EXIT_UNDELIVERED
