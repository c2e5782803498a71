"""The poison corpus: records no stage can decode, each with the DLQ reason it must get.

Most go to the input topic (so the summarize AND extract groups each dead-letter them);
one goes to each stage topic further down. Half are keyed by a real tenant, so they sit
in the same partition and lane as good records that must keep moving.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from streams.settings import Settings

# Which stages consume a (short) topic name.
CONSUMERS: dict[str, tuple[str, ...]] = {
    "episodes.completed": ("summarize", "extract"),
    "facts.extracted": ("resolve",),
    "facts.resolved": ("dedup",),
    "facts.deduped": ("judge",),
    "facts.judged": ("write",),
}


@dataclass(frozen=True)
class Poison:
    name: str
    topic: str  # short name
    key: bytes
    value: bytes | None
    reason: str  # the x-reason header each dead letter must carry

    @property
    def fingerprint(self) -> str:
        """Identifies the record in a DLQ: the value (kept untouched) and key."""
        return fingerprint(self.key, self.value)

    def stages(self) -> tuple[str, ...]:
        return CONSUMERS[self.topic]


def fingerprint(key: bytes | None, value: bytes | None) -> str:
    digest = hashlib.sha256(value if value else b"<none>")
    return f"{(key or b'').decode('utf-8', 'replace')}|{digest.hexdigest()[:16]}"


def _episode(dataset: str, project: str, tag: str, **overrides: object) -> dict[str, object]:
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


def corpus(settings: Settings, dataset: str, tenant_keys: list[str]) -> list[Poison]:
    """The records; ``settings.max_record_bytes`` sizes the oversized one."""

    def key(i: int) -> bytes:  # alternate: a real tenant's key, or a poison-only key
        if i % 2 == 0 and tenant_keys:
            return tenant_keys[(i * 7) % len(tenant_keys)].encode()
        return f"{dataset}:poison{i}".encode()

    def js(obj: object) -> bytes:
        return json.dumps(obj).encode()

    project = "poison"
    big = "x" * 19_000
    n_big = settings.max_record_bytes // len(big) + 2
    oversized = _episode(
        dataset,
        project,
        "oversized",
        window={"from_seq": 0, "to_seq": n_big},
        messages=[
            {"seq": i, "role": "user", "content": big, "created_at": "2026-01-01T00:00:00Z"}
            for i in range(n_big)
        ],
    )
    items: list[tuple[str, str, bytes | None, str]] = [
        ("truncated-json", "episodes.completed", b'{"dataset": "' + dataset.encode() + b'", "pro',
         "bad_json"),
        ("not-json", "episodes.completed", b"hello, this is not JSON at all", "bad_json"),
        ("not-utf8", "episodes.completed", b'{"dataset": "\xff\xfe\xfa", "x": "\xc3\x28"}',
         "not_utf8"),
        ("missing-fields", "episodes.completed", js({"dataset": dataset, "hello": 1}),
         "invalid_schema"),
        ("window-reversed", "episodes.completed",
         js(_episode(dataset, project, "reversed", window={"from_seq": 5, "to_seq": 1})),
         "invalid_schema"),
        ("colon-in-tenant", "episodes.completed",
         js(_episode(dataset, "evil:tenant", "colon")), "invalid_schema"),
        ("message-too-long", "episodes.completed", js(_episode(
            dataset, project, "long", messages=[{"seq": 0, "role": "user", "content": "y" * 25_000,
                                                 "created_at": "2026-01-01T00:00:00Z"}])),
         "invalid_schema"),
        ("unknown-role", "episodes.completed", js(_episode(
            dataset, project, "role", messages=[{"seq": 0, "role": "root", "content": "hi",
                                                 "created_at": "2026-01-01T00:00:00Z"}])),
         "invalid_schema"),
        ("oversized", "episodes.completed", js(oversized), "oversized"),
        ("tombstone", "episodes.completed", None, "empty"),
        ("extracted-bad-json", "facts.extracted", b"{not json", "bad_json"),
        ("resolved-schema", "facts.resolved", js({"dataset": dataset, "facts": "none"}),
         "invalid_schema"),
        ("deduped-not-utf8", "facts.deduped", b"\x80\x81\x82 binary", "not_utf8"),
        ("judged-schema", "facts.judged", js({"dataset": dataset, "project_id": project,
                                               "episode_id": "x", "inserts": 7}),
         "invalid_schema"),
    ]  # fmt: skip
    return [
        Poison(name, topic, key(i), value, reason)
        for i, (name, topic, value, reason) in enumerate(items)
    ]
