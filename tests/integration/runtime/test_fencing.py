"""KIP-447: a member the group has moved on from cannot commit its stale work.

Drives KafkaIO directly so the order is deterministic: A is assigned, computes a commit
plan, then stops polling (as if SIGSTOPped). B joins; once A is past max.poll.interval.ms,
B owns every partition. A's commit — outputs plus offsets in one transaction — must fail
and leave nothing visible to read_committed readers; B's commit of the same offset works.
The same holds for a Postgres sink's outputs (its dead letters, the episodes it
republishes): a sink whose group moved on while it was cut off (a broker outage longer
than the session) must not leave them behind for the member that re-reads its records.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, TopicPartition

from streams.runtime.kafka_io import CommitFailed, KafkaIO
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import OutRecord, PartitionPlan
from tests.support.runtime import RecordingHooks, produce, raw_worker_config, read_to_end

pytestmark = pytest.mark.timeout(90)


def poll_until(io: KafkaIO, cond: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, what
        io.poll(False, 10, 0.1)


@pytest.mark.parametrize("transactional", [True, False], ids=["kafka-to-kafka", "sink"])
def test_stale_member_commit_is_fenced(
    kafka_bootstrap: str, topics: Callable[..., str], transactional: bool
) -> None:
    prefix = topics("in", "out", partitions=2)
    src, out = f"{prefix}in", f"{prefix}out"
    produce(kafka_bootstrap, src, [(b"k", b"{}")])
    base = raw_worker_config(
        kafka_bootstrap, prefix, "fence", session_timeout_ms=6000, max_poll_interval_ms=6000
    )
    ha, hb = RecordingHooks(), RecordingHooks()
    a = KafkaIO(base, transactional=transactional, hooks=ha, metrics=WorkerMetrics("fence"))
    b = KafkaIO(
        base.with_(member_name="b"),
        transactional=transactional,
        hooks=hb,
        metrics=WorkerMetrics("fence"),
    )
    try:
        a.start([src])
        poll_until(a, lambda: len(ha.epochs) == 2, 30, "A assigned both partitions")
        stale = [
            PartitionPlan(src, p, ha.epochs[(src, p)], ((0, (OutRecord(out, b"k", b"A"),)),))
            for p in (0, 1)
        ]
        # A stops polling here. B joins and waits until the group gives it everything.
        b.start([src])
        poll_until(b, lambda: len(hb.epochs) == 2, 45, "B took over both partitions")

        with pytest.raises(CommitFailed) as err:
            a.commit(stale)
        # the group coordinator refused A's TxnOffsetCommit (stale member / generation)
        assert any(
            code in str(err.value)
            for code in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION", "FENCED_INSTANCE_ID")
        ), err.value

        fresh = [
            PartitionPlan(src, p, hb.epochs[(src, p)], ((0, (OutRecord(out, b"k", b"B"),)),))
            for p in (0, 1)
        ]
        assert b.commit(fresh) == {(src, 0): 1, (src, 1): 1}
    finally:
        b.close()
        a.close()
    assert [o.value for o in read_to_end(kafka_bootstrap, [out])] == [b"B", b"B"]
    check = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": f"g-{prefix}"})
    try:
        got = check.committed([TopicPartition(src, 0), TopicPartition(src, 1)], timeout=10)
        assert [tp.offset for tp in got] == [1, 1]
    finally:
        check.close()
