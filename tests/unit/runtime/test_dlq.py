from streams.runtime.dlq import (
    DLQ_HEADERS,
    DLQ_PART_BYTES,
    H_ATTEMPT,
    H_REASON,
    H_TRUNCATED,
    dead_letter,
    error_headers,
    part_of,
)
from streams.runtime.records import Record


def _raise() -> None:
    raise ValueError("boom")


def test_dead_letter_keeps_key_value_headers_and_adds_error_headers() -> None:
    rec = Record("in", 2, 41, b"ds:p", b"\xffraw", (("trace", b"abc"),), 1700000000000)
    try:
        _raise()
    except ValueError as exc:
        (dl,) = dead_letter(
            rec, exc, dlq_topic="dlq", group="g", stage="s", attempt=3, reason="handler_error"
        )
    assert dl.topic == "dlq" and dl.key == b"ds:p" and dl.value == b"\xffraw"
    assert dl.headers[0] == ("trace", b"abc")
    h = error_headers(dl.headers)
    assert h == {
        **h,
        "x-original-topic": "in",
        "x-original-partition": "2",
        "x-original-offset": "41",
        "x-original-timestamp": "1700000000000",
        "x-consumer-group": "g",
        "x-stage": "s",
        "x-exception-class": "builtins.ValueError",
        "x-exception-message": "boom",
        H_ATTEMPT: "3",
        H_REASON: "handler_error",
    }
    assert "_raise" in h["x-stack-trace"]
    assert set(h) <= set(DLQ_HEADERS) and H_TRUNCATED not in h


def test_a_huge_value_is_kept_whole_over_several_parts() -> None:
    original = bytes(range(256)) * ((2 * DLQ_PART_BYTES) // 256 + 7)
    rec = Record("in", 0, 1, b"ds:p", original, (("trace", b"abc"),))
    parts = dead_letter(
        rec, ValueError("big"), dlq_topic="d", group="g", stage="s", attempt=0, reason="oversized"
    )
    assert len(parts) == 3
    assert b"".join(p.value for p in parts) == original
    assert all(p.key == b"ds:p" and len(p.value) <= DLQ_PART_BYTES for p in parts)
    assert [part_of(p.headers) for p in parts] == [(1, 3), (2, 3), (3, 3)]
    first = error_headers(parts[0].headers)
    assert first[H_REASON] == "oversized" and first["x-value-length"] == str(len(original))
    assert parts[0].headers[0] == ("trace", b"abc") and H_TRUNCATED not in first
    rest = error_headers(parts[2].headers)
    assert rest["x-original-offset"] == "1" and "x-stack-trace" not in rest


def test_delivery_headers_are_not_kept() -> None:
    rec = Record("in", 0, 1, b"k", b"{}", (("release", b"token"), ("trace", b"abc")))
    (dl,) = dead_letter(
        rec, ValueError("x"), dlq_topic="d", group="g", stage="s", attempt=1,
        reason="handler_error", delivery_headers=("release",),
    )  # fmt: skip
    assert [k for k, _ in dl.headers][:1] == ["trace"]
    assert "release" not in dict(dl.headers)


def test_an_original_header_named_like_ours_is_not_kept() -> None:
    # A producer's x-value-part made a whole letter half of one (never redriven); its
    # x-value-truncated made it unredrivable; its x-reason hid ours from `dlq list`.
    spoofed = (("x-value-part", b"1/2"), ("x-value-truncated", b"5"), ("x-reason", b"fine"))
    rec = Record("in", 0, 1, b"k", b"{broken", (("trace", b"abc"), *spoofed))
    (dl,) = dead_letter(
        rec, ValueError("x"), dlq_topic="d", group="g", stage="s", attempt=0, reason="bad_json"
    )
    assert dl.headers[0] == ("trace", b"abc") and part_of(dl.headers) == (1, 1)
    names = [k for k, _ in dl.headers]
    assert H_TRUNCATED not in names and "x-value-part" not in names
    assert names.count(H_REASON) == 1 and error_headers(dl.headers)[H_REASON] == "bad_json"


def test_error_headers_show_bytes_that_are_not_utf8_as_escapes() -> None:
    # As `dlq list` shows keys: a letter someone wrote to the DLQ topic by hand showed
    # its x-original-topic b"\xff\xfe" as two U+FFFD marks.
    headers = (("x-original-topic", b"\xff\xfein"), (H_REASON, b"bad\xc3"))
    assert error_headers(headers) == {"x-original-topic": "\\xff\\xfein", H_REASON: "bad\\xc3"}
