"""`factstream publish FILE|-`: JSONL EpisodeCompleted events onto the input topic."""

from __future__ import annotations

import sys
from typing import Annotated, BinaryIO

import typer
from rich.table import Table

from streams.cli.console import err, fail, out, settings_of
from streams.kafka.client import KafkaFailure
from streams.ops.publish import publish_lines


def publish_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="JSONL file of EpisodeCompleted events; - = stdin.")],
    topic: Annotated[
        str | None, typer.Option(help="Publish here instead of the input topic.")
    ] = None,
) -> None:
    """Validate JSONL EpisodeCompleted events and publish them keyed by tenant.

    A bad line is reported with its line number and skipped; the others are published.
    Exit code: 0 all published, 1 some lines skipped, 3 the broker did not take some.
    """
    settings = settings_of(ctx)
    stream: BinaryIO
    try:
        stream = sys.stdin.buffer if file == "-" else open(file, "rb")  # noqa: SIM115
    except OSError as exc:
        raise fail(exc) from exc
    try:
        summary = publish_lines(settings, stream, topic=topic)
    except (LookupError, KafkaFailure) as exc:
        raise fail(f"{exc}; create the topics with `factstream topics create`") from exc
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    for bad in summary.skipped:
        err.print(f"line {bad.line_no}: skipped: {bad.reason}", highlight=False)
    for failed in summary.failed:
        err.print(f"[red]not delivered[/red] {failed.tenant} {failed.event_id}: {failed.error}")
    table = Table(title=f"published to {topic or settings.topic('episodes.completed')}")
    table.add_column("tenant")
    table.add_column("events", justify="right")
    table.add_column("partition", justify="right")
    for tenant, count in sorted(summary.per_tenant.items()):
        parts = ",".join(str(p) for p in sorted(summary.partitions[tenant]))
        table.add_row(tenant, str(count), parts)
    if summary.per_tenant:
        out.print(table)
    line = f"published {summary.published}, skipped {len(summary.skipped)}"
    undelivered = len(summary.failed) + summary.undelivered
    if undelivered:
        line += f", not delivered {undelivered}"
    out.print(line, highlight=False)
    raise typer.Exit(summary.exit_code())
