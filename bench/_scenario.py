"""What each scenario of the pipeline bench (bench/pipeline_bench.py) runs with.

:class:`Plan` holds a run's counts, :data:`FULL` or :data:`QUICK` (``--quick``);
:class:`Ctx` gives a scenario a fresh migrated database (or the one ``--scale-db`` names)
and six started workers on topics of their own, and drops, stops and deletes them after.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._harness import (
    Fleet,
    database_name,
    delete_topics,
    drop_database,
    fresh_database,
    make_settings,
)
from bench._phase import Phase
from bench._probe import Probe
from streams.store.db import create_pool


@dataclass(frozen=True)
class Plan:
    a_tenants: int
    a_per_tenant: int
    # Paced runs, in this order, up to the first one above capacity (a queue builds, or
    # the commits fall behind the rate: bench/_phase.py below_capacity); the p95 target
    # reads the highest one below it.
    paced_rates: tuple[float, ...]
    paced_s: float
    # A second paced run below capacity: the latency floor when no queue builds up.
    low_rate: float
    b_tenants: int
    baseline_episodes: int
    c_sizes: tuple[int, ...]
    c_rounds: int
    c_block: int
    # Episodes run before (a) and not measured: a broker or a Postgres started for the
    # run spends its first minute compiling (the JVM's JIT), which is not a cost per episode.
    a_warmup: int = 1500


FULL = Plan(
    a_tenants=1000,
    a_per_tenant=2,
    # Past 100/s in steps of 20, up to the throughput target: the ladder must reach the
    # capacity for its top rung below it to say something.
    paced_rates=(30, 40, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200),
    paced_s=20,
    low_rate=10,
    b_tenants=1000,
    baseline_episodes=24,
    c_sizes=(1_000, 10_000, 100_000),
    c_rounds=9,
    c_block=4,
)
QUICK = Plan(a_tenants=80, a_per_tenant=2, paced_rates=(50,), paced_s=3, low_rate=10,
             b_tenants=100, baseline_episodes=6, c_sizes=(500, 1_500, 5_000), c_rounds=2,
             c_block=2, a_warmup=20)  # fmt: skip


@dataclass
class Ctx:
    args: argparse.Namespace
    plan: Plan
    run: str
    log_dir: Path

    @contextlib.asynccontextmanager
    async def database(self, dim: int, reuse: str | None = None) -> AsyncIterator[tuple[str, Any]]:
        """A fresh migrated database (dropped afterwards unless --keep) and a small pool."""
        url = reuse or await fresh_database(self.args.server_url, dim)
        try:
            pool = await create_pool(url, max_size=4)
            try:
                yield url, pool
            finally:
                await pool.close()
        finally:
            if not (reuse or self.args.keep):
                await drop_database(self.args.server_url, url)

    @contextlib.asynccontextmanager
    async def fleet(self, url: str, dim: int, name: str, concurrency: int,
                    env: dict[str, str] | None = None, profile: bool = False,
                    ) -> AsyncIterator[tuple[Fleet, Phase]]:  # fmt: skip
        """Own topics and six started workers; stopped and deleted afterwards."""
        settings = make_settings(self.args.bootstrap, url, dim, self.args.partitions)
        profile_dir = Path(self.args.profile) / name if profile and self.args.profile else None
        fleet = Fleet(settings, self.log_dir / name, concurrency, env or {}, profile_dir)
        try:
            fleet.start()
            yield (
                fleet,
                Phase(fleet, Probe(database_name(url), self.args.bootstrap, url), None, settings),
            )
        finally:
            fleet.stop()
            delete_topics(settings)
