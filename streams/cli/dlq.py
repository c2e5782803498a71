"""`factstream dlq list|show|redrive STAGE`: typer commands over streams/ops/dlq.py."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from streams import pipeline
from streams.cli.console import fail, fmt_time, out, parse_record_id, settings_of
from streams.kafka.client import KafkaFailure
from streams.ops import dlq
from streams.ops.redrive_ledger import redrive_group
from streams.runtime.dlq import H_ATTEMPT, H_STACK

dlq_app = typer.Typer(
    help="Dead letters of a stage: list, show one, redrive to the original topic.",
    no_args_is_help=True,
)

StageArg = Annotated[str, typer.Argument(help="Stage whose dead letters to read.")]
TenantOpt = Annotated[
    str | None, typer.Option(help="Only this tenant (the key, '<dataset>:<project_id>').")
]
ReasonOpt = Annotated[
    str | None, typer.Option(help="Only reasons containing this text (case-insensitive).")
]


def _stage(stage: str) -> str:
    try:
        return pipeline.stage(stage).name
    except ValueError as exc:
        raise fail(exc) from exc


@dlq_app.command("list")
def dlq_list(
    ctx: typer.Context,
    stage: StageArg,
    tenant: TenantOpt = None,
    reason: ReasonOpt = None,
    limit: Annotated[int, typer.Option(help="Show at most N (newest last).")] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False,
) -> None:
    """Dead letters with reason (exception class + message), tenant, offset and time."""
    settings = settings_of(ctx)
    try:
        letters = dlq.list_dead_letters(settings, _stage(stage), tenant=tenant, reason=reason)
    except (LookupError, KafkaFailure, TimeoutError) as exc:
        raise fail(exc) from exc
    shown = letters[-limit:] if limit > 0 else letters
    if as_json:
        rows = [
            {
                "id": f"{d.record.partition}/{d.record.offset}",
                "time": fmt_time(d.record.timestamp_ms),
                "tenant": d.tenant,
                "reason": d.reason,
                "original": d.original,
                "attempt": d.errors.get(H_ATTEMPT),
            }
            for d in shown
        ]
        print(json.dumps({"stage": stage, "count": len(letters), "dead_letters": rows}))
        return
    table = Table(title=f"{settings.dlq_topic(stage)}: {len(letters)} dead letter(s)")
    for col in ("id", "time", "tenant", "reason", "original", "attempt"):
        table.add_column(col, overflow="fold")
    for d in shown:
        table.add_row(
            f"{d.record.partition}/{d.record.offset}",
            fmt_time(d.record.timestamp_ms),
            d.tenant,
            d.reason,
            d.original,
            d.errors.get(H_ATTEMPT, ""),
        )
    out.print(table)
    if len(shown) < len(letters):
        out.print(f"({len(letters) - len(shown)} older not shown; --limit 0 shows all)")


@dlq_app.command("show")
def dlq_show(
    ctx: typer.Context,
    stage: StageArg,
    record: Annotated[str, typer.Argument(help="PARTITION/OFFSET as `dlq list` prints it.")],
    stack: Annotated[bool, typer.Option(help="Print the full stack trace.")] = True,
) -> None:
    """One dead letter: decoded headers and the payload (pretty JSON, or a hex preview)."""
    settings = settings_of(ctx)
    partition, offset = parse_record_id(record)
    try:
        letter = dlq.get_dead_letter(settings, _stage(stage), partition, offset)
    except (LookupError, KafkaFailure, TimeoutError) as exc:
        raise fail(exc) from exc
    rec = letter.record
    when = fmt_time(rec.timestamp_ms)
    out.print(f"[bold]{rec.topic} {rec.partition}/{rec.offset}[/bold]  {when}")
    out.print(f"key (tenant): {letter.tenant or '(none)'}", highlight=False)
    table = Table(title="headers", show_lines=False)
    table.add_column("name")
    table.add_column("value", overflow="fold")
    for name, raw in rec.headers:
        if name == H_STACK and not stack:
            continue
        table.add_row(name, raw.decode("utf-8", "replace"))
    out.print(table)
    kind, text = dlq.render_payload(letter.value)  # every part joined
    size = 0 if letter.value is None else len(letter.value)
    out.print(f"[bold]payload[/bold] ({kind}, {size} bytes):")
    out.print(text, markup=False, highlight=False)


@dlq_app.command("redrive")
def dlq_redrive(
    ctx: typer.Context,
    stage: StageArg,
    tenant: TenantOpt = None,
    reason: ReasonOpt = None,
    record: Annotated[
        str | None, typer.Option(help="Only this dead letter, PARTITION/OFFSET.")
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Show what would be sent; send nothing.")] = False,
) -> None:
    """Re-produce dead letters to their original topic with their original key.

    Sends every matching dead letter that no earlier redrive sent, and records what it
    sent in the offsets of the group factstream-dlq-redrive-<stage>, so running it again
    sends nothing twice. Fix the cause first (a new worker version, a bigger limit).
    """
    settings = settings_of(ctx)
    only = parse_record_id(record) if record else None
    try:
        result = dlq.redrive(
            settings, _stage(stage), tenant=tenant, reason=reason, only=only, dry_run=dry_run
        )
    except (LookupError, KafkaFailure, RuntimeError, TimeoutError) as exc:
        raise fail(exc) from exc
    verb = "would redrive" if dry_run else "redrove"
    table = Table(title=f"{verb} {len(result.redriven)} dead letter(s) of {stage}")
    for col in ("id", "tenant", "reason", "to"):
        table.add_column(col, overflow="fold")
    for letter, landed in result.redriven:
        r = letter.record
        table.add_row(f"{r.partition}/{r.offset}", letter.tenant, letter.reason, landed)
    out.print(table if result.redriven else table.title)
    for letter, why in result.unroutable:
        out.print(
            f"[yellow]not redriven[/yellow] {letter.record.partition}/{letter.record.offset}: {why}"
        )
    for letter, why in result.failed:
        out.print(f"[red]failed[/red] {letter.record.partition}/{letter.record.offset}: {why}")
    out.print(
        f"{result.already} already redriven earlier, {result.filtered_out} left out by filters;"
        f" ledger: group {redrive_group(stage)}",
        highlight=False,
    )
    if result.failed:
        raise typer.Exit(1)
