"""After every broker was down, the next transaction runs on a new producer
(KafkaIO._fresh_producer_after_outage: librdkafka#5456/#5511 left old ones hung in
send_offsets_to_transaction after a broker restart). Real broker; the outage is the
client's own error callback reporting it, as librdkafka does."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from confluent_kafka import KafkaError

from streams.runtime.kafka_io import KafkaIO
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import OutRecord, PartitionPlan
from tests.support.runtime import RecordingHooks, produce, raw_worker_config, read_to_end

pytestmark = pytest.mark.timeout(90)


def test_a_transaction_after_an_outage_commits_on_a_new_producer(
    kafka_bootstrap: str, topics: Callable[..., str]
) -> None:
    prefix = topics("in", "out", partitions=1)
    src, out = f"{prefix}in", f"{prefix}out"
    produce(kafka_bootstrap, src, [(b"k", b"{}"), (b"k", b"{}")])
    cfg = raw_worker_config(kafka_bootstrap, prefix, "outage")
    hooks = RecordingHooks()
    io = KafkaIO(cfg, transactional=True, hooks=hooks, metrics=WorkerMetrics("outage"))
    try:
        io.start([src])
        deadline = time.monotonic() + 30
        while (src, 0) not in hooks.epochs:
            assert time.monotonic() < deadline, "never assigned"
            io.poll(False, 10, 0.1)
        epoch = hooks.epochs[(src, 0)]

        def plan(offset: int, value: bytes) -> PartitionPlan:
            return PartitionPlan(src, 0, epoch, ((offset, (OutRecord(out, b"k", value),)),))

        first = io.producer
        # A lost connection while the cluster answers (an idle disconnect): same producer.
        io._on_error(KafkaError(KafkaError._TRANSPORT, "Disconnected"))
        assert io.commit([plan(0, b"before")]) == {(src, 0): 1}
        assert io.producer is first

        io._on_error(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
        assert io.commit([plan(1, b"after")]) == {(src, 0): 2}

        assert io.producer is not first
        assert [o.value for o in read_to_end(kafka_bootstrap, [out])] == [b"before", b"after"]
        replaced = io.producer
        assert io.commit([plan(2, b"later")]) == {(src, 0): 3} and io.producer is replaced
    finally:
        io.close()
