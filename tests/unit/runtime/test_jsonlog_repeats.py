"""jsonlog: librdkafka's repeated lines are rate-limited; every line is terminal-safe JSON."""

from __future__ import annotations

import io
import json
import logging

from streams.runtime import jsonlog


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _record(name: str, msg: str, level: int = logging.ERROR) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, msg, None, None)


def test_a_repeated_kafka_line_passes_once_per_window_and_counts_what_it_dropped() -> None:
    clock = Clock()
    limit = jsonlog.RepeatFilter(window_s=30.0, clock=clock)
    refused = "FAIL [rdkafka#consumer-1] 127.0.0.1:{port}: Connect failed (after {ms}ms)"

    passed = [
        limit.filter(_record("librdkafka", refused.format(port=9092, ms=i))) for i in range(200)
    ]
    assert passed == [True] + [False] * 199  # numbers aside, the same line

    clock.now += 29.0
    assert not limit.filter(_record("librdkafka", refused.format(port=9092, ms=7)))
    clock.now += 1.0
    after = _record("librdkafka", refused.format(port=9092, ms=3))
    assert limit.filter(after)
    assert after.suppressed == 200  # type: ignore[attr-defined]


def test_other_lines_other_levels_and_other_loggers_are_not_held_back() -> None:
    limit = jsonlog.RepeatFilter(clock=Clock())
    assert limit.filter(_record("streams.runtime.kafka", "kafka: _TRANSPORT"))
    assert limit.filter(_record("streams.runtime.kafka", "kafka: _ALL_BROKERS_DOWN"))
    assert limit.filter(_record("streams.runtime.kafka", "kafka: _TRANSPORT", logging.INFO))
    assert not limit.filter(_record("streams.runtime.kafka", "kafka: _TRANSPORT"))
    # A stage's own lines are never rate-limited, however alike.
    for _ in range(3):
        assert limit.filter(_record("streams.stages.write", "written: inserted=2"))


def test_configure_routes_librdkafka_through_json_lines_with_the_count() -> None:
    buf = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        jsonlog.configure("INFO", buf)
        for _ in range(50):
            logging.getLogger("librdkafka").error("FAIL [c] 127.0.0.1:1: refused")
        logging.getLogger("librdkafka").info("an info line of librdkafka")  # below WARNING
    finally:
        root.handlers[:], root.level = saved
        logging.getLogger("librdkafka").setLevel(logging.NOTSET)
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [(d["logger"], d["level"], d["msg"]) for d in lines] == [
        ("librdkafka", "error", "FAIL [c] 127.0.0.1:1: refused")
    ]


def test_dumps_escapes_every_terminal_control_character() -> None:
    hostile = "a\x1b[31mb\x9b2Jc\u202ed\x07e\x7f é ü 中"
    text = jsonlog.dumps({"v": hostile})
    assert json.loads(text) == {"v": hostile}  # the same string, read back
    assert not any(ch in text for ch in "\x1b\x9b\u202e\x07\x7f")
    assert "é ü 中" in text  # non-ASCII text stays readable
