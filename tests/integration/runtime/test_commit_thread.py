"""A Kafka-to-Kafka worker commits on its own thread: a finished record is handed on while
the poll thread waits for new records, not after that poll times out."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from streams.runtime.kafka_io import KafkaIO
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import OutRecord, PartitionPlan, Record
from tests.support.runtime import RecordingHooks, produce, raw_worker_config, read_to_end

pytestmark = pytest.mark.timeout(90)
LONG_POLL_S = 4.0


def test_a_commit_does_not_wait_for_the_poll_in_progress(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("in", "out", partitions=2)
    src, out = f"{prefix}in", f"{prefix}out"
    produce(kafka_bootstrap, src, [(b"k", b"{}")])
    hooks = RecordingHooks()
    io = KafkaIO(
        raw_worker_config(kafka_bootstrap, prefix, "ct"),
        transactional=True,
        hooks=hooks,
        metrics=WorkerMetrics("ct"),
    )
    try:
        io.start([src])
        got: list[Record] = []
        deadline = time.monotonic() + 30
        while not got:
            assert time.monotonic() < deadline, "the record was never read"
            got += io.executor.submit(io.poll, False, 10, 0.2).result(10)
        rec = got[0]
        plan = PartitionPlan(
            src,
            rec.partition,
            hooks.epochs[(src, rec.partition)],
            ((rec.offset, (OutRecord(out, b"k", b"handed on"),)),),
        )

        polling = io.executor.submit(io.poll, False, 10, LONG_POLL_S)  # nothing more to read
        time.sleep(0.3)
        started = time.monotonic()
        committed = io.commit_executor.submit(io.commit, [plan]).result(LONG_POLL_S * 2)
        took = time.monotonic() - started
        still_polling = not polling.done()
        assert polling.result(LONG_POLL_S * 2) == []
    finally:
        io.close()

    assert committed == {(src, rec.partition): rec.offset + 1}
    assert still_polling, f"the commit waited for the poll ({took:.2f} s)"
    assert [o.value for o in read_to_end(kafka_bootstrap, [out])] == [b"handed on"]
