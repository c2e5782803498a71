"""Scenario (c): per-episode database time at 1k, 10k and 100k live facts per tenant.

One tenant per size, loaded in bulk, then episodes run through the real pipeline (six
worker processes, instant models) one at a time: an episode is published only after the
previous one is written and summarised, so no handler waits at the per-tenant gate and
each handler's time is its own database round trips plus a little Python. Sizes are
interleaved in small blocks (1k, 10k, 100k, 1k, ...) so a change in machine load hits
every size alike; each block is measured by the delta of the workers' handler-time
histograms and of the CPU of the Postgres backends serving the bench database. A size's
figure for the target is its median block, beside the mean over all its episodes. Then the
rows the episodes left outside the big tenants' vector indexes are grafted as the sweep
grafts them, and that time is reported beside the episodes' own.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from bench._harness import Fleet, delta
from bench._probe import Probe
from bench._workload import Tenant, episode
from streams.kafka.publisher import Publisher
from streams.settings import Settings
from streams.store import graph_tail


async def _one(pool: Any, publisher: Publisher, tenant: Tenant, k: int, fleet: Fleet) -> float:
    """Publish episode k of the tenant and wait until it is written and summarised."""
    event = episode(tenant, k)
    sent = time.time()
    publisher.publish(event)
    await asyncio.to_thread(publisher.flush, 30)
    deadline = time.monotonic() + 60
    while True:
        written = await pool.fetchval(
            "SELECT count(*) FROM episodes WHERE dataset = $1 AND episode_id = $2"
            " AND semantic_status = 'done' AND status = 'done'",
            tenant.dataset, event.episode_id,
        )  # fmt: skip
        if written:
            break
        fleet.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{tenant.dataset} {event.episode_id} not done after 60s")
        await asyncio.sleep(0.01)
    # facts_by_episode: this read must not cost the database more at 100k facts.
    committed = await pool.fetchval(
        "SELECT extract(epoch FROM min(created_at))::float8 FROM facts"
        " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
        tenant.dataset, tenant.project_id, event.episode_id,
    )  # fmt: skip
    return float(committed) - sent


async def run_scale(
    fleet: Fleet, probe: Probe, pool: Any, settings: Settings,
    sized: dict[int, Tenant], rounds: int, block: int, first_k: int = 1,
) -> dict[str, Any]:  # fmt: skip
    publisher = Publisher(settings)
    publisher.connect()
    acc: dict[int, dict[str, Any]] = {
        n: {
            "stages": {},
            "pg_cpu_s": 0.0,
            "latency": [],
            "episodes": 0,
            "trips": 0.0,
            "bytes": 0.0,
            "blocks": [],
        }
        for n in sized
    }
    next_k = dict.fromkeys(sized, first_k)
    # Warm-up: one episode per tenant, not measured (first queries, plan caches, pools).
    for n, tenant in sized.items():
        await _one(pool, publisher, tenant, next_k[n], fleet)
        next_k[n] += 1
    for _ in range(rounds):
        for n, tenant in sized.items():
            before_w, before_p = fleet.snapshot(), probe.snapshot()
            for _ in range(block):
                acc[n]["latency"].append(await _one(pool, publisher, tenant, next_k[n], fleet))
                next_k[n] += 1
            used = delta(fleet.snapshot(), before_w)
            acc[n]["pg_cpu_s"] += Probe.diff(probe.snapshot(), before_p)["pg_cpu_s"]
            acc[n]["episodes"] += block
            acc[n]["blocks"].append(1000 * sum(d["handler_s"] for d in used.values()) / block)
            for stage, d in used.items():
                s = acc[n]["stages"].setdefault(stage, {"handler_s": 0.0, "records": 0.0})
                s["handler_s"] += d["handler_s"]
                s["records"] += d["records"]
                acc[n]["trips"] += d.get("round_trips", 0.0)
                acc[n]["bytes"] += sum(
                    v for k, v in d.items() if k.startswith("bytes:") and ".dlq." not in k
                )
    publisher.flush(30)
    grafts = {n: await _graft(pool, t) for n, t in sized.items()}
    out: dict[str, Any] = {}
    for n, a in acc.items():
        handler = {
            stage: round(1000 * s["handler_s"] / s["records"], 2) if s["records"] else None
            for stage, s in a["stages"].items()
        }
        out[str(n)] = {
            "live_facts": await _live(pool, sized[n]),
            "episodes": a["episodes"],
            "handler_ms_per_episode": handler,
            "db_ms_per_episode": round(sum(v for v in handler.values() if v), 2),
            # The median block: a disk stall (a WAL flush waiting on a slow disk) lands in
            # one block of one size and moves its mean by tens of ms; the median drops it.
            "db_ms_per_episode_median_block": round(statistics.median(a["blocks"]), 2),
            "db_ms_per_episode_blocks": [round(b, 1) for b in a["blocks"]],
            "postgres_cpu_ms_per_episode": round(1000 * a["pg_cpu_s"] / a["episodes"], 2),
            "round_trips_per_episode": round(a["trips"] / a["episodes"], 2),
            "stage_topic_bytes_per_episode": round(a["bytes"] / a["episodes"], 1),
            "latency_s_median": round(statistics.median(a["latency"]), 3),
            # The sweep's later work for these episodes, off their path (graph_tail.py).
            "grafted_rows": grafts[n][0],
            "graft_ms_per_episode": round(grafts[n][1] / a["episodes"], 2),
        }
    return out


async def _graft(pool: Any, tenant: Tenant) -> tuple[int, float]:
    """The rows the tenant's writes left outside its vector indexes, grafted as the sweep
    grafts them: how many, and the milliseconds it took."""
    async with pool.acquire() as conn:
        started = time.perf_counter()
        done = await graph_tail.graft(conn, limit=10**9, tenant=(tenant.dataset, tenant.project_id))
        return done.total, 1000 * (time.perf_counter() - started)


async def _live(pool: Any, tenant: Tenant) -> int:
    return int(await pool.fetchval(
        "SELECT count(*) FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND invalid_at IS NULL", tenant.dataset, tenant.project_id,
    ))  # fmt: skip
