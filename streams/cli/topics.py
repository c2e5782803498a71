"""`factstream topics create|list`: factstream's topics (streams/kafka/topics.py)."""

from __future__ import annotations

import typer
from rich.table import Table

from streams.cli.console import out, settings_of
from streams.kafka import topics as topics_ops

topics_app = typer.Typer(help="Create and list factstream's topics.", no_args_is_help=True)


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
