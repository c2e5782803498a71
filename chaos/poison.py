"""The poison corpus: records no stage may accept, each with the DLQ reason it must get.

Most go to the input topic (so the summarize AND extract groups each dead-letter them);
the rest to the stage topics further down. Half are keyed by a real tenant, so they sit
in the same partition and lane as good records that must keep moving. The kinds: broken
bytes and JSON, every field an event carries made wrong the ways a client in another
language writes it (strings for numbers, naive or epoch times, NUL, numbers past the
database's columns, dates Postgres or Python cannot hold), sizes over the limits (as
sent, and only once the pipeline re-encodes it), a key that is not the payload's tenant
or none at all, and stage events that break their model (inverted validity, NaN vectors, missing
winners). chaos/oddities.py holds records that look wrong but are good: they must be processed.
The input topic's episodes with one field made wrong come from chaos/poison_episodes.py.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from chaos.poison_episodes import episode_payload, episode_poison
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
    key: bytes | None
    value: bytes | None
    reason: str  # the x-reason header each dead letter must carry
    headers: tuple[tuple[str, bytes], ...] = ()

    @property
    def fingerprint(self) -> str:
        """Identifies the record in a DLQ: the value (kept untouched) and key."""
        return fingerprint(self.key, self.value)

    def stages(self) -> tuple[str, ...]:
        return CONSUMERS[self.topic]


def fingerprint(key: bytes | None, value: bytes | None) -> str:
    digest = hashlib.sha256(value if value else b"<none>")
    return f"{(key or b'').decode('utf-8', 'replace')}|{digest.hexdigest()[:16]}"


def _stage_event(dataset: str, project: str, tag: str, **overrides: object) -> dict[str, object]:
    fact = {
        "subject": "user",
        "predicate": "likes",
        "object": "tea",
        "kind": "literal",
        "confidence": 0.9,
        "source_quote": "I like tea",
    }
    base: dict[str, object] = {
        "event_id": f"poison-{tag}", "dataset": dataset, "project_id": project,
        "episode_id": f"poison-{tag}", "source_event_id": f"poison-{tag}",
        "inserts": [{"fact": fact, "embedding": [0.1, 0.2]}],
    }  # fmt: skip
    base.update(overrides)
    return base


def _copy_over_limit(dataset: str, project: str, limit: int) -> bytes:
    """Compact, without the optional fields, just under ``limit`` as sent: every copy the
    pipeline rebuilds from the ledger (defaults filled in) is over it."""
    event = episode_payload(dataset, project, "copy-over-limit")
    event.pop("event_id")
    content = 19_000
    n = limit // (content + 100) + 1
    event["window"] = {"from_seq": 0, "to_seq": n}
    event["messages"] = [
        {"seq": i, "role": "user", "content": "w" * content, "created_at": "2026-01-01T00:00:00Z"}
        for i in range(n)
    ]
    raw = json.dumps(event, separators=(",", ":")).encode()
    while len(raw) > limit - 20:  # trim the last message until just under the limit
        last = event["messages"][-1]  # type: ignore[index]
        cut = min(len(raw) - (limit - 20), len(last["content"]) - 1)
        last["content"] = last["content"][:-cut]
        raw = json.dumps(event, separators=(",", ":")).encode()
    return raw


def corpus(settings: Settings, dataset: str, tenant_keys: list[str]) -> list[Poison]:
    """The records; ``settings.max_record_bytes`` sizes the oversized ones."""

    def key(i: int) -> bytes:  # alternate: a real tenant's key, or a poison-only key
        if i % 2 == 0 and tenant_keys:
            return tenant_keys[(i * 7) % len(tenant_keys)].encode()
        return f"{dataset}:poison{i}".encode()

    def js(obj: object) -> bytes:
        return json.dumps(obj).encode()

    project = "poison"
    big = "x" * 19_000
    n_big = settings.max_record_bytes // len(big) + 2
    oversized = episode_payload(
        dataset,
        project,
        "oversized",
        window={"from_seq": 0, "to_seq": n_big},
        messages=[
            {"seq": i, "role": "user", "content": big, "created_at": "2026-01-01T00:00:00Z"}
            for i in range(n_big)
        ],
    )
    judged = "facts.judged"
    items: list[tuple[str, str, bytes | None, str]] = [
        ("truncated-json", "episodes.completed", b'{"dataset": "' + dataset.encode() + b'", "pro',
         "bad_json"),
        ("not-json", "episodes.completed", b"hello, this is not JSON at all", "bad_json"),
        ("not-utf8", "episodes.completed", b'{"dataset": "\xff\xfe\xfa", "x": "\xc3\x28"}',
         "not_utf8"),
        ("lone-surrogate", "episodes.completed", b'{"dataset": "\\ud800"}', "bad_json"),
        ("utf8-bom", "episodes.completed",
         b"\xef\xbb\xbf" + js(episode_payload(dataset, project, "bom")), "bad_json"),
        ("deep-nesting", "episodes.completed", b"[" * 5000 + b"]" * 5000, "bad_json"),
        ("extracted-unknown-field", "facts.extracted",
         js({"dataset": dataset, "project_id": project, "episode_id": "x", "entities": [],
             "facts": [], "source_event_id": "x", "window": {}}), "invalid_schema"),
        ("oversized", "episodes.completed", js(oversized), "oversized"),
        ("copy-over-limit", "episodes.completed",
         _copy_over_limit(dataset, project, settings.max_record_bytes), "oversized"),
        ("tombstone", "episodes.completed", None, "empty"),
        *((n, "episodes.completed", v, r) for n, v, r in episode_poison(dataset, project)),
        ("extracted-bad-json", "facts.extracted", b"{not json", "bad_json"),
        ("resolved-schema", "facts.resolved", js({"dataset": dataset, "facts": "none"}),
         "invalid_schema"),
        ("deduped-not-utf8", "facts.deduped", b"\x80\x81\x82 binary", "not_utf8"),
        ("deduped-id-over-int8", "facts.deduped",
         js(_stage_event(dataset, project, "int8", inserts=None,
                         candidates=[{"fact": {"subject": "user", "predicate": "likes",
                                               "object": "tea", "kind": "literal",
                                               "confidence": 0.9, "subject_entity_id": 2**63},
                                      "embedding": [0.1]}])), "invalid_schema"),
        ("judged-schema", judged, js({"dataset": dataset, "project_id": project,
                                      "episode_id": "x", "inserts": 7}), "invalid_schema"),
        ("judged-inverted-validity", judged, js(_stage_event(
            dataset, project, "inverted", inserts=[{"fact": {
                "subject": "user", "predicate": "likes", "object": "tea", "kind": "literal",
                "confidence": 0.9, "valid_from": "2026-02-01T00:00:00Z",
                "valid_until": "2026-01-01T00:00:00Z"}, "embedding": [0.1]}])),
         "invalid_schema"),
        ("judged-nan-embedding", judged, js(_stage_event(
            dataset, project, "nan", inserts=[{"fact": {
                "subject": "user", "predicate": "likes", "object": "tea", "kind": "literal",
                "confidence": 0.9}, "embedding": [float("nan"), 0.1]}])), "invalid_schema"),
        ("judged-nul-in-object", judged, js(_stage_event(
            dataset, project, "nul-object", inserts=[{"fact": {
                "subject": "user", "predicate": "likes", "object": "t\u0000a",
                "kind": "literal", "confidence": 0.9}, "embedding": [0.1]}])),
         "invalid_schema"),
        ("judged-missing-winner", judged, js(_stage_event(
            dataset, project, "winner", invalidations=[{"fact_id": 1, "subject": "user",
                                                        "predicate": "likes", "object": "x",
                                                        "by_candidate": 5}])),
         "invalid_schema"),
        ("judged-year-1", judged, js(_stage_event(
            dataset, project, "judged-year-1", stated_at="0001-01-01T00:00:00Z")),
         "invalid_schema"),
    ]  # fmt: skip
    out = [
        Poison(name, topic, key(i), value, reason)
        for i, (name, topic, value, reason) in enumerate(items)
    ]
    # A key that is not the payload's tenant: a real tenant's key on a poison tenant's
    # otherwise valid event (it must not run as, or be routed as, either tenant).
    other = tenant_keys[0].encode() if tenant_keys else f"{dataset}:someone-else".encode()
    out.append(
        Poison(
            "key-mismatch",
            "episodes.completed",
            other,
            js(episode_payload(dataset, project, "key-mismatch")),
            "key_mismatch",
        )
    )
    extracted = {
        "dataset": dataset,
        "project_id": project,
        "episode_id": "km",
        "source_event_id": "km",
        "entities": [],
        "facts": [],
    }
    out.append(
        Poison("stage-key-mismatch", "facts.extracted", other, js(extracted), "key_mismatch")
    )
    # No key at all: it would land on any partition, out of its tenant's order.
    keyless = js(episode_payload(dataset, project, "no-key"))
    out.append(Poison("no-key", "episodes.completed", None, keyless, "no_key"))
    out.append(Poison("stage-no-key", "facts.extracted", None, js(extracted), "no_key"))
    return out
