"""`factstream publish FILE|-`: JSONL EpisodeCompleted events onto the input topic."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, BinaryIO

import typer
from rich.table import Table
from rich.text import Text

from streams.cli.console import JsonFlag, err, fail, out, print_json, settings_of, usage_error
from streams.cli.printable import one_line, safe_text
from streams.kafka.admin import TopicNotFoundError
from streams.kafka.client import require_cluster
from streams.ops.publish import PublishSummary, publish_lines


def _open_events(file: str) -> BinaryIO:
    """Standard input for "-", else the file; a file that cannot be read is a usage
    error naming why, found before the broker is asked anything."""
    if file == "-":
        return sys.stdin.buffer
    if Path(file).is_dir():
        raise usage_error(f"{file!r} is a directory, not a JSONL file of events")
    try:
        return open(file, "rb")  # the caller closes it
    except FileNotFoundError:
        raise usage_error(f"no such file: {file!r}") from None
    except OSError as exc:
        raise usage_error(f"cannot read {file!r}: {exc.strerror or exc}") from None


def summary_json(topic: str, summary: PublishSummary) -> dict[str, Any]:
    return {
        "topic": topic,
        "published": summary.published,
        "skipped": [{"line": b.line_no, "reason": b.reason} for b in summary.skipped],
        "not_delivered": [
            {"tenant": f.tenant, "event_id": f.event_id, "error": f.error} for f in summary.failed
        ],
        "still_queued": summary.undelivered,
        "tenants": [
            {"tenant": t, "events": n, "partitions": sorted(summary.partitions[t])}
            for t, n in sorted(summary.per_tenant.items())
        ],
    }


def print_summary(topic: str, summary: PublishSummary) -> None:
    for bad in summary.skipped:
        err.print(one_line(f"line {bad.line_no}: skipped: {bad.reason}"))
    for failed in summary.failed:
        what = one_line(f" {failed.tenant} {failed.event_id}: {failed.error}")
        err.print(Text.assemble(("not delivered", "red"), what))
    table = Table(title=f"published to {topic}")
    table.add_column("tenant")
    table.add_column("events", justify="right")
    table.add_column("partition", justify="right")
    for tenant, count in sorted(summary.per_tenant.items()):
        parts = ",".join(str(p) for p in sorted(summary.partitions[tenant]))
        table.add_row(safe_text(tenant), str(count), parts)
    if summary.per_tenant:
        out.print(table)
    line = f"published {summary.published}, skipped {len(summary.skipped)}"
    undelivered = len(summary.failed) + summary.undelivered
    if undelivered:
        line += f", not delivered {undelivered}"
    out.print(line)


def publish_command(
    ctx: typer.Context,
    file: Annotated[str, typer.Argument(help="JSONL file of EpisodeCompleted events; - = stdin.")],
    topic: Annotated[
        str | None, typer.Option(help="Publish here instead of the input topic.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Validate JSONL EpisodeCompleted events and publish them keyed by tenant.

    A bad line is reported with its line number and skipped; the others are published.
    Exit code: 0 all published, 1 some lines skipped, 3 the broker did not take some.
    """
    settings = settings_of(ctx)
    stream = _open_events(file)
    try:
        require_cluster(settings)
        summary = publish_lines(settings, stream, topic=topic)
    except TopicNotFoundError as exc:
        raise fail(f"{exc}; create the topics with `factstream topics create`") from exc
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    where = topic or settings.topic("episodes.completed")
    if as_json:
        print_json(summary_json(where, summary))
    else:
        print_summary(where, summary)
    raise typer.Exit(summary.exit_code())
