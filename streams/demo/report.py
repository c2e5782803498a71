"""What `factstream demo` reports once every episode is terminal: the ledger, each tenant's
facts with history, what the pipeline dropped, and lag once the last commits landed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from streams.kafka import admin as ka
from streams.ops.lag import StageLag, collect_lag
from streams.pipeline import STAGES
from streams.settings import Settings
from streams.store import facts_query, traces
from streams.store.db import connect
from streams.store.facts_query import FactRow

Episode = tuple[str, str, str]  # dataset, project_id, episode_id


def terminal_state(row: Mapping[str, Any], cap: int) -> bool:
    """Both sides finished: done, skipped, or failed with no retry left for the sweep."""

    def finished(status: str, retries: int) -> bool:
        return status in ("done", "skipped") or (status == "failed" and retries >= cap)

    return finished(row["status"], row["retry_count"]) and finished(
        row["semantic_status"], row["semantic_retry_count"]
    )


@dataclass
class DemoResults:
    """What the run left behind, for `factstream demo` to print."""

    ledger: list[Mapping[str, Any]]
    histories: dict[tuple[str, str], list[FactRow]]
    drops: list[Mapping[str, Any]]
    lag: list[StageLag]

    @property
    def failed(self) -> list[Mapping[str, Any]]:
        return [r for r in self.ledger if "failed" in (r["status"], r["semantic_status"])]


async def gather_results(
    url: str,
    settings: Settings,
    episodes: set[Episode],
    group_of: Callable[[str, str], str],
) -> DemoResults:
    conn = await connect(url)
    try:
        ledger = await traces.ledger_rows(conn)
        tenants = sorted({(d, p) for d, p, _ in episodes})
        histories = {t: await facts_query.history(conn, *t) for t in tenants}
        drops = await traces.drop_rows(conn)
    finally:
        await conn.close()
    lag = await asyncio.to_thread(settled_lag, settings, group_of)
    return DemoResults(ledger, histories, drops, lag)


def settled_lag(
    settings: Settings, group_of: Callable[[str, str], str], wait_s: float = 5.0
) -> list[StageLag]:
    """Lag of this run's groups once the last commits landed: every partition with
    records has a committed offset and two reads in a row agree (or wait_s passed)."""
    admin = ka.admin_client(settings)
    deadline = time.monotonic() + wait_s

    def group(stage: str) -> str:
        return group_of(settings.topic_prefix, stage)

    def snapshot(report: list[StageLag]) -> list[tuple[str, int, int | None, int]]:
        return [
            (s.stage, p.partition, p.committed, p.log_end) for s in report for p in s.partitions
        ]

    previous = None
    while True:
        report = collect_lag(settings, admin, STAGES, group_of=group)
        uncommitted = any(
            p.committed is None and p.log_end > 0 for s in report for p in s.partitions
        )
        settled = not uncommitted and snapshot(report) == previous
        if settled or time.monotonic() > deadline:
            return report
        previous = snapshot(report)
        time.sleep(0.5)
