"""The input topic's poison that is a JSON object: a good episode with one field made wrong.

:func:`episode_payload` is that good EpisodeCompleted (chaos/oddities.py starts from it
too); :func:`episode_poison` makes each field wrong the ways a client in another language
writes it: strings for numbers, naive or epoch times, NUL, numbers past the database's
columns, dates Postgres or Python cannot hold, unknown fields, too many or too long
messages. chaos/poison.py adds them to the rest of the corpus, each with its DLQ reason.
"""

from __future__ import annotations

import json


def episode_payload(dataset: str, project: str, tag: str, **overrides: object) -> dict[str, object]:
    base: dict[str, object] = {
        "event_id": f"poison-{tag}", "dataset": dataset, "project_id": project,
        "episode_id": f"poison-{tag}", "session_id": "s-poison",
        "window": {"from_seq": 0, "to_seq": 0},
        "messages": [{"seq": 0, "role": "user", "content": f"I work at poison {tag}.",
                      "created_at": "2026-01-01T00:00:00Z"}],
        "completed_at": "2026-01-01T00:00:00Z",
    }  # fmt: skip
    base.update(overrides)
    return base


def episode_poison(dataset: str, project: str) -> list[tuple[str, bytes | None, str]]:
    """(name, value, reason) of the input-topic kinds that are valid JSON objects."""

    def ep(tag: str, **overrides: object) -> bytes:
        event = episode_payload(dataset, project, tag)
        event.update(overrides)
        return json.dumps(event).encode()

    def msg(tag: str, **fields: object) -> bytes:
        m = {"seq": 0, "role": "user", "content": "hi", "created_at": "2026-01-01T00:00:00Z"}
        return ep(tag, messages=[{**m, **fields}])

    return [
        ("missing-fields", json.dumps({"dataset": dataset, "hello": 1}).encode(), "invalid_schema"),
        ("colon-in-tenant", ep("colon", project_id="evil:tenant"), "invalid_schema"),
        ("newline-in-tenant", ep("newline", dataset=dataset + "\n"), "invalid_schema"),
        ("empty-dataset", ep("empty-ds", dataset=""), "invalid_schema"),
        ("message-too-long", msg("long", content="y" * 25_000), "invalid_schema"),
        ("unknown-role", msg("role", role="root"), "invalid_schema"),
        ("nul-in-content", msg("nul", content="a\u0000b"), "invalid_schema"),
        ("nul-in-episode-id", ep("nul-id", episode_id="ep\u0000"), "invalid_schema"),
        ("nul-in-session-id", ep("nul-session", session_id="s\u0000"), "invalid_schema"),
        (
            "seq-over-int4",
            ep(
                "seq-int4",
                window={"from_seq": 0, "to_seq": 2**31 - 1},
                messages=[
                    {
                        "seq": 2**31,
                        "role": "user",
                        "content": "x",
                        "created_at": "2026-01-01T00:00:00Z",
                    }
                ],
            ),
            "invalid_schema",
        ),
        (
            "window-over-int4",
            ep("window-int4", window={"from_seq": 0, "to_seq": 2**31}),
            "invalid_schema",
        ),
        ("negative-seq", msg("negative", seq=-1), "invalid_schema"),
        ("seq-as-string", msg("seq-str", seq="0"), "invalid_schema"),
        ("seq-fraction", msg("seq-frac", seq=0.5), "invalid_schema"),
        (
            "seq-infinite",
            b'{"dataset": "' + dataset.encode() + b'", "seq": 1e400}',
            "invalid_schema",
        ),
        ("year-1", ep("year-1", completed_at="0001-01-01T00:00:00Z"), "invalid_schema"),
        (
            "year-9999-past-utc",
            ep("utc-overflow", completed_at="9999-12-31T23:00:00-05:00"),
            "invalid_schema",
        ),
        ("naive-datetime", ep("naive", completed_at="2026-01-01T00:00:00"), "invalid_schema"),
        ("epoch-datetime", ep("epoch", completed_at=1767225600), "invalid_schema"),
        ("epoch-created-at", msg("epoch-msg", created_at=1767225600), "invalid_schema"),
        ("february-30", ep("feb-30", completed_at="2026-02-30T00:00:00Z"), "invalid_schema"),
        ("reprocess-as-string", ep("reprocess-str", reprocess="yes"), "invalid_schema"),
        ("schema-version-2", ep("version", schema_version=2), "invalid_schema"),
        ("unknown-field", ep("extra", trace_id="abc"), "invalid_schema"),
        ("event-id-null", ep("id-null", event_id=None), "invalid_schema"),
        (
            "too-many-messages",
            ep(
                "many",
                window={"from_seq": 0, "to_seq": 600},
                messages=[
                    {"seq": i, "role": "user", "content": "x", "created_at": "2026-01-01T00:00:00Z"}
                    for i in range(501)
                ],
            ),
            "invalid_schema",
        ),
        ("content-not-text", msg("content-num", content=42), "invalid_schema"),
        ("content-null", msg("content-null", content=None), "invalid_schema"),
        ("messages-not-a-list", ep("not-list", messages={"seq": 0}), "invalid_schema"),
        ("top-level-array", b"[1, 2, 3]", "invalid_schema"),
        ("top-level-number", b"42", "invalid_schema"),
        ("empty-object", b"{}", "invalid_schema"),
    ]
