"""Real worker processes: kill -9 and restart, SIGTERM drain, a zombie past max.poll.interval.

Read read_committed, the output topic must hold every input exactly once, in key order.
Workers run with session.timeout 6 s and max.poll.interval 10 s (helpers.worker_env).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.runtime import (
    Feeder,
    WorkerProc,
    assert_exactly_once_in_key_order,
    read_to_end,
    wait_for_count,
    worker_env,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]
TOPICS = ("runtime.in", "runtime.out", "dlq.passthrough")


def test_kill_dash_9_mid_stream_and_restart(
    kafka_bootstrap: str, topics: Callable[..., str], tmp_path: Path
) -> None:
    prefix = topics(*TOPICS, partitions=4)
    env = worker_env(
        kafka_bootstrap, prefix, FACTSTREAM_TEST_DELAY_MS=5, FACTSTREAM_TEST_JITTER_MS=25
    )
    group = f"g-{prefix}"
    # Stable instance ids: static membership, and transactional.id survives the restart so
    # the new process fences (aborts) whatever transaction the killed one left open.
    procs = {
        n: WorkerProc(env, tmp_path / f"{n}.log", group=group, instance_id=n) for n in ("a", "b")
    }
    total = 900
    try:
        for p in procs.values():
            p.start()
        for p in procs.values():
            p.wait_log("assigned")
        feeder = Feeder(kafka_bootstrap, f"{prefix}runtime.in", total, rate=100)
        feeder.start()
        for victim in ("a", "b", "a"):
            time.sleep(2.0)
            procs[victim].kill()  # SIGKILL: no drain, no commit, maybe a transaction open
            procs[victim].start()
            procs[victim].wait_log("worker started")
        feeder.join()
        outs = wait_for_count(kafka_bootstrap, f"{prefix}runtime.out", total, 120)
        time.sleep(1.0)  # anything committed late would show up as a duplicate now
        outs = read_to_end(kafka_bootstrap, [f"{prefix}runtime.out"])
        assert_exactly_once_in_key_order(outs, total)
    finally:
        for p in procs.values():
            p.stop()


def test_sigterm_drains_in_flight_work_and_a_restart_continues(
    kafka_bootstrap: str, topics: Callable[..., str], tmp_path: Path
) -> None:
    prefix, env, group = _fleet(kafka_bootstrap, topics, delay_ms=250)
    total = 240  # ~32/s at concurrency 8: SIGTERM lands mid-stream
    feeder = Feeder(kafka_bootstrap, f"{prefix}runtime.in", total, rate=10_000)
    feeder.start()
    feeder.join()
    first = WorkerProc(env, tmp_path / "first.log", group=group, concurrency=8).start()
    second = WorkerProc(env, tmp_path / "second.log", group=group, concurrency=8)
    try:
        first.wait_log("assigned")
        time.sleep(2.5)
        first.signal(signal.SIGTERM)
        assert first.wait(30) == 0
        log = first.log()
        assert '"draining' in log and "worker stopped cleanly" in log
        assert "abandoning" not in log  # every in-flight record finished and was committed
        done_by_first = len(read_to_end(kafka_bootstrap, [f"{prefix}runtime.out"]))
        assert 20 <= done_by_first < total

        second.start()
        outs = wait_for_count(kafka_bootstrap, f"{prefix}runtime.out", total, 90)
        assert_exactly_once_in_key_order(outs, total)
        pids = {o.json()["pid"] for o in outs}
        assert len(pids) == 2
    finally:
        first.stop()
        assert second.stop() in (0, None)


def test_zombie_past_max_poll_interval_cannot_commit_stale_work(
    kafka_bootstrap: str, topics: Callable[..., str], tmp_path: Path
) -> None:
    prefix, env, group = _fleet(kafka_bootstrap, topics, delay_ms=200)
    zombie = WorkerProc(env, tmp_path / "zombie.log", group=group, concurrency=8)
    other = WorkerProc(env, tmp_path / "other.log", group=group, concurrency=8)
    total = 500
    try:
        zombie.start().wait_log("assigned")
        other.start().wait_log("assigned")
        feeder = Feeder(kafka_bootstrap, f"{prefix}runtime.in", total, rate=40)
        feeder.start()
        time.sleep(3.0)
        zombie.signal(signal.SIGSTOP)  # mid-work: records in flight, outputs held
        t0 = time.monotonic()
        other.wait_log("assigned", timeout=5)  # drop the first mark
        deadline = t0 + 20
        while other.log().count('"assigned') < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert other.log().count('"assigned') >= 2, "no takeover after the session timeout"
        time.sleep(max(0.0, 12.5 - (time.monotonic() - t0)))  # past max.poll.interval.ms
        zombie.signal(signal.SIGCONT)
        feeder.join()
        outs = wait_for_count(kafka_bootstrap, f"{prefix}runtime.out", total, 120)
        time.sleep(2.0)  # give the zombie every chance to commit something stale
        outs = read_to_end(kafka_bootstrap, [f"{prefix}runtime.out"])
        assert_exactly_once_in_key_order(outs, total)
        zlog = zombie.log()
        assert '"lost' in zlog or "commit failed" in zlog or "aborted" in zlog, zlog[-3000:]
    finally:
        zombie.stop()
        other.stop()


def _fleet(
    bootstrap: str, topics: Callable[..., str], delay_ms: int
) -> tuple[str, dict[str, str], str]:
    """Fresh topics, the workers' environment (every record delayed) and their group."""
    prefix = topics(*TOPICS, partitions=4)
    return prefix, worker_env(bootstrap, prefix, FACTSTREAM_TEST_DELAY_MS=delay_ms), f"g-{prefix}"
