"""What `factstream demo` prints once every episode is terminal: the ledger, each tenant's
facts with history (the `facts --history` table), what the pipeline dropped, and lag."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from rich.console import Console
from rich.table import Table

from streams.cli.commands import lag_table
from streams.cli.facts import render_table
from streams.kafka import admin as ka
from streams.ops.lag import StageLag, collect_lag
from streams.pipeline import STAGES
from streams.settings import Settings
from streams.store import facts_query
from streams.store.db import connect

Episode = tuple[str, str, str]  # dataset, project_id, episode_id


def terminal_state(row: Mapping[str, Any], cap: int) -> bool:
    """Both sides finished: done, skipped, or failed with no retry left for the sweep."""

    def finished(status: str, retries: int) -> bool:
        return status in ("done", "skipped") or (status == "failed" and retries >= cap)

    return finished(row["status"], row["retry_count"]) and finished(
        row["semantic_status"], row["semantic_retry_count"]
    )


async def print_results(
    url: str,
    settings: Settings,
    episodes: set[Episode],
    console: Console,
    group_of: Callable[[str, str], str],
) -> bool:
    """Print everything; False when an episode ended failed."""
    conn = await connect(url)
    try:
        ledger = await conn.fetch(
            "SELECT dataset, project_id, episode_id, status, semantic_status, last_error,"
            " semantic_last_error FROM episodes ORDER BY dataset, project_id, episode_id"
        )
        tenants = sorted({(d, p) for d, p, _ in episodes})
        histories = {t: await facts_query.history(conn, *t) for t in tenants}
        drops = await conn.fetch(
            "SELECT dataset, project_id, episode_id, stage, reason, subject, predicate, object"
            " FROM fact_drops ORDER BY dataset, project_id, episode_id, id"
        )
    finally:
        await conn.close()
    now = datetime.now(UTC)
    console.print(ledger_table(ledger))
    for (dataset, project), rows in histories.items():
        live = [r for r in rows if r.invalid_at is None
                and (r.valid_until is None or r.valid_until > now)]
        title = f"facts of {dataset}:{project} (history: {len(rows)} rows, {len(live)} live)"
        console.print(render_table(rows, title, temporal=True))
        console.print("  live now: " + "; ".join(" ".join(r.triple) for r in live),
                      highlight=False)
    console.print(drops_table(drops))
    report = await asyncio.to_thread(settled_lag, settings, group_of)
    console.print(lag_table(report))
    console.print(
        "  (a lag of 1 on a stage topic is the commit marker of the producing stage's last"
        " Kafka transaction, not a record)", style="dim", highlight=False,
    )
    failed = [r for r in ledger if "failed" in (r["status"], r["semantic_status"])]
    for r in failed:
        console.print(f"[red]episode {r['episode_id']} ended failed:[/red] "
                      f"{r['semantic_last_error'] or r['last_error']}", highlight=False)
    return not failed


def ledger_table(rows: list[Any]) -> Table:
    table = Table(title="episodes (the ledger)")
    for column in ("tenant", "episode", "summary", "extraction", "note"):
        table.add_column(column, overflow="fold")
    for r in rows:
        note = r["semantic_last_error"] or r["last_error"] or ""
        table.add_row(f"{r['dataset']}:{r['project_id']}", r["episode_id"], r["status"],
                      r["semantic_status"], note)
    return table


def drops_table(rows: list[Any]) -> Table:
    table = Table(title=f"dropped on the way ({len(rows)}; `factstream trace EPISODE` for more)")
    for column in ("tenant", "episode", "stage", "reason", "claim"):
        table.add_column(column, overflow="fold")
    for r in rows:
        claim = " ".join(x for x in (r["subject"], r["predicate"], r["object"]) if x)
        table.add_row(f"{r['dataset']}:{r['project_id']}", r["episode_id"], r["stage"],
                      r["reason"], claim)
    return table


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
        return [(s.stage, p.partition, p.committed, p.log_end)
                for s in report for p in s.partitions]

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
