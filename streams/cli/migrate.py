"""`factstream migrate` and `factstream schemas export`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer

from streams.cli.console import JsonFlag, database_url_of, out, print_json, settings_of

schemas_app = typer.Typer(help="JSON Schema of every topic's payload.", no_args_is_help=True)


async def _migrate(url: str, embedding_dim: int) -> list[int]:
    """Refuse another vector size before touching anything (with the address and the fix),
    then apply what is missing."""
    from streams.store import db
    from streams.store.migrate import migrate

    conn = await db.connect(url, codecs=False)  # the `vector` type may not exist yet
    try:
        db.check_dimension(await db.schema_status(conn), url, embedding_dim)
    finally:
        await conn.close()
    return await migrate(url, embedding_dim)


def migrate_command(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Apply the SQL migrations not applied yet (idempotent); print the versions applied."""
    from streams.store.migrate import load_migrations

    settings = settings_of(ctx)
    applied = asyncio.run(_migrate(database_url_of(ctx), settings.embedding_dim))
    known = [m.version for m in load_migrations()]
    if as_json:
        print_json({"applied": applied, "known": known, "embedding_dim": settings.embedding_dim})
    elif applied:
        out.print(f"applied migrations {applied} (embedding dim {settings.embedding_dim})")
    else:
        out.print(f"up to date: migrations {known} were applied before")


def schemas_export_command(
    directory: Annotated[Path, typer.Option("--dir", help="Where to write.")] = Path("schemas"),
    as_json: JsonFlag = False,
) -> None:
    """Write the JSON Schema of every topic's payload (the contract for publishers)."""
    from streams.ops.schemas_export import export_schemas

    written = export_schemas(directory)
    if as_json:
        print_json({"written": [str(path) for path in written]})
        return
    for path in written:
        out.print(f"wrote {path}")


schemas_app.command("export")(schemas_export_command)
