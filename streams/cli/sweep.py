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
from typing import Annotated

import typer
from rich.table import Table

from streams.cli.console import err, fail, out, settings_of
from streams.events import EpisodeCompleted
from streams.kafka.publisher import Publisher, PublishError
from streams.ops.sweep import Publish, SweepReport, run_sweeper
from streams.settings import Settings

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


async def sweep(settings: Settings, *, once: bool) -> SweepReport | None:
    """Run the sweeper; SIGTERM/SIGINT end the loop between or during passes."""
    url = settings.require_database_url()
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


def report_table(report: SweepReport) -> Table:
    table = Table(title="sweep pass")
    for column in ("action", "tenant", "episode", "why"):
        table.add_column(column, overflow="fold")
    for dataset, project, episode, why in report.republished:
        table.add_row("republished", f"{dataset}:{project}", episode, why)
    for dataset, project, episode in report.ended_failed:
        table.add_row(
            "[red]ended failed[/red]",
            f"{dataset}:{project}",
            episode,
            "claim expired and the retry cap is reached",
        )
    for tenant, relation in report.indexes_built:
        table.add_row(
            "vector index built", tenant, "", f"{relation}: the tenant outgrew exact search"
        )
    return table


def sweep_command(
    ctx: typer.Context,
    once: Annotated[bool, typer.Option("--once", help="One pass, print it, exit.")] = False,
) -> None:
    """Republish pending, failed-under-cap and orphaned episodes; end those past the cap;
    build the vector index of one tenant that outgrew exact search.

    Runs every sweep_interval_s (FACTSTREAM_SWEEP_INTERVAL_S, default 120) until
    SIGTERM; one sweeper per database is active, the others stand by.
    """
    # The looping sweeper logs each pass; --once prints its table instead.
    level = logging.WARNING if once else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    logging.getLogger("librdkafka").setLevel(logging.WARNING)
    settings = settings_of(ctx)
    try:
        report = asyncio.run(sweep(settings, once=once))
    except (RuntimeError, OSError, PublishError) as exc:
        raise fail(exc) from exc
    if not once:
        return
    if report is None:
        err.print("another sweeper is active on this database; this pass did nothing")
        return
    if report.republished or report.ended_failed or report.indexes_built:
        out.print(report_table(report))
    out.print(
        f"republished {len(report.republished)}, ended failed {len(report.ended_failed)},"
        f" vector indexes built {len(report.indexes_built)}",
        highlight=False,
    )
