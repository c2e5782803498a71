"""The `factstream` command line: one line per command, the commands in their modules.

Every command is thin: it parses, calls streams.ops / streams.dev / streams.demo, and
prints with streams/cli/console.py (settings are read once there, by ``settings_of``).
The group runs each command inside streams/cli/faults.py, which turns an unusable service
or a wrong setting into one line and an exit code.
To add a command, write it in its own module here and register it below.
"""

from __future__ import annotations

import logging
import os
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from streams.cli.demo import demo_command
from streams.cli.dev import dev_app
from streams.cli.dlq import dlq_app
from streams.cli.facts import facts_command
from streams.cli.faults import ReportingGroup
from streams.cli.lag import lag_command
from streams.cli.migrate import migrate_command, schemas_app
from streams.cli.playground import console_command
from streams.cli.publish import publish_command
from streams.cli.replay import replay_command
from streams.cli.search import search_command
from streams.cli.sweep import sweep_command
from streams.cli.topics import topics_app
from streams.cli.trace import trace_command
from streams.cli.worker import worker_command
from streams.runtime import jsonlog

app = typer.Typer(
    name="factstream",
    help="Chat episodes in, bi-temporal facts out: workers and operator commands.",
    cls=ReportingGroup,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        try:
            number = version("factstream")
        except PackageNotFoundError:  # run from a checkout that was never installed
            number = "unknown (not installed)"
        print(f"factstream {number}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Chat episodes in, bi-temporal facts out."""
    ctx.obj = None  # settings are read lazily, once, by console.settings_of()
    # Operator commands log warnings as JSON lines on stderr; librdkafka's own lines only
    # at DEBUG (they report an unreachable broker in one line themselves). Long-running
    # commands (worker, sweep, lag --serve) configure INFO logging again.
    level = os.environ.get("FACTSTREAM_LOG_LEVEL", "WARNING").upper()
    numeric = logging.getLevelName(level)
    numeric = numeric if isinstance(numeric, int) else logging.WARNING
    jsonlog.configure(
        numeric, librdkafka_level=numeric if numeric <= logging.DEBUG else logging.CRITICAL
    )


app.add_typer(dev_app, name="dev")
app.add_typer(topics_app, name="topics")
app.command("migrate")(migrate_command)
app.add_typer(schemas_app, name="schemas")
app.command("worker")(worker_command)
app.command("publish")(publish_command)
app.command("replay")(replay_command)
app.command("lag")(lag_command)
app.add_typer(dlq_app, name="dlq")
app.command("sweep")(sweep_command)
app.command("facts")(facts_command)
app.command("trace")(trace_command)
app.command("search")(search_command)
app.command("console")(console_command)
app.command("demo")(demo_command)
