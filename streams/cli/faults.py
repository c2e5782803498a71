"""Errors every command can meet, reported in one line instead of a traceback.

The `factstream` group (and the standalone worker command) run each command inside
:func:`reported_faults`: a wrong setting (ConfigError) exits 2, an unusable service
(InfraError: Kafka or Postgres unreachable, a database not migrated) and any other
failure factstream names exits 1, each as ``error: <what happened, where, what to do>``.
Errors nobody foresaw keep their traceback: they are bugs to report.
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from streams.cli.console import say_error
from streams.errors import ConfigError, FactstreamError
from streams.kafka.client import KafkaFailure, explain
from streams.settings import Settings

EXIT_FAILED = 1
EXIT_USAGE = 2


def _settings(ctx: Any) -> Settings | None:
    obj = ctx.find_root().obj if ctx is not None else None
    return obj if isinstance(obj, Settings) else None


def _postgres_message(exc: BaseException, settings: Settings | None) -> str | None:
    if not type(exc).__module__.startswith("asyncpg"):
        return None
    from streams.store.db import redact_url

    url = settings.database_url if settings is not None else None
    where = "Postgres" if url is None else f"Postgres at {redact_url(url.get_secret_value())}"
    if getattr(exc, "sqlstate", None) in ("42P01", "42703"):  # undefined table / column
        return f"{where}: {exc}; is the database migrated? Run `factstream migrate`"
    return f"{where}: {exc}"


def fault_of(exc: BaseException, settings: Settings | None) -> tuple[str, int] | None:
    """(message, exit code) for an error a command may meet; None: let it propagate."""
    if isinstance(exc, ConfigError):
        return str(exc), EXIT_USAGE
    if isinstance(exc, FactstreamError):
        return str(exc), EXIT_FAILED
    if isinstance(exc, KafkaFailure):
        bootstrap = settings.kafka_bootstrap_servers if settings else "the configured cluster"
        return explain(exc, bootstrap), EXIT_FAILED
    if (message := _postgres_message(exc, settings)) is not None:
        return message, EXIT_FAILED
    if isinstance(exc, OSError) and exc.errno != errno.EPIPE:
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", EXIT_FAILED
    if isinstance(exc, TimeoutError):
        return str(exc) or "timed out", EXIT_FAILED
    return None


@contextlib.contextmanager
def reported_faults(ctx: Any) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        if isinstance(exc, typer.TyperException):  # usage errors: typer reports them
            raise
        fault = fault_of(exc, _settings(ctx))
        if fault is None:
            raise
        message, code = fault
        say_error(message)
        raise typer.Exit(code) from exc


class ReportingGroup(TyperGroup):
    """The root group: every subcommand runs inside reported_faults."""

    def invoke(self, ctx: Any) -> Any:
        with reported_faults(ctx):
            return super().invoke(ctx)


class ReportingCommand(TyperCommand):
    """A command run on its own (``python -m streams.cli.worker``), with the same reporting."""

    def invoke(self, ctx: Any) -> Any:
        with reported_faults(ctx):
            return super().invoke(ctx)
