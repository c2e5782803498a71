"""The backstop sweep (seed: "Failure handling"): nothing is silently lost.

Every `sweep_interval_s` one active sweeper (a session-level advisory lock; others wait
as standbys) finds episodes that need another go and republishes them to the input
topic, keyed by tenant, so both the summarize and extract groups see them again:

- pending for longer than the claim timeout (published but never picked up),
- failed, extraction or summary, with retries left (retry count under `max_retries`),
- orphaned: claimed `processing` longer than the claim timeout (the worker died).
  Reclaiming counts as a retry, so an episode that keeps killing workers ends `failed`.
- parked: a tenant's oldest `queued` episode when nothing of that tenant is in flight
  and it has waited longer than one sweep interval. The writer normally wakes it when
  the previous episode is done (streams/store/episodes.py); this heals a lost wake-up
  (an extraction dead-lettered mid-chain, a wake-up that was never produced).

An episode past the cap is marked `failed` with its last error, and stays visible.
Each pass also builds one missing per-tenant vector index (streams/store/tenant_indexes.py)
and purges the embeddings dedup staged that no writer consumed within a day
(streams/store/staged_vectors.py: an episode dead-lettered between dedup and the writer).
The loop outlives a lost database connection: it reconnects and takes the lock again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streams.backoff import Backoff
from streams.errors import is_transient
from streams.events import EpisodeCompleted
from streams.settings import Settings
from streams.store import staged_vectors
from streams.store.episodes import episode_from_row
from streams.store.sweep import take_due_episodes, try_sweeper_lock
from streams.store.tenant_indexes import build_missing

log = logging.getLogger(__name__)

Publish = Callable[[Sequence[EpisodeCompleted]], None]


@dataclass
class SweepReport:
    republished: list[tuple[str, str, str, str]] = field(
        default_factory=list
    )  # tenant ids, ep, why
    ended_failed: list[tuple[str, str, str]] = field(default_factory=list)
    indexes_built: list[tuple[str, str]] = field(default_factory=list)  # (tenant, relation)
    staged_vectors_purged: int = 0  # staged by dedup, consumed by no writer within a day


async def sweep_once(conn: Any, settings: Settings, publish: Publish) -> SweepReport:
    """One pass. `conn` is an asyncpg connection; `publish` sends events to Kafka."""
    report = SweepReport()
    cap = settings.max_retries
    due = await take_due_episodes(
        conn, claim_timeout_s=settings.claim_timeout_s, max_retries=cap,
        sweep_interval_s=settings.sweep_interval_s,
    )  # fmt: skip
    report.ended_failed += [(r["dataset"], r["project_id"], r["episode_id"]) for r in due.ended]
    orphans, retry, parked = due.orphans, due.retry, due.parked
    events = []
    lost_wake_up = "queued with nothing of its tenant in flight (a lost wake-up)"
    for row, why in (
        [(r, "orphaned claim") for r in orphans]
        + [(r, _why(r, cap)) for r in retry]
        + [(r, lost_wake_up) for r in parked]
    ):
        events.append(episode_from_row(row))
        report.republished.append((row["dataset"], row["project_id"], row["episode_id"], why))
    if events:
        publish(events)
    report.indexes_built = await _build_tenant_indexes(conn, settings)
    report.staged_vectors_purged = await staged_vectors.purge_stale(conn)
    return report


async def _build_tenant_indexes(conn: Any, settings: Settings) -> list[tuple[str, str]]:
    """One missing per-tenant vector index per pass (streams/store/tenant_indexes.py). A
    failed build is logged and tried again next pass; a lost connection is the loop's."""
    try:
        built = await build_missing(conn, settings.vector_index_min_rows)
    except Exception as exc:
        if is_transient(exc):
            raise
        log.error("sweep: building a tenant vector index failed: %r", exc)
        return []
    return [(f"{i.dataset}:{i.project_id}", i.relation) for i in built]


def _why(row: Any, cap: int) -> str:
    if row["semantic_status"] == "failed" and row["semantic_retry_count"] < cap:
        return f"extraction failed ({row['semantic_retry_count']}/{cap} retries used)"
    if row["status"] == "failed":
        return f"summary failed ({row['retry_count']}/{cap} retries used)"
    return "pending past the claim timeout"


Connect = Callable[[str], Awaitable[Any]]


async def run_sweeper(
    database_url: str,
    settings: Settings,
    publish: Publish,
    *,
    once: bool = False,
    connect: Connect | None = None,
    on_pass: Callable[[SweepReport], None] | None = None,
) -> SweepReport | None:
    """Loop forever (or one pass with once=True) as the single active sweeper.

    The loop survives a lost connection (a Postgres restart or failover, a terminated
    backend): it logs, backs off, reconnects and takes the advisory lock again, or stands
    by if another sweeper took over meanwhile. The lock is a session lock, so it was lost
    with the session: two sweepers are never active at once. ``once`` fails fast.
    ``on_pass`` sees every pass's report (tests, metrics).
    """
    if connect is None:
        from streams.store.db import connect as db_connect

        connect = db_connect
    open_conn: Connect = connect
    if once:
        conn = await open_conn(database_url)
        try:
            if not await try_sweeper_lock(conn):
                log.info("another sweeper is active; standing by")
                return None
            return await sweep_once(conn, settings, publish)
        finally:
            await _close(conn)
    interval = settings.sweep_interval_s
    failures = 0
    while True:
        conn = None
        try:
            conn = await open_conn(database_url)
            # Held for the life of this session: one active sweeper, the others stand by
            # and take over when its session ends (the process died, the connection broke).
            while not await try_sweeper_lock(conn):
                failures = 0
                await asyncio.sleep(interval)
            log.info("active sweeper (the sweep lock is ours)")
            while True:
                report = await sweep_once(conn, settings, publish)
                failures = 0
                if on_pass is not None:
                    on_pass(report)
                log.info(
                    "sweep pass: %d republished, %d ended failed, vector indexes built: %s",
                    len(report.republished),
                    len(report.ended_failed),
                    ", ".join(f"{r} of {t}" for t, r in report.indexes_built) or "none",
                )
                await asyncio.sleep(interval)
        except Exception as exc:
            if not is_transient(exc):
                raise
            failures += 1
            # 1 s, 2 s, 4 s ... up to 30 s (never longer than one sweep interval).
            delay = Backoff(min(1.0, interval), min(30.0, interval), jitter=False).delay(failures)
            log.warning(
                "sweep: database connection lost or unavailable (%s: %s); reconnecting in %.1fs",
                type(exc).__name__,
                exc,
                delay,
            )
        finally:
            if conn is not None:
                await _close(conn)
        await asyncio.sleep(delay)


async def _close(conn: Any) -> None:
    """Close, or drop a connection that is already broken (close() would wait on it)."""
    try:
        await conn.close(timeout=5)
    except Exception:
        conn.terminate()
