"""`factstream facts DATASET PROJECT [--valid-at T] [--as-of T] [--history] [--json]`.

Live facts (believed now, true now) by default. ``--valid-at T``: true in the user's world
at T, by current belief; ``--as-of T``: what the store believed at transaction time T;
both together combine. ``--history``: every row ever written, with both clocks and what
ended each. Read-only, one tenant per call (streams/store/facts_query.py).
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated

import typer

from streams.cli.console import JsonFlag, database_url_of, out, print_json, usage_error
from streams.cli.params import tenant_id
from streams.cli.tables import fact_table, show_time
from streams.ops.isotime import parse_datetime
from streams.store import facts_query
from streams.store.db import connect, require_schema
from streams.store.facts_query import FactRow


def parse_time(text: str) -> datetime:
    """ISO 8601 (``2026-03-01``, ``2026-03-01T12:00:00Z``); no zone means UTC."""
    try:
        return parse_datetime(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc


async def load(
    database_url: str,
    dataset: str,
    project: str,
    *,
    valid_at: datetime | None,
    as_of: datetime | None,
    full: bool,
) -> list[FactRow]:
    conn = await connect(database_url)
    try:
        await require_schema(conn, database_url)
        if full:
            return await facts_query.history(conn, dataset, project)
        return await facts_query.facts_at(conn, dataset, project, valid_at=valid_at, as_of=as_of)
    finally:
        await conn.close()


def facts_command(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help="The tenant's dataset.", callback=tenant_id)],
    project: Annotated[str, typer.Argument(help="The tenant's project id.", callback=tenant_id)],
    valid_at: Annotated[
        str | None,
        typer.Option("--valid-at", help="True in the user's world at this time (ISO 8601)."),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="What the store believed at this time (ISO 8601)."),
    ] = None,
    full_history: Annotated[
        bool, typer.Option("--history", help="Every row ever written: both clocks.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Print a tenant's facts: live ones, true at a time, believed at a time, or all."""
    if full_history and (as_of is not None or valid_at is not None):
        raise usage_error("--history lists every row; it takes no --as-of or --valid-at")
    at = parse_time(as_of) if as_of is not None else None
    when = parse_time(valid_at) if valid_at is not None else None
    url = database_url_of(ctx)
    rows = asyncio.run(load(url, dataset, project, valid_at=when, as_of=at, full=full_history))
    if as_json:
        print_json([r.as_json() for r in rows], indent=2)
        return
    parts = [f"valid at {show_time(when)}"] if when is not None else []
    parts += [f"as of {show_time(at)}"] if at is not None else []
    what = ", ".join(parts) or ("history" if full_history else "live")
    title = f"facts of {dataset}:{project} ({what}, {len(rows)} rows)"
    out.print(fact_table(rows, title, temporal=at is not None or full_history))
