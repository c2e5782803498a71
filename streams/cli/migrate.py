"""`factstream migrate` and `factstream schemas export`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from streams.cli.console import fail, out, settings_of

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
        raise fail(exc) from exc
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
