"""Reading dead letters built by the runtime's own dead_letter(): reason, filters, payload."""

from __future__ import annotations

import json

from streams.errors import PoisonError
from streams.kafka.range_reader import RangeRecord
from streams.ops.dlq import DeadLetter, assemble, render_payload
from streams.runtime.dlq import H_TOPIC, dead_letter
from streams.runtime.records import Record


def letter(value: bytes, exc: BaseException, *, key: bytes | None = b"acme:p1") -> DeadLetter:
    original = Record(
        topic="memory.episodes.completed", partition=4, offset=17, key=key, value=value,
        headers=(("traceparent", b"00-abc"),), timestamp_ms=1_700_000_000_000,
    )  # fmt: skip
    (out,) = dead_letter(
        original, exc, dlq_topic="memory.dlq.extract", group="factstream-extract",
        stage="extract", attempt=1, reason="poison",
    )  # fmt: skip
    return DeadLetter(
        RangeRecord(out.topic, 0, 3, 1_700_000_001_000, out.key, out.value, out.headers)
    )


def test_reason_tenant_and_origin_come_from_the_runtime_headers() -> None:
    d = letter(b"{}", PoisonError("messages lie outside window"))
    assert d.tenant == "acme:p1"
    assert d.reason == "poison: PoisonError: messages lie outside window"
    assert d.original == "memory.episodes.completed/4/17"
    assert d.errors[H_TOPIC] == "memory.episodes.completed"
    assert d.unroutable_reason() is None


def test_filters() -> None:
    d = letter(b"{}", PoisonError("messages lie outside window"))
    assert d.matches("acme:p1", None)
    assert d.matches(None, "OUTSIDE window")
    assert d.matches(None, "poisonerror")
    assert not d.matches("other:p1", None)
    assert not d.matches(None, "timeout")


def test_redrive_keeps_original_headers_and_drops_the_error_ones() -> None:
    d = letter(b"{}", ValueError("bad"))
    assert d.original_headers() == [("traceparent", b"00-abc")]


def test_payload_rendering() -> None:
    kind, text = render_payload(json.dumps({"episode_id": "e1", "n": [1, 2]}).encode())
    assert kind == "json" and '\n  "episode_id": "e1"' in text
    assert render_payload(b"plain words") == ("text", "plain words")
    kind, text = render_payload(b"\xff\xfe{bad" + bytes(range(40)))
    assert kind == "binary (not UTF-8)"
    assert text.startswith("00000000  ff fe 7b 62 61 64")
    assert render_payload(None)[0] == "empty"
    assert render_payload(b"[" * 5000 + b"]" * 5000)[0] == "text"  # nested past the limit


def test_parts_of_a_split_value_are_one_dead_letter() -> None:
    original = Record("memory.episodes.completed", 4, 17, b"acme:p1", b"v" * 2_000_000)
    parts = dead_letter(
        original, PoisonError("big"), dlq_topic="d", group="g", stage="extract", attempt=0,
        reason="oversized",
    )  # fmt: skip
    other = dead_letter(
        Record("memory.episodes.completed", 4, 18, b"acme:p1", b"{}"), PoisonError("x"),
        dlq_topic="d", group="g", stage="extract", attempt=0, reason="bad_json",
    )  # fmt: skip
    # As they may land: another dead letter between two parts of the first.
    ordered = [parts[0], other[0], *parts[1:]]
    records = [
        RangeRecord("d", 0, offset, 0, out.key, out.value, out.headers)
        for offset, out in enumerate(ordered)
    ]
    letters = list(assemble(records))
    assert [len(letter.value or b"") for letter in letters] == [2, 2_000_000]
    whole = letters[1]
    assert whole.value == original.value and whole.offsets == [0, 2, 3]
    assert whole.unroutable_reason() is None
    missing = list(assemble(records[:3]))
    assert [letter.unroutable_reason() for letter in missing] == [
        None,
        "only 2 of its 3 parts were found",
    ]


def test_a_letter_without_a_key_is_redriven_keyed_by_its_payloads_tenant() -> None:
    episode = json.dumps({"dataset": "acme", "project_id": "p1", "episode_id": "e"}).encode()
    keyless = letter(episode, PoisonError("record has no key"), key=None)
    assert keyless.tenant == "" and keyless.redrive_key == b"acme:p1"
    assert keyless.unroutable_reason() is None
    assert letter(episode, PoisonError("x"), key=b"other:p").redrive_key == b"other:p"  # as it was


def test_a_letter_without_a_key_or_a_tenant_in_its_payload_is_not_redriven() -> None:
    for value in (b"\xff", b"[1]", b'{"dataset": "acme"}', b'{"dataset": "", "project_id": "p"}'):
        keyless = letter(value, PoisonError("x"), key=None)
        assert keyless.redrive_key is None
        assert keyless.unroutable_reason() == (
            "it has no key and its payload names no tenant to key it by"
        ), value


def test_a_letter_keyed_by_another_tenant_than_its_payloads_is_not_redriven() -> None:
    # Sent as it is, a worker dead-letters it again (key_mismatch): a new letter, which
    # the next redrive would send again, and so on.
    episode = json.dumps({"dataset": "acme", "project_id": "p2", "episode_id": "e"}).encode()
    mismatched = letter(episode, PoisonError("record key 'acme:p1' is not ..."))
    assert mismatched.unroutable_reason() == (
        "its key 'acme:p1' is not the tenant its payload names 'acme:p2':"
        " it would be dead-lettered again (key_mismatch)"
    )
    assert letter(episode, PoisonError("x"), key=b"acme:p2").unroutable_reason() is None
    assert letter(b"{broken", PoisonError("x")).unroutable_reason() is None  # no tenant to compare
