"""One measured phase: publish episodes, wait for the writer, read what it cost.

Latency is publish -> committed: the wall clock just before ``Publisher.publish`` against
the writer's ``created_at`` of the episode's facts (same machine, same clock).
Throughput is taken over the steady part of the run (10th to 90th percentile of the
commit times), so worker warm-up and the last stragglers do not count; the whole-run
rate is reported too.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psutil

from bench._harness import Fleet, delta
from bench._probe import Probe
from bench._workload import committed_at, episode_states, progress
from streams.events import EpisodeCompleted
from streams.kafka.publisher import Publisher
from streams.settings import Settings


def pct(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


# A paced run is below capacity when no queue builds while it publishes: the episodes
# published last commit no later (median latency) than the first ones plus this...
QUEUE_GROWTH_LIMIT_S = 0.5
# ...and the pipeline commits at the rate offered: its steady rate is at least this share
# of it. Runs that kept up measured 98.2-101.4% of their rate; the queue growth alone let
# through runs that sustained 96.5% (its median-of-fifths reads a slow excess late).
SUSTAINED_SHARE = 0.975


def queue_growth_s(sent: dict[tuple[str, str], float], done: dict[tuple[str, str], float]
                   ) -> float | None:  # fmt: skip
    """Median latency of the last fifth of the episodes, in publish order, minus that of
    the first fifth; None when too few committed to tell."""
    order = sorted((t, done[k] - t) for k, t in sent.items() if k in done)
    fifth = len(order) // 5
    if fifth < 5:
        return None
    first = statistics.median(lat for _, lat in order[:fifth])
    last = statistics.median(lat for _, lat in order[-fifth:])
    return round(last - first, 3)


def below_capacity(run: dict[str, Any], rate: float | None = None) -> bool:
    """Every episode committed, no queue built up (``QUEUE_GROWTH_LIMIT_S``) and, for a run
    paced at ``rate``, the steady rate kept up with it (``SUSTAINED_SHARE``)."""
    growth = run.get("queue_growth_s")
    steady = run.get("episodes_per_s_steady")
    return (
        run["committed"] == run["episodes"]
        and growth is not None
        and growth <= QUEUE_GROWTH_LIMIT_S
        and (rate is None or (steady is not None and steady >= SUSTAINED_SHARE * rate))
    )


def _publish(settings: Settings, events: Sequence[EpisodeCompleted], rate: float | None
             ) -> dict[tuple[str, str], float]:  # fmt: skip
    """Publish (at ``rate`` per second, or as fast as possible); wall time per episode."""
    sent: dict[tuple[str, str], float] = {}
    publisher = Publisher(settings)
    publisher.connect()  # an application's publisher is connected before its events come
    start = time.monotonic()
    for i, event in enumerate(events):
        if rate:
            wait = start + i / rate - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        sent[(event.dataset, event.episode_id)] = time.time()
        publisher.publish(event)
    publisher.flush(60)
    return sent


@dataclass
class Phase:
    fleet: Fleet
    probe: Probe
    pool: Any  # asyncpg pool on the bench database (set before run)
    settings: Settings
    stall_s: float = 90.0

    async def run(self, events: Sequence[EpisodeCompleted], rate: float | None = None
                  ) -> dict[str, Any]:  # fmt: skip
        datasets = sorted({e.dataset for e in events})
        n = len(events)
        me = psutil.Process(os.getpid())
        before_w, before_p, before_me = self.fleet.snapshot(), self.probe.snapshot(), me.cpu_times()
        publishing = asyncio.create_task(asyncio.to_thread(_publish, self.settings, events, rate))
        await self._wait(datasets, n, publishing)
        sent = await publishing
        after_w, after_p, after_me = self.fleet.snapshot(), self.probe.snapshot(), me.cpu_times()
        done = await committed_at(self.pool, datasets)
        summary = summarise(
            n, sent, done, delta(after_w, before_w), Probe.diff(after_p, before_p),
            (after_me.user + after_me.system) - (before_me.user + before_me.system),
            before_p["load"], after_p["load"], await episode_states(self.pool, datasets),
        )  # fmt: skip
        input_bytes = sum(len(e.model_dump_json().encode()) for e in events)
        summary["input_event_bytes_per_episode"] = round(input_bytes / n, 1)
        return summary

    async def _wait(self, datasets: Sequence[str], n: int, publishing: asyncio.Task[Any]) -> None:
        last, last_change = (-1, -1), time.monotonic()
        while True:
            if publishing.done() and publishing.exception() is not None:
                raise RuntimeError("publishing failed") from publishing.exception()
            self.fleet.check_alive()
            now_ = await progress(self.pool, datasets)
            if now_[0] >= n and now_[1] >= n:
                return
            if now_ != last:
                last, last_change = now_, time.monotonic()
            elif time.monotonic() - last_change > self.stall_s:
                states = await episode_states(self.pool, datasets)
                raise RuntimeError(
                    f"no progress for {self.stall_s:.0f}s at {now_} of {n}: {states}"
                )
            await asyncio.sleep(0.25)


def summarise(
    n: int,
    sent: dict[tuple[str, str], float],
    done: dict[tuple[str, str], float],
    workers: dict[str, dict[str, float]],
    servers: dict[str, float],
    bench_cpu_s: float,
    load_before: Sequence[float],
    load_after: Sequence[float],
    states: dict[str, int],
) -> dict[str, Any]:
    latencies = [done[k] - sent[k] for k in sent if k in done]
    finished = sorted(done[k] for k in sent if k in done)
    first_publish = min(sent.values())
    steady: float | None = None
    if len(finished) >= 10:
        lo, hi = finished[len(finished) // 10], finished[(9 * len(finished)) // 10]
        if hi > lo:
            steady = (9 * len(finished) // 10 - len(finished) // 10) / (hi - lo)
    whole = len(finished) / (finished[-1] - first_publish) if finished else 0.0
    span = finished[-1] - first_publish if finished else 0.0
    per_stage = {
        stage: {
            "cpu_ms_per_episode": round(1000 * w["cpu_s"] / n, 2),
            "postgres_cpu_ms_per_episode": round(
                1000 * servers.get("pg_cpu_s_by_app", {}).get(f"factstream-{stage}", 0.0) / n, 2
            ),
            "handler_ms_mean": round(1000 * w["handler_s"] / w["records"], 2) if w["records"]
            else None,
            "records": int(w["records"]),
            "round_trips_per_episode": round(w.get("round_trips", 0.0) / n, 2),
            "commits": int(w.get("commits", 0.0)),
            "commits_per_s": round(w.get("commits", 0.0) / span, 1) if span else None,
            "bytes_per_episode": {
                _topic(k): round(v / n, 1) for k, v in w.items() if k.startswith("bytes:") and v
            },
        }
        for stage, w in workers.items()
    }  # fmt: skip
    by_topic: dict[str, float] = {}
    for stage in per_stage.values():
        for topic, size in stage["bytes_per_episode"].items():
            by_topic[topic] = round(by_topic.get(topic, 0.0) + size, 1)
    return {
        "episodes": n,
        "committed": len(finished),
        "episodes_per_s_steady": round(steady, 1) if steady else None,
        "episodes_per_s_whole_run": round(whole, 1),
        "run_s": round(finished[-1] - first_publish, 1) if finished else None,
        "latency_s": {
            "p50": round(pct(latencies, 50), 3), "p95": round(pct(latencies, 95), 3),
            "p99": round(pct(latencies, 99), 3), "max": round(max(latencies), 3),
            "mean": round(statistics.fmean(latencies), 3),
        } if latencies else None,
        "stages": per_stage,
        "round_trips_per_episode": round(
            sum(s["round_trips_per_episode"] for s in per_stage.values()), 2
        ),
        "stage_topic_bytes_per_episode": {
            "by_topic": by_topic,
            "total": round(sum(v for k, v in by_topic.items() if not k.startswith("dlq.")), 1),
        },
        "cpu_ms_per_episode": {
            "workers_total": round(sum(s["cpu_ms_per_episode"] for s in per_stage.values()), 2),
            "postgres_backends": round(1000 * servers["pg_cpu_s"] / n, 2),
            "kafka_broker_shared": round(1000 * servers["kafka_cpu_s"] / n, 2),
            "bench_publisher": round(1000 * bench_cpu_s / n, 2),
        },
        "queue_growth_s": queue_growth_s(sent, done),
        "load_avg_before": [round(x, 2) for x in load_before],
        "load_avg_after": [round(x, 2) for x in load_after],
        "episode_states": states,
    }  # fmt: skip


def _topic(counter: str) -> str:
    """``bytes:<prefix>.facts.extracted`` -> ``facts.extracted`` (the run's prefix dropped)."""
    topic = counter.removeprefix("bytes:")
    return topic.split(".", 1)[1] if "." in topic else topic
