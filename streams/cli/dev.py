"""`factstream dev up|down|status`: local Kafka and Postgres (streams/dev/infra.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer
from rich.table import Table

from streams.cli.console import JsonFlag, err, out, print_json, settings_of, usage_error
from streams.cli.printable import safe_text
from streams.dev import infra as devinfra
from streams.store.db import redact_url

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
        err.print("bringing up kafka and postgres ...", style="dim")
    result = devinfra.up(settings)
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
    unknown = sorted(set(names or ()) - set(devinfra.SERVICES))
    if unknown:
        raise usage_error(f"--only: unknown {unknown}; services are {', '.join(devinfra.SERVICES)}")
    for message in devinfra.down(settings_of(ctx), names):
        err.print(message)


@dev_app.command("status")
def dev_status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """What runs where, and whether it answers (Kafka: metadata; Postgres: a connection)."""
    settings = settings_of(ctx)
    rows = devinfra.status(settings)
    if as_json:
        services = [asdict(row) for row in rows]
        print_json({"dev_dir": str(devinfra.dev_path(settings)), "services": services})
        return
    table = Table(title=f"dev infra ({devinfra.dev_path(settings)})")
    for col in ("service", "kind", "address", "running", "started by up", "pid", "note"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            row.name,
            row.kind,
            safe_text(row.address),
            "yes" if row.running else "no",
            "yes" if row.started_by_up else "no",
            str(row.pid or ""),
            safe_text(row.note),
        )
    out.print(table)


def _show(name: str, address: str) -> str:
    return redact_url(address) if name == "postgres" else address
