"""`factstream dev up|down|status`: local Kafka and Postgres (streams/dev/infra.py)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from streams.cli.console import err, fail, out, settings_of
from streams.dev import infra as devinfra
from streams.dev.pg_local import redact
from streams.dev.proc import DevInfraError

dev_app = typer.Typer(help="Local Kafka + Postgres for dev and tests.", no_args_is_help=True)


@dev_app.command("up")
def dev_up(
    ctx: typer.Context,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Print only the export lines.")
    ] = False,
) -> None:
    """Start Kafka and Postgres unless configured; print `export ...` lines for `eval`.

    eval "$(factstream dev up --quiet)"
    """
    settings = settings_of(ctx)
    if not quiet:
        err.print("[dim]bringing up kafka and postgres ...[/dim]")
    try:
        result = devinfra.up(settings)
    except DevInfraError as exc:
        raise fail(exc) from exc
    if not quiet:
        for svc in result.services:
            new = "started" if svc.name in result.started_now else "already there"
            err.print(f"{svc.name}: {svc.kind} at {_show(svc.name, svc.address)} ({new})")
    for line in result.exports():
        print(line)
    print(f"# started: {','.join(result.started_now)}")


@dev_app.command("down")
def dev_down(
    ctx: typer.Context,
    only: Annotated[
        str | None, typer.Option(help="Comma-separated services to stop: kafka,postgres.")
    ] = None,
) -> None:
    """Stop what `dev up` started (never an external or pre-existing service)."""
    names = [n.strip() for n in only.split(",") if n.strip()] if only is not None else None
    try:
        messages = devinfra.down(settings_of(ctx), names)
    except DevInfraError as exc:
        raise fail(exc) from exc
    for message in messages:
        err.print(message, highlight=False)


@dev_app.command("status")
def dev_status(ctx: typer.Context) -> None:
    """What runs where."""
    settings = settings_of(ctx)
    table = Table(title=f"dev infra ({devinfra.dev_path(settings)})")
    for col in ("service", "kind", "address", "running", "started by up", "pid", "note"):
        table.add_column(col, overflow="fold")
    for row in devinfra.status(settings):
        table.add_row(
            row.name,
            row.kind,
            row.address,
            "yes" if row.running else "no",
            "yes" if row.started_by_up else "no",
            str(row.pid or ""),
            row.note,
        )
    out.print(table)


def _show(name: str, address: str) -> str:
    return redact(address) if name == "postgres" else address
