"""When a paced bench run counts as below capacity (bench/_phase.py): no queue builds up
while it publishes, and every episode committed."""

from __future__ import annotations

from bench._phase import below_capacity, queue_growth_s


def episodes(
    latency_of: list[float],
) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float]]:
    sent = {("t", f"e{i}"): i / 50 for i in range(len(latency_of))}
    done = {k: t + latency_of[i] for i, (k, t) in enumerate(sent.items())}
    return sent, done


def test_a_steady_latency_is_below_capacity_and_a_growing_one_is_not() -> None:
    steady = [0.4 + 0.1 * (i % 3) for i in range(1000)]
    growing = [0.4 + 0.002 * i for i in range(1000)]  # one more second every 500 episodes
    sent, done = episodes(steady)
    assert queue_growth_s(sent, done) == 0.0
    assert below_capacity({"episodes": 1000, "committed": 1000, "queue_growth_s": 0.0})
    sent, done = episodes(growing)
    growth = queue_growth_s(sent, done)
    assert growth is not None and 1.55 < growth < 1.65
    assert not below_capacity({"episodes": 1000, "committed": 1000, "queue_growth_s": growth})


def test_a_slow_start_is_not_a_queue_and_a_lost_episode_is_not_below_capacity() -> None:
    warming = [2.0 if i < 100 else 0.4 for i in range(1000)]
    sent, done = episodes(warming)
    growth = queue_growth_s(sent, done)
    assert growth is not None and growth < 0
    assert not below_capacity({"episodes": 1000, "committed": 999, "queue_growth_s": growth})
    sent, done = episodes([0.4] * 20)
    assert queue_growth_s(sent, done) is None  # too few to tell
    assert not below_capacity({"episodes": 20, "committed": 20, "queue_growth_s": None})


def test_a_paced_run_that_commits_behind_its_rate_is_not_below_capacity() -> None:
    # The queue's median-of-fifths grew under its limit, but 100/s offered, 96.5/s kept.
    behind = {"episodes": 2000, "committed": 2000, "queue_growth_s": 0.37,
              "episodes_per_s_steady": 96.5}  # fmt: skip
    assert below_capacity(behind)  # by the queue alone
    assert not below_capacity(behind, rate=100)
    kept = {**behind, "episodes_per_s_steady": 98.9}
    assert below_capacity(kept, rate=100)
    assert not below_capacity({**kept, "episodes_per_s_steady": None}, rate=100)
