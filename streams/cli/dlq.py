"""`factstream dlq list|show|redrive STAGE`: typer commands over streams/ops/dlq.py.

Keys, headers, payloads and error messages of dead letters are whatever a publisher or a
failing stage put there: every one is printed as escaped literal text.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from streams.cli.console import (
    JsonFlag,
    fail,
    fmt_time,
    out,
    parse_record_id,
    print_json,
    settings_of,
)
from streams.cli.params import StageChoice
from streams.cli.printable import one_line, safe_text
from streams.kafka.client import require_cluster
from streams.ops import dlq
from streams.ops.dlq import DeadLetter
from streams.ops.redrive_ledger import redrive_group
from streams.runtime.dlq import H_ATTEMPT, H_STACK

dlq_app = typer.Typer(
    help="Dead letters of a stage: list, show one, redrive to the original topic.",
    no_args_is_help=True,
)

StageArg = Annotated[StageChoice, typer.Argument(help="Stage whose dead letters to read.")]
TenantOpt = Annotated[
    str | None, typer.Option(help="Only this tenant (the key, '<dataset>:<project_id>').")
]
ReasonOpt = Annotated[
    str | None, typer.Option(help="Only reasons containing this text (case-insensitive).")
]


def _id(letter: DeadLetter) -> str:
    return f"{letter.record.partition}/{letter.record.offset}"


@dlq_app.command("list")
def dlq_list(
    ctx: typer.Context,
    stage: StageArg,
    tenant: TenantOpt = None,
    reason: ReasonOpt = None,
    limit: Annotated[int, typer.Option(help="Show at most N (newest last); 0: all.")] = 200,
    as_json: JsonFlag = False,
) -> None:
    """Dead letters with reason (exception class + message), tenant, offset and time."""
    settings = settings_of(ctx)
    require_cluster(settings)
    try:
        letters = dlq.list_dead_letters(settings, stage.value, tenant=tenant, reason=reason)
    except (LookupError, RuntimeError) as exc:  # no DLQ topic; a partition unreadable
        raise fail(exc) from exc
    shown = letters[-limit:] if limit > 0 else letters
    if as_json:
        rows = [
            {
                "id": _id(d),
                "time": fmt_time(d.record.timestamp_ms),
                "tenant": d.tenant,
                "reason": d.reason,
                "original": d.original,
                "attempt": d.errors.get(H_ATTEMPT),
            }
            for d in shown
        ]
        print_json({"stage": stage.value, "count": len(letters), "dead_letters": rows})
        return
    table = Table(title=f"{settings.dlq_topic(stage.value)}: {len(letters)} dead letter(s)")
    for col in ("id", "time", "tenant", "reason", "original", "attempt"):
        table.add_column(col, overflow="fold")
    for d in shown:
        table.add_row(
            _id(d),
            fmt_time(d.record.timestamp_ms),
            *map(safe_text, (d.tenant, d.reason, d.original, d.errors.get(H_ATTEMPT, ""))),
        )
    out.print(table)
    if len(shown) < len(letters):
        out.print(f"({len(letters) - len(shown)} older not shown; --limit 0 shows all)")


def _show_json(letter: DeadLetter, stack: bool) -> dict[str, Any]:
    rec, whole = letter.record, letter.value  # every part joined
    value: str | None = None
    if whole is not None:
        try:
            value = whole.decode("utf-8")
        except UnicodeDecodeError:
            value = None
    return {
        "topic": rec.topic,
        "partition": rec.partition,
        "offset": rec.offset,
        "time": fmt_time(rec.timestamp_ms),
        "tenant": letter.tenant,
        "headers": [
            {"name": name, "value": dlq.bytes_as_text(raw)}
            for name, raw in rec.headers
            if stack or name != H_STACK
        ],
        "value": value,  # the payload as text (null: empty, or not UTF-8)
        "value_base64": None if whole is None else base64.b64encode(whole).decode(),
    }


@dlq_app.command("show")
def dlq_show(
    ctx: typer.Context,
    stage: StageArg,
    record: Annotated[str, typer.Argument(help="PARTITION/OFFSET as `dlq list` prints it.")],
    stack: Annotated[bool, typer.Option(help="Print the full stack trace.")] = True,
    as_json: JsonFlag = False,
) -> None:
    """One dead letter: decoded headers and the payload (pretty JSON, or a hex preview)."""
    settings = settings_of(ctx)
    partition, offset = parse_record_id(record)
    require_cluster(settings)
    try:
        letter = dlq.get_dead_letter(settings, stage.value, partition, offset)
    except (LookupError, RuntimeError) as exc:
        raise fail(exc) from exc
    if as_json:
        print_json(_show_json(letter, stack))
        return
    rec = letter.record
    title = safe_text(f"{rec.topic} {rec.partition}/{rec.offset}", "bold")
    out.print(Text.assemble(title, f"  {fmt_time(rec.timestamp_ms)}"))
    out.print(safe_text(f"key (tenant): {letter.tenant or '(none)'}"))
    table = Table(title="headers", show_lines=False)
    table.add_column("name")
    table.add_column("value", overflow="fold")
    for name, raw in rec.headers:
        if name == H_STACK and not stack:
            continue
        table.add_row(safe_text(name), safe_text(dlq.bytes_as_text(raw)))
    out.print(table)
    kind, text = dlq.render_payload(letter.value)  # every part joined
    size = 0 if letter.value is None else len(letter.value)
    out.print(Text.assemble(("payload", "bold"), f" ({kind}, {size} bytes):"))
    out.print(safe_text(text))


def _redrive_json(stage: str, dry_run: bool, result: dlq.RedriveResult) -> dict[str, Any]:
    return {
        "stage": stage,
        "dry_run": dry_run,
        "redriven": [
            {"id": _id(d), "tenant": d.tenant, "reason": d.reason, "to": to}
            for d, to in result.redriven
        ],
        "unroutable": [{"id": _id(d), "why": why} for d, why in result.unroutable],
        "failed": [{"id": _id(d), "error": why} for d, why in result.failed],
        "already_redriven": result.already,
        "filtered_out": result.filtered_out,
        "ledger_group": redrive_group(stage),
    }


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
    as_json: JsonFlag = False,
) -> None:
    """Re-produce dead letters to their original topic with their original key.

    Sends every matching dead letter that no earlier redrive sent, and records what it
    sent in the offsets of the group factstream-dlq-redrive-<stage>, so running it again
    sends nothing twice. Fix the cause first (a new worker version, a bigger limit).
    Exit code 1 when some were not delivered.
    """
    settings = settings_of(ctx)
    only = parse_record_id(record) if record else None
    require_cluster(settings)
    try:
        result = dlq.redrive(
            settings, stage.value, tenant=tenant, reason=reason, only=only, dry_run=dry_run
        )
    except (LookupError, RuntimeError) as exc:  # no DLQ topic; still undelivered after 60 s
        raise fail(exc) from exc
    if as_json:
        print_json(_redrive_json(stage.value, dry_run, result))
    else:
        _print_redrive(stage.value, dry_run, result)
    if result.failed:
        raise typer.Exit(1)


def _sent_as(letter: DeadLetter) -> str:
    """The letter's tenant; for one that had no key, the key its payload gave it."""
    if letter.record.key is not None:
        return letter.tenant
    return f"(no key; sent as {dlq.bytes_as_text(letter.redrive_key or b'')})"


def _print_redrive(stage: str, dry_run: bool, result: dlq.RedriveResult) -> None:
    verb = "would redrive" if dry_run else "redrove"
    table = Table(title=f"{verb} {len(result.redriven)} dead letter(s) of {stage}")
    for col in ("id", "tenant", "reason", "to"):
        table.add_column(col, overflow="fold")
    for letter, landed in result.redriven:
        table.add_row(_id(letter), *map(safe_text, (_sent_as(letter), letter.reason, landed)))
    out.print(table if result.redriven else table.title)
    for letter, why in result.unroutable:
        out.print(Text.assemble(("not redriven", "yellow"), one_line(f" {_id(letter)}: {why}")))
    for letter, why in result.failed:
        out.print(Text.assemble(("failed", "red"), one_line(f" {_id(letter)}: {why}")))
    out.print(
        f"{result.already} already redriven earlier, {result.filtered_out} left out by filters;"
        f" ledger: group {redrive_group(stage)}"
    )
