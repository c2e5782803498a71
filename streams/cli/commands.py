"""`factstream publish` and `factstream lag`: thin typer wrappers over streams.ops."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, BinaryIO

import typer
from confluent_kafka import KafkaException
from rich.table import Table

from streams import pipeline
from streams.cli.console import err, fail, out, settings_of
from streams.kafka import admin as ka
from streams.ops.lag import StageLag, collect_lag, group_chooser, lag_as_json
from streams.ops.publish import publish_lines
from streams.pipeline import STAGES


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
    except (LookupError, KafkaException) as exc:
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


def lag_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
    watch: Annotated[
        float | None,
        typer.Option(help="Refresh every SECONDS until Ctrl-C (--json: one line per refresh)."),
    ] = None,
    stage: Annotated[list[str] | None, typer.Option(help="Only this stage (repeatable).")] = None,
    all_partitions: Annotated[
        bool, typer.Option("--all", help="Also list partitions that never held a record.")
    ] = False,
    group: Annotated[
        str | None,
        typer.Option(
            help="Read this consumer group instead of factstream-<stage>;"
            " needs exactly one --stage."
        ),
    ] = None,
    group_prefix: Annotated[
        str | None,
        typer.Option(
            help="Read the groups <PREFIX><stage>, e.g. demo.<run id>.factstream- for a demo run."
        ),
    ] = None,
) -> None:
    """Consumer lag per stage, topic and partition: log-end offset minus committed offset.

    Reads the groups factstream-<stage> unless --group / --group-prefix name others (the
    workers' --group). A partition where the group has not committed yet counts from the
    earliest offset still in the log (where a new worker starts), shown as committed "-";
    a group that does not exist shows "-" everywhere.
    """
    settings = settings_of(ctx)
    try:
        named = [pipeline.stage(s).name for s in stage or []]
        group_of = group_chooser(named, group=group, group_prefix=group_prefix)
    except ValueError as exc:
        raise fail(exc) from exc
    stages = named or list(STAGES)
    admin = ka.admin_client(settings)
    while True:
        try:
            report = collect_lag(settings, admin, stages, group_of)
        except KafkaException as exc:
            raise fail(exc) from exc
        if as_json:
            print(json.dumps(lag_as_json(report)), flush=True)
        else:
            if watch is not None:
                out.clear()
            out.print(lag_table(report, all_partitions))
        if watch is None:
            return
        try:
            time.sleep(watch)
        except KeyboardInterrupt:
            return


def lag_table(report: list[StageLag], all_partitions: bool = False) -> Table:
    table = Table(title="consumer lag (lag = log-end - committed; '-' = never committed)")
    for col in ("stage", "group", "topic", "partition", "committed", "log-end", "lag"):
        table.add_column(
            col, justify="right" if col in ("partition", "committed", "log-end", "lag") else "left"
        )
    for s in report:
        if s.error is not None:
            table.add_row(s.stage, s.group, s.topic, "", "", "", f"[red]{s.error}[/red]")
            continue
        shown = [
            p for p in s.partitions if all_partitions or p.log_end > 0 or p.committed is not None
        ]
        for p in shown:
            committed = "-" if p.committed is None else str(p.committed)
            table.add_row(
                s.stage, s.group, s.topic, str(p.partition), committed, str(p.log_end), str(p.lag)
            )
        hidden = len(s.partitions) - len(shown)
        notes = [f"{hidden} empty hidden"] if hidden else []
        # A mistyped or deleted group reads as "never committed": say so once per stage.
        if all(p.committed is None for p in s.partitions):
            notes.append("group never committed here")
        note = f" ({'; '.join(notes)})" if notes else ""
        # The group is repeated here because every partition row may be hidden.
        table.add_row(
            f"[bold]{s.stage}[/bold]",
            s.group,
            f"total{note}",
            "",
            "",
            "",
            f"[bold]{s.lag}[/bold]",
            end_section=True,
        )
    table.add_row(
        "[bold]all stages[/bold]", "", "", "", "", "", f"[bold]{sum(s.lag for s in report)}[/bold]"
    )
    return table
