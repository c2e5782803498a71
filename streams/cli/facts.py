"""`factstream facts DATASET PROJECT [--as-of T] [--history] [--json]`: read the result.

Live facts by default; ``--history`` adds every ended row with its valid time, its
transaction time and what ended it; ``--as-of T`` shows what the store believed at
transaction time T. Read-only, one tenant per call.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from typing import Annotated

import typer
from rich.console import Console

from streams.cli.console import settings_of
from streams.cli.tables import fact_table, show_time
from streams.store import facts_query
from streams.store.db import connect
from streams.store.facts_query import FactRow


def parse_time(text: str) -> datetime:
    """ISO 8601 (``2026-03-01``, ``2026-03-01T12:00:00Z``); no zone means UTC."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise typer.BadParameter(f"not an ISO 8601 time: {text!r}") from exc
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


async def load(
    database_url: str, dataset: str, project: str, *, at: datetime | None, full: bool
) -> list[FactRow]:
    conn = await connect(database_url)
    try:
        if at is not None:
            return await facts_query.as_of(conn, dataset, project, at)
        if full:
            return await facts_query.history(conn, dataset, project)
        return await facts_query.live_facts(conn, dataset, project)
    finally:
        await conn.close()


def facts_command(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help="The tenant's dataset.")],
    project: Annotated[str, typer.Argument(help="The tenant's project id.")],
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="What was known at this transaction time (ISO 8601)."),
    ] = None,
    full_history: Annotated[
        bool, typer.Option("--history", help="Add ended facts: valid and transaction time.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON array on stdout.")] = False,
) -> None:
    """Print a tenant's facts: live ones, or the whole history, or as of a time."""
    if as_of is not None and full_history:
        raise typer.BadParameter("--as-of and --history do not combine; pick one")
    at = parse_time(as_of) if as_of is not None else None
    url = settings_of(ctx).require_database_url()
    rows = asyncio.run(load(url, dataset, project, at=at, full=full_history))
    if as_json:
        print(json.dumps([r.as_json() for r in rows], indent=2))
        return
    what = f"as of {show_time(at)}" if at is not None else "history" if full_history else "live"
    title = f"facts of {dataset}:{project} ({what}, {len(rows)} rows)"
    width = None if sys.stdout.isatty() else 160
    Console(soft_wrap=True, width=width).print(
        fact_table(rows, title, temporal=at is not None or full_history)
    )
