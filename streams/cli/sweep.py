"""`factstream sweep [--once]`: the backstop sweep (streams/ops/sweep.py) as a process.

Without ``--once`` it runs until SIGTERM/SIGINT, one pass every ``sweep_interval_s``,
as the single active sweeper of its database (others stand by on the advisory lock).
A lost database connection does not end it: it backs off, reconnects and takes the lock
again (or stands by when another sweeper took over meanwhile).
``--once`` runs one pass and prints what it republished and what it ended ``failed``.
Republished events go to the input topic through the idempotent Publisher, keyed by
tenant, so summarize and extract both see them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from streams.cli.console import (
    database_url_of,
    err,
    out,
    print_json,
    settings_of,
    usage_error,
)
from streams.cli.printable import safe_text
from streams.errors import is_transient
from streams.events import EpisodeCompleted
from streams.kafka.client import require_cluster
from streams.kafka.publisher import Publisher, PublishError
from streams.ops.sweep import Publish, SweepReport, run_sweeper
from streams.runtime import jsonlog
from streams.settings import Settings
from streams.store.db import ready_database

log = logging.getLogger(__name__)


def make_publish(publisher: Publisher, *, tolerate: bool = False) -> Publish:
    """The sweep's publish callable: send every event and wait for the broker.

    A loss raises PublishError, unless ``tolerate`` (it is then only logged). The sweeper
    runs it untolerated: the loop isolates and reports each failed episode itself
    (streams/ops/sweep.py), and ``--once`` fails with the error.
    """

    def publish(events: Sequence[EpisodeCompleted]) -> None:
        for event in events:
            publisher.publish(event)
        try:
            publisher.flush()
        except PublishError as exc:
            if not tolerate:
                raise
            log.error("sweep: %s; a later pass will send them again", exc)

    return publish


async def sweep(settings: Settings, url: str, *, once: bool) -> SweepReport | None:
    """Run the sweeper; SIGTERM/SIGINT end the loop between or during passes."""
    publisher = Publisher(settings)
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()
    if not once and main is not None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, main.cancel)
    try:
        # Failures raise: the looping sweeper isolates and reports them (streams/ops/sweep.py).
        publish = make_publish(publisher)
        return await run_sweeper(url, settings, publish, once=once)
    except asyncio.CancelledError:
        log.info("sweep: stopped by signal")
        return None
    finally:
        with contextlib.suppress(PublishError):
            publisher.close(timeout=10)


async def _schema_ready_when_reachable(url: str) -> None:
    """A database that is not migrated ends the sweeper; one that is down it waits for
    (run_sweeper reconnects with backoff, naming the address)."""
    try:
        await ready_database(url)
    except Exception as exc:
        if not is_transient(exc):  # DatabaseUnreachable is, a missing table is not
            raise
        log.warning("sweep: %s; waiting for it", exc)


def report_table(report: SweepReport) -> Table:
    table = Table(title="sweep pass")
    for column in ("action", "tenant", "episode", "why"):
        table.add_column(column, overflow="fold")
    for dataset, project, episode, why in report.republished:
        table.add_row("republished", *map(safe_text, (f"{dataset}:{project}", episode, why)))
    for dataset, project, episode in report.ended_failed:
        table.add_row(
            Text("ended failed", "red"),
            *map(safe_text, (f"{dataset}:{project}", episode)),
            "claim expired and the retry cap is reached",
        )
    for tenant, relation in report.indexes_built:
        built = safe_text(f"{relation}: the tenant outgrew exact search")
        table.add_row("vector index built", safe_text(tenant), "", built)
    return table


def report_json(report: SweepReport | None) -> dict[str, Any]:
    """`sweep --once --json`; ``active`` false: another sweeper holds the lock, nothing done."""
    if report is None:
        return {"active": False, "republished": [], "ended_failed": [], "indexes_built": [],
                "grafted": 0}  # fmt: skip
    return {
        "active": True,
        "republished": [
            {"tenant": f"{d}:{p}", "episode_id": e, "why": why}
            for d, p, e, why in report.republished
        ],
        "ended_failed": [
            {"tenant": f"{d}:{p}", "episode_id": e} for d, p, e in report.ended_failed
        ],
        "indexes_built": [{"tenant": t, "relation": r} for t, r in report.indexes_built],
        "grafted": report.grafted,
    }


def sweep_command(
    ctx: typer.Context,
    once: Annotated[bool, typer.Option("--once", help="One pass, print it, exit.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="With --once: print the pass as one JSON document.")
    ] = False,
) -> None:
    """Republish pending, failed-under-cap and orphaned episodes; end those past the cap;
    build the vector index of one tenant that outgrew exact search.

    Runs every sweep_interval_s (FACTSTREAM_SWEEP_INTERVAL_S, default 120) until
    SIGTERM, logging JSON lines; one sweeper per database is active, the others stand by.
    It waits out a database that is down (it reconnects); a database that is not
    migrated ends it (exit 1).
    """
    if as_json and not once:
        raise usage_error("--json prints one pass: use it with --once")
    settings = settings_of(ctx)
    url = database_url_of(ctx)
    if once:  # one clear line, not a pass that fails half-way
        require_cluster(settings)
        asyncio.run(ready_database(url))
    else:
        jsonlog.configure("INFO")  # the looping sweeper logs each pass, as a worker does
        asyncio.run(_schema_ready_when_reachable(url))
    report = asyncio.run(sweep(settings, url, once=once))
    if not once:
        return
    if as_json:
        print_json(report_json(report))
        return
    if report is None:
        err.print("another sweeper is active on this database; this pass did nothing")
        return
    if report.republished or report.ended_failed or report.indexes_built:
        out.print(report_table(report))
    out.print(
        f"republished {len(report.republished)}, ended failed {len(report.ended_failed)},"
        f" vector indexes built {len(report.indexes_built)},"
        f" rows grafted into them {report.grafted}"
    )
