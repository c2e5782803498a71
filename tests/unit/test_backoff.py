"""streams/backoff.py: the one backoff rule of model calls, the runtime, the sweep, admin."""

from __future__ import annotations

from streams.backoff import Backoff
from streams.settings import Settings
from streams.stages.extract import episode_retry_backoff


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


def test_an_extraction_that_failed_on_an_outage_waits_long_enough_to_ride_it_out() -> None:
    settings = Settings(llm_backoff_base_s=0.5, llm_backoff_max_s=20.0, transient_min_retry_s=60)
    outage = episode_retry_backoff(settings, outage=True)
    # The default cap of 3 retries waits twice: a minute in all, past a short outage.
    assert [outage.delay(n) for n in (1, 2, 3)] == [20.0, 40.0, 60.0]
    broken_reply = episode_retry_backoff(settings, outage=False)
    assert all(broken_reply.delay(n) <= 20.0 for n in range(1, 10))
    assert broken_reply.delay(1) <= 0.5
