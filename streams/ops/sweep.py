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

An episode past the cap is marked `failed` with its last error, and stays visible. So is
one whose copy cannot be published at all (over the record limit, or a ledger row an
older version stored that no longer makes a valid event): it ends `failed` at the cap
with that reason instead of being sent, and refused, on every pass.
Each pass also builds one missing per-tenant vector index (streams/store/tenant_indexes.py),
grafts the rows written since into those indexes (streams/store/graph_tail.py), and
purges the embeddings dedup staged that no writer consumed within a day
(streams/store/staged_vectors.py: an episode dead-lettered between dedup and the writer).

The loop outlives every failure: a lost database connection (it reconnects and takes the
lock again), and a failed publish. A pass whose publish fails sends its episodes one at
a time, so one refused episode (logged with its tenant and id) holds back no other
tenant's; the refused ones stay due in the ledger for a later pass, and while a whole
pass's publishing fails (the broker is away) the loop waits longer between passes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streams.backoff import Backoff
from streams.errors import is_transient
from streams.events import EpisodeCompleted
from streams.kafka.publisher import PublishError
from streams.settings import Settings
from streams.stages.release import too_large_to_copy
from streams.store import graph_tail, staged_vectors
from streams.store.episodes import UnusableRow, end_unpublishable, episode_from_row
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
    grafted: int = 0  # rows taken into their tenants' vector graphs (store/graph_tail.py)
    # (dataset, project, episode, error): refused by the broker or the client; still due.
    publish_failed: list[tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def nothing_published(self) -> bool:
        """Every episode this pass tried to publish failed (the broker is away)."""
        return bool(self.publish_failed) and len(self.publish_failed) >= len(self.republished)


async def sweep_once(
    conn: Any, settings: Settings, publish: Publish, *, isolate_failures: bool = False
) -> SweepReport:
    """One pass. `conn` is an asyncpg connection; `publish` sends events to Kafka.

    ``isolate_failures`` (the looping sweeper): a publish that raises is tried again one
    episode at a time and what still fails is reported, not raised."""
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
        ids = (row["dataset"], row["project_id"], row["episode_id"])
        episode, unpublishable = _rebuilt(row, settings)
        if episode is None:
            log.error("sweep: episode %s of %s:%s ends failed: %s", ids[2], ids[0], ids[1],
                      unpublishable)  # fmt: skip
            await end_unpublishable(conn, *ids, unpublishable, cap)
            report.ended_failed.append(ids)
            continue
        events.append(episode)
        report.republished.append((*ids, why))
    if events:
        if isolate_failures:
            report.publish_failed = _publish_isolated(publish, events)
        else:
            publish(events)
    report.indexes_built = await _build_tenant_indexes(conn, settings)
    report.grafted = await _graft_tails(conn)
    report.staged_vectors_purged = await staged_vectors.purge_stale(conn)
    return report


def _rebuilt(row: Any, settings: Settings) -> tuple[EpisodeCompleted | None, str]:
    """The row's episode, or None and why no copy of it can be published."""
    try:
        episode = episode_from_row(row)
    except UnusableRow as exc:
        return None, str(exc)
    too_large = too_large_to_copy(episode, settings)
    return (None, too_large) if too_large else (episode, "")


def _publish_isolated(
    publish: Publish, events: Sequence[EpisodeCompleted]
) -> list[tuple[str, str, str, str]]:
    """Publish; if that fails, one episode at a time, so one refusal holds back no other."""
    try:
        publish(events)
        return []
    except Exception as exc:
        log.warning("sweep: publishing %d episodes failed (%s); sending them one at a time",
                    len(events), exc)  # fmt: skip
    failed: list[tuple[str, str, str, str]] = []
    for i, event in enumerate(events):
        try:
            publish([event])
        except Exception as exc:
            log.error(
                "sweep: could not publish episode %s of %s (%s: %s); it stays due for a later"
                " pass", event.episode_id, event.tenant, type(exc).__name__, exc,
            )  # fmt: skip
            failed.append((event.dataset, event.project_id, event.episode_id, str(exc)))
            if _broker_away(exc):  # the others would wait out the same timeout
                failed += [
                    (e.dataset, e.project_id, e.episode_id, str(exc)) for e in events[i + 1 :]
                ]
                break
    return failed


def _broker_away(exc: Exception) -> bool:
    """A delivery that timed out: no answer from the cluster, not a refusal of this one."""
    if not isinstance(exc, PublishError):
        return False
    return bool(exc.undelivered) or all("timed out" in f.error.lower() for f in exc.failed)


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


async def _graft_tails(conn: Any) -> int:
    """Rows written since their tenant's vector index was built, taken into it (bounded
    per pass). A failure is logged and the rows wait for the next pass; searches find
    them meanwhile, as they find every row not in the index yet."""
    try:
        return (await graph_tail.graft(conn)).total
    except Exception as exc:
        if is_transient(exc):
            raise
        log.error("sweep: grafting rows into tenant vector indexes failed: %r", exc)
        return 0


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
    reconnect = Backoff(min(1.0, interval), min(30.0, interval), jitter=False)
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
            async for _ in _passes(conn, settings, publish, on_pass):
                failures = 0
        except Exception as exc:
            failures += 1
            # 1 s, 2 s, 4 s ... up to 30 s (never longer than one sweep interval).
            delay = reconnect.delay(failures)
            if is_transient(exc):
                log.warning(
                    "sweep: database connection lost or unavailable (%s: %s); reconnecting"
                    " in %.1fs", type(exc).__name__, exc, delay,
                )  # fmt: skip
            else:  # a bug or an unforeseen row: logged in full, and the sweep goes on
                log.exception("sweep: a pass failed (%s); starting again in %.1fs", exc, delay)
        finally:
            if conn is not None:
                await _close(conn)
        await asyncio.sleep(delay)


async def _passes(
    conn: Any, settings: Settings, publish: Publish,
    on_pass: Callable[[SweepReport], None] | None,
) -> AsyncIterator[SweepReport]:  # fmt: skip
    """Pass after pass on one connection, a sweep interval apart; while every publish of
    a pass fails (the broker is away) the wait doubles, up to four intervals."""
    interval = settings.sweep_interval_s
    outage = 0
    while True:
        report = await sweep_once(conn, settings, publish, isolate_failures=True)
        if on_pass is not None:
            on_pass(report)
        log.info(
            "sweep pass: %d republished (%d of them refused), %d ended failed, vector indexes"
            " built: %s, rows grafted into them: %d", len(report.republished),
            len(report.publish_failed), len(report.ended_failed),
            ", ".join(f"{r} of {t}" for t, r in report.indexes_built) or "none",
            report.grafted,
        )  # fmt: skip
        yield report
        outage = outage + 1 if report.nothing_published else 0
        await asyncio.sleep(interval * min(4, 2**outage) if outage else interval)


async def _close(conn: Any) -> None:
    """Close, or drop a connection that is already broken (close() would wait on it)."""
    try:
        await conn.close(timeout=5)
    except Exception:
        conn.terminate()
