from streams.runtime.dlq import (
    DLQ_HEADERS,
    DLQ_MAX_VALUE_BYTES,
    H_ATTEMPT,
    H_REASON,
    H_TRUNCATED,
    dead_letter,
    error_headers,
)
from streams.runtime.records import Record


def _raise() -> None:
    raise ValueError("boom")


def test_dead_letter_keeps_key_value_headers_and_adds_error_headers() -> None:
    rec = Record("in", 2, 41, b"ds:p", b"\xffraw", (("trace", b"abc"),), 1700000000000)
    try:
        _raise()
    except ValueError as exc:
        dl = dead_letter(
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


def test_huge_values_are_truncated_and_say_so() -> None:
    rec = Record("in", 0, 1, None, b"x" * (DLQ_MAX_VALUE_BYTES + 10))
    dl = dead_letter(
        rec, ValueError("big"), dlq_topic="d", group="g", stage="s", attempt=0, reason="oversized"
    )
    assert len(dl.value) == DLQ_MAX_VALUE_BYTES
    assert error_headers(dl.headers)[H_TRUNCATED] == str(DLQ_MAX_VALUE_BYTES + 10)
