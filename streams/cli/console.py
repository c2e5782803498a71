"""What every command shares: the consoles, the settings of the invocation, errors, parsers."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

import typer
from rich.console import Console

from streams.settings import Settings, load_settings

# Pipes and CI logs: a fixed width, so tables do not fold at 80 columns (as streams/cli/main.py).
_width = None if sys.stdout.isatty() else 160
out = Console(soft_wrap=True, width=_width)
err = Console(stderr=True, soft_wrap=True, width=_width)


def settings_of(ctx: typer.Context) -> Settings:
    """The settings of this invocation (read from the environment on first use, once)."""
    root = ctx.find_root()
    if not isinstance(root.obj, Settings):
        root.obj = load_settings()
    return root.obj


def fail(message: object, code: int = 1) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", markup=True, highlight=False)
    return typer.Exit(code=code)


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
