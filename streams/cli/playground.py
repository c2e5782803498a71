"""`factstream console [--group-prefix P]`: the Playground and the read API on one server.

Binds FACTSTREAM_API_BIND_ADDRESS:FACTSTREAM_API_PORT (127.0.0.1:8765); any other address
needs FACTSTREAM_API_TOKEN. Runs until Ctrl-C (SIGINT) or SIGTERM.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Annotated

import typer
from rich.text import Text
from starlette.applications import Starlette

from streams.api.app import create_app, default_group, serve
from streams.cli.console import fail, out, settings_of
from streams.errors import ConfigError
from streams.settings import Settings
from streams.store.db import ready_database


def announce(settings: Settings, what: str) -> Callable[[str], None]:
    """Print where the Playground answers, with the token in the URL when there is one."""

    def ready(url: str) -> None:
        token = settings.api_token.get_secret_value() if settings.api_token else None
        shown = f"{url}/?token={token}" if token else f"{url}/"
        out.print(Text(f"{what}: {shown}  (Ctrl-C stops it)"), highlight=False)
        out.print(Text(f"read API: {url}/api/tenants/DATASET/PROJECT/facts"), highlight=False)

    return ready


def check_database(url: str, embedding_dim: int) -> None:
    """Refuse to serve a database no page could read: unreachable, not migrated, or
    migrated for vectors of another size than the search embedder makes. Raised for
    streams/cli/faults.py to print in one line (exit 1; 2 for the size, a setting)."""
    asyncio.run(ready_database(url, embedding_dim=embedding_dim))


def check_port(host: str, port: int) -> None:
    """One clear line when the port is taken, before the app starts (a bind failing inside
    uvicorn comes after the app's startup, and tears it down with a traceback)."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
        family, _, _, _, address = infos[0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            probe.bind(address)
    except OSError as exc:
        raise fail(
            f"the Playground could not listen on {host}:{port} ({exc}); free the port or"
            " set FACTSTREAM_API_PORT"
        ) from exc


def run_console(
    settings: Settings, app_of: Callable[[], Starlette], what: str = "Playground"
) -> None:
    try:
        app = app_of()
    except ConfigError as exc:
        raise fail(exc, code=2) from exc
    check_database(settings.require_database_url(), settings.embedding_dim)
    check_port(settings.api_bind_address, settings.api_port)
    try:
        serve(settings, app, announce(settings, what))
    except (OSError, SystemExit) as exc:  # uvicorn exits when it cannot bind (port taken)
        where = f"{settings.api_bind_address}:{settings.api_port}"
        raise fail(
            f"the Playground could not listen on {where} ({exc}); free the port or"
            " set FACTSTREAM_API_PORT"
        ) from exc


def console_command(
    ctx: typer.Context,
    group_prefix: Annotated[
        str | None,
        typer.Option(help="Lag of the groups <PREFIX><stage> (workers run with --group)."),
    ] = None,
    host: Annotated[
        str | None, typer.Option(help="Bind address (FACTSTREAM_API_BIND_ADDRESS).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=0, max=65535, help="Port (FACTSTREAM_API_PORT); 0: any free."),
    ] = None,
) -> None:
    """Serve the Playground and the read API: episodes, traces, memory, search, pipeline."""
    settings = settings_of(ctx)
    overrides = {k: v for k, v in (("api_bind_address", host), ("api_port", port)) if v is not None}
    settings = settings.model_copy(update=overrides) if overrides else settings
    settings.require_database_url()
    group_of = default_group if group_prefix is None else (lambda s: f"{group_prefix}{s}")
    run_console(settings, lambda: create_app(settings, group_of=group_of))
