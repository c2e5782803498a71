"""The watchdog for hung Kafka transactional calls (librdkafka#5456).

A fake blocking call (a thread parked on an Event, as the Kafka thread parks in C code)
and a fake clock; one test runs the real exit path in a child process.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from typing import Any

import pytest

from streams.runtime.config import WorkerConfig
from streams.runtime.kafka_io import KafkaIO
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.records import PartitionPlan
from streams.runtime.watchdog import EXIT_HUNG, Watchdog
from streams.settings import Settings


class FakeClock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


class Expiries:
    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []
        self.fired = threading.Event()

    def __call__(self, what: str, elapsed: float) -> None:
        self.calls.append((what, elapsed))
        self.fired.set()


def blocking_call(wd: Watchdog, what: str, release: threading.Event) -> threading.Thread:
    def run() -> None:
        with wd.watch(what):
            release.wait(30)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_call_stuck_past_the_deadline_fires_once() -> None:
    clock, expiries, release = FakeClock(), Expiries(), threading.Event()
    wd = Watchdog(120.0, expiries, clock=clock, tick_s=0.01)
    t = blocking_call(wd, "send_offsets_to_transaction", release)
    try:
        time.sleep(0.1)
        clock.now += 119.0  # slow, not hung
        time.sleep(0.2)
        assert expiries.calls == []
        clock.now += 2.0
        assert expiries.fired.wait(5)
        time.sleep(0.2)
        clock.now += 500.0
        time.sleep(0.2)
        assert expiries.calls == [("send_offsets_to_transaction", 121.0)]  # once
    finally:
        release.set()
        t.join(5)
        wd.close()


def test_a_slow_call_is_logged_once_while_it_runs(caplog: pytest.LogCaptureFixture) -> None:
    clock, expiries, release = FakeClock(), Expiries(), threading.Event()
    wd = Watchdog(120.0, expiries, clock=clock, tick_s=0.01, slow_s=5.0)
    t = blocking_call(wd, "commit_transaction", release)
    try:
        time.sleep(0.1)
        clock.now += 4.0
        time.sleep(0.1)
        assert not [r for r in caplog.records if "still running" in r.getMessage()]
        clock.now += 2.0
        time.sleep(0.1)
        clock.now += 50.0
        time.sleep(0.1)
        slow = [r.getMessage() for r in caplog.records if "still running" in r.getMessage()]
        assert slow == ["Kafka call commit_transaction still running after 6s"]
        assert expiries.calls == []  # slow is not hung
    finally:
        release.set()
        t.join(5)
        wd.close()


def test_the_deadline_is_per_call_and_slow_calls_that_return_never_fire() -> None:
    clock, expiries = FakeClock(), Expiries()
    wd = Watchdog(120.0, expiries, clock=clock, tick_s=0.01)
    try:
        for name in ["begin_transaction", "send_offsets_to_transaction", "commit_transaction"] * 5:
            with wd.watch(name):
                clock.now += 90.0  # each slow (3x its own 30 s timeout), 1350 s in all
                time.sleep(0.02)
            clock.now += 1000.0  # idle between commits: nothing is watched
            time.sleep(0.02)
        assert not wd.check()
        assert expiries.calls == [] and wd.longest_s == 90.0
    finally:
        wd.close()


def test_a_real_blocked_call_is_caught_with_the_real_clock() -> None:
    expiries, release = Expiries(), threading.Event()
    wd = Watchdog(0.3, expiries)
    started = time.monotonic()
    t = blocking_call(wd, "commit_transaction", release)
    try:
        assert expiries.fired.wait(5)
        assert 0.3 <= time.monotonic() - started < 3
        ((what, elapsed),) = expiries.calls
        assert what == "commit_transaction" and elapsed >= 0.3
    finally:
        release.set()
        t.join(5)
        wd.close()


def test_zero_turns_it_off() -> None:
    expiries = Expiries()
    wd = Watchdog(0.0, expiries, tick_s=0.01)
    with wd.watch("commit_transaction"):
        time.sleep(0.05)
    assert not wd.check() and expiries.calls == [] and wd._thread is None


def test_settings_reach_the_worker_config() -> None:
    assert WorkerConfig(stage="s", group="g", dlq_topic="d").kafka_txn_watchdog_s == 60.0
    cfg = WorkerConfig.from_settings(Settings(kafka_txn_watchdog_s=7.5), "extract")
    assert cfg.kafka_txn_watchdog_s == 7.5


class HangingProducer:
    """Stands in for confluent_kafka.Producer: send_offsets_to_transaction never returns
    until released, as in librdkafka#5456."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls: list[str] = []

    def poll(self, _timeout: float) -> int:
        return 0  # serving callbacks: not a transactional call

    def begin_transaction(self) -> None:
        self.calls.append("begin_transaction")

    def send_offsets_to_transaction(self, *_args: Any) -> None:
        self.calls.append("send_offsets_to_transaction")
        self.release.wait(30)

    def commit_transaction(self, *_args: Any) -> None:
        self.calls.append("commit_transaction")


class NoHooks:
    def assigned(self, parts: Any) -> None: ...
    def revoked(self, tps: Any) -> list[PartitionPlan]:
        return []

    def lost(self, tps: Any) -> None: ...


def test_kafka_io_watches_its_transactional_calls() -> None:
    hung: list[tuple[str, float]] = []
    producer = HangingProducer()

    def on_hung(what: str, elapsed: float) -> None:
        hung.append((what, elapsed))
        producer.release.set()  # the real handler exits the process instead

    # No broker needed: nothing here talks to the network except the fake's calls.
    cfg = WorkerConfig(
        stage="s",
        group="g",
        dlq_topic="d",
        kafka_txn_watchdog_s=0.3,
        kafka={"bootstrap.servers": "127.0.0.1:1"},
        statistics_interval_ms=0,
    )
    io = KafkaIO(
        cfg, transactional=True, hooks=NoHooks(), metrics=WorkerMetrics("s"), on_hung=on_hung
    )
    real_producer = io.producer
    io.producer = producer  # type: ignore[assignment]
    try:
        io._live[("t", 0)] = 1  # as if assigned
        io._transactions_ready = True  # as if started (init_transactions returned)
        started = time.monotonic()
        assert io.commit([PartitionPlan("t", 0, 1, ((4, ()),))]) == {("t", 0): 5}
        assert time.monotonic() - started < 5
        assert [w for w, _ in hung] == ["send_offsets_to_transaction"]
        assert producer.calls == [
            "begin_transaction",
            "send_offsets_to_transaction",
            "commit_transaction",
        ]
    finally:
        io.watchdog.close()
        io.consumer.close()
        del real_producer


def test_the_worker_handler_logs_and_exits_the_process() -> None:
    """The real on_expire, in a child process whose main thread is stuck in a call."""
    code = textwrap.dedent("""
        import logging, time
        from streams.runtime.watchdog import Watchdog, exit_hung
        logging.basicConfig(level=logging.INFO)
        wd = Watchdog(0.3, exit_hung)
        with wd.watch("commit_transaction"):
            time.sleep(60)
        print("returned")
    """)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.returncode == EXIT_HUNG
    assert time.monotonic() - started < 20
    assert "commit_transaction has not returned" in proc.stderr
    assert "returned" not in proc.stdout
