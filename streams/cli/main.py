"""The `factstream` command line: thin wrappers over streams.ops, settings read once here.

To add a command: write it in its own module under streams/ops (or here if tiny) and add
one line in the "sub-commands" block at the bottom, e.g.
``app.add_typer(replay_app, name="replay")`` or ``app.command("lag")(lag_command)``.
Commands get their settings with ``settings_of(ctx)``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from streams.cli.commands import lag_command, publish_command
from streams.cli.dlq import dlq_app
from streams.cli.facts import facts_command
from streams.cli.replay import replay_command
from streams.cli.sweep import sweep_command
from streams.cli.trace import trace_command
from streams.cli.worker import worker_command
from streams.demo.run import demo_command
from streams.dev import infra as devinfra
from streams.dev.proc import DevInfraError
from streams.kafka import topics as topics_ops
from streams.settings import Settings, load_settings

app = typer.Typer(
    name="factstream",
    help="Chat episodes in, bi-temporal facts out: workers and operator commands.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
dev_app = typer.Typer(help="Local Kafka + Postgres for dev and tests.", no_args_is_help=True)
topics_app = typer.Typer(help="Create and list factstream's topics.", no_args_is_help=True)
_width = None if sys.stdout.isatty() else 160  # pipes and CI logs: do not fold at 80 columns
out = Console(soft_wrap=True, width=_width)
err = Console(stderr=True, soft_wrap=True, width=_width)


@app.callback()
def main(ctx: typer.Context) -> None:
    """Chat episodes in, bi-temporal facts out."""
    ctx.obj = None  # settings are read lazily, once, by settings_of()


def settings_of(ctx: typer.Context) -> Settings:
    """The settings of this invocation (read from the environment on first use)."""
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = load_settings()
    return root.obj


def _fail(exc: Exception) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
    return typer.Exit(code=1)


# --- dev ---------------------------------------------------------------------------------


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
        raise _fail(exc) from exc
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
        raise _fail(exc) from exc
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
            row.name, row.kind, row.address, "yes" if row.running else "no",
            "yes" if row.started_by_up else "no", str(row.pid or ""), row.note,
        )
    out.print(table)


def _show(name: str, address: str) -> str:
    from streams.dev.pg_local import redact

    return redact(address) if name == "postgres" else address


# --- topics ------------------------------------------------------------------------------


@topics_app.command("create")
def topics_create(ctx: typer.Context) -> None:
    """Create every topic (idempotent); existing ones get the configured retention."""
    settings = settings_of(ctx)
    for result in topics_ops.create_topics(settings):
        note = f"  [yellow]{result.note}[/yellow]" if result.note else ""
        out.print(f"{result.action:8} {result.name}{note}", highlight=False)


@topics_app.command("list")
def topics_list(ctx: typer.Context) -> None:
    """Topics under the prefix, with partitions and retention as the broker has them."""
    settings = settings_of(ctx)
    table = Table(title=f"topics ({settings.kafka_bootstrap_servers})")
    for col in ("name", "partitions", "retention", "status"):
        table.add_column(col, overflow="fold")
    for info in topics_ops.describe_topics(settings):
        status = "ok" if info.partitions is not None else "[red]missing[/red]"
        if not info.configured:
            status = "not in settings"
        table.add_row(
            info.name,
            "" if info.partitions is None else str(info.partitions),
            topics_ops.format_retention(info.retention_ms) if info.partitions is not None else "",
            status,
        )
    out.print(table)


# --- migrate, schemas ----------------------------------------------------------------------

schemas_app = typer.Typer(help="JSON Schema of every topic's payload.", no_args_is_help=True)


def migrate_command(ctx: typer.Context) -> None:
    """Apply the SQL migrations not applied yet (idempotent); print the versions applied."""
    import asyncpg

    from streams.store.migrate import load_migrations, migrate

    settings = settings_of(ctx)
    try:
        url = settings.require_database_url()
        applied = asyncio.run(migrate(url, settings.embedding_dim))
    except (RuntimeError, OSError, asyncpg.PostgresError) as exc:
        raise _fail(exc) from exc
    known = [m.version for m in load_migrations()]
    if applied:
        out.print(f"applied migrations {applied} (embedding dim {settings.embedding_dim})")
    else:
        out.print(f"up to date: migrations {known} were applied before")


def schemas_export_command(
    directory: Annotated[Path, typer.Option("--dir", help="Where to write.")] = Path("schemas"),
) -> None:
    """Write the JSON Schema of every topic's payload (the contract for publishers)."""
    from streams.ops.schemas_export import export_schemas

    for path in export_schemas(directory):
        out.print(f"wrote {path}", highlight=False)


schemas_app.command("export")(schemas_export_command)


# --- sub-commands: one line each -------------------------------------------------------------
app.add_typer(dev_app, name="dev")
app.add_typer(topics_app, name="topics")
app.command("facts")(facts_command)
app.command("publish")(publish_command)
app.command("replay")(replay_command)
app.command("lag")(lag_command)
app.add_typer(dlq_app, name="dlq")
app.command("worker")(worker_command)
app.command("migrate")(migrate_command)
app.add_typer(schemas_app, name="schemas")
app.command("sweep")(sweep_command)
app.command("trace")(trace_command)
app.command("demo")(demo_command)
