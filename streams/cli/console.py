"""What every command shares: the consoles, the settings of the invocation, errors, parsers.

``out`` and ``err`` print stored and received text literally (streams/cli/printable.py);
``print_json`` writes one JSON document to stdout for ``--json``.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.text import Text

from streams.cli.printable import SafeConsole, one_line
from streams.errors import ConfigError
from streams.runtime.jsonlog import dumps
from streams.settings import Settings, load_settings

# Pipes and CI logs: a fixed width, so tables do not fold at 80 columns, unless COLUMNS
# names one (a terminal's own width wins).
_width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 160
out = SafeConsole(soft_wrap=True, width=_width)
err = SafeConsole(stderr=True, soft_wrap=True, width=_width)

# `--json` of every command that prints data.
JsonFlag = Annotated[
    bool, typer.Option("--json", help="Print one JSON document on stdout instead of tables.")
]


def settings_of(ctx: typer.Context) -> Settings:
    """The settings of this invocation (read from the environment on first use, once)."""
    root = ctx.find_root()
    if isinstance(root.obj, Settings):
        return root.obj
    try:
        settings = load_settings()
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {describe_settings_error(exc)}") from exc
    root.obj = settings
    return settings


def describe_settings_error(exc: ValidationError) -> str:
    """``FACTSTREAM_TOPIC_PARTITIONS: Input should be a valid integer (got 'abc')``; ..."""
    problems = []
    for error in exc.errors(include_url=False):
        name = "FACTSTREAM_" + "_".join(str(part) for part in error["loc"]).upper()
        got = f" (got {error['input']!r})" if isinstance(error.get("input"), str) else ""
        problems.append(f"{name}: {error['msg']}{got}")
    return "; ".join(problems)


def database_url_of(ctx: typer.Context) -> str:
    settings = settings_of(ctx)
    url = "" if settings.database_url is None else settings.database_url.get_secret_value()
    if not url.strip():  # unset, or set to nothing
        raise ConfigError(
            "no database configured: set FACTSTREAM_DATABASE_URL (or run `factstream dev up`"
            " and export what it prints)"
        )
    return url


def say_error(message: object) -> None:
    """``error: <message>`` on stderr, on one line."""
    err.print(Text.assemble(("error: ", "red"), one_line(message)))


def fail(message: object, code: int = 1) -> typer.Exit:
    """Print ``error: <message>`` and return the Exit to raise (1: the command failed)."""
    say_error(message)
    return typer.Exit(code=code)


def usage_error(message: object) -> typer.BadParameter:
    """A wrong argument or combination of them: printed with the usage line, exit code 2."""
    return typer.BadParameter(one_line(message))


def print_json(value: Any, *, indent: int | None = None) -> None:
    """One JSON document on stdout (control characters escaped, see jsonlog.dumps)."""
    sys.stdout.write(dumps(value, indent=indent, default=str) + "\n")
    sys.stdout.flush()


def parse_partitions(text: str | None) -> list[int] | None:
    """``"0,1,5"`` -> [0, 1, 5]; None -> every partition."""
    if text is None or not text.strip():
        return None
    try:
        return sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        raise typer.BadParameter(f"--partitions wants numbers like 0,1,5, not {text!r}") from exc


def parse_record_id(text: str) -> tuple[int, int]:
    """``"3/17"`` (partition/offset, as `dlq list` prints it) -> (3, 17)."""
    try:
        partition, offset = (int(x) for x in text.split("/"))
    except ValueError as exc:
        raise typer.BadParameter(f"want PARTITION/OFFSET like 3/17, not {text!r}") from exc
    return partition, offset


def fmt_time(timestamp_ms: int) -> str:
    if timestamp_ms <= 0:
        return "-"
    return datetime.fromtimestamp(timestamp_ms / 1000, UTC).isoformat(timespec="seconds")
