"""A worker's Kafka clients with no broker behind the address: librdkafka's reconnect
errors and the error callback's lines reach the log as a few JSON lines, not dozens a
second. Real librdkafka clients (the runtime's KafkaIO) polling a closed port."""

from __future__ import annotations

import io
import json
import logging
import socket
import time
from collections.abc import Iterator

import pytest

from streams.runtime import jsonlog
from streams.runtime.kafka_io import KafkaIO
from streams.runtime.metrics import WorkerMetrics
from tests.support.runtime import RecordingHooks, raw_worker_config

pytestmark = pytest.mark.timeout(60)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Count(logging.Handler):
    """Counts what the clients log before any filter (the noise there is to hold back)."""

    def __init__(self) -> None:
        super().__init__()
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.records += 1


@pytest.fixture
def json_log() -> Iterator[tuple[io.StringIO, Count]]:
    buf, raw = io.StringIO(), Count()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    watched = [logging.getLogger(n) for n in ("librdkafka", "streams.runtime.kafka")]
    jsonlog.configure("INFO", buf)
    for logger in watched:
        logger.addHandler(raw)
    try:
        yield buf, raw
    finally:
        for logger in watched:
            logger.removeHandler(raw)
        root.handlers[:], root.level = saved
        logging.getLogger("librdkafka").setLevel(logging.NOTSET)


def test_an_unreachable_broker_logs_a_few_json_lines_naming_it(
    json_log: tuple[io.StringIO, Count],
) -> None:
    buf, raw = json_log
    address = f"127.0.0.1:{closed_port()}"
    cfg = raw_worker_config(address, "down.", "down")
    io_ = KafkaIO(cfg, transactional=False, hooks=RecordingHooks(), metrics=WorkerMetrics("down"))
    try:
        io_.start(["down.in"])
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            io_.poll(False, 10, 0.1)
    finally:
        io_.close()

    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert 1 <= len(lines) <= 8, lines  # each kind of line once in the 30 s window
    assert raw.records >= 5 * len(lines), (raw.records, len(lines))  # the noise held back
    assert {d["logger"] for d in lines} <= {"librdkafka", "streams.runtime.kafka"}
    assert any(address in d["msg"] and "Connection refused" in d["msg"] for d in lines)
