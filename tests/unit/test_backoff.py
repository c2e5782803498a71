"""streams/backoff.py: the one backoff rule of model calls, the runtime, the sweep, admin."""

from __future__ import annotations

from streams.backoff import Backoff


def test_full_jitter_bounds() -> None:
    jitter = Backoff(0.5, 30)
    assert jitter.delay(1, lambda: 0.999) < 0.5
    assert jitter.delay(10, lambda: 1.0) == 30
    assert jitter.delay(3, lambda: 0.0) == 0


def test_without_jitter_the_wait_doubles_up_to_the_cap() -> None:
    steady = Backoff(1.0, 30.0, jitter=False)
    assert [steady.delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    assert steady.delay(10_000) == 30  # a long outage does not overflow the exponent


def test_a_server_delay_wins_under_the_cap() -> None:
    backoff = Backoff(0.5, 3.0)
    assert backoff.delay(1, lambda: 0.0, server_delay_s=2.5) == 2.5
    assert backoff.delay(1, lambda: 0.0, server_delay_s=60.0) == 3.0
    assert backoff.delay(1, lambda: 0.0, server_delay_s=-1.0) == 0.0
