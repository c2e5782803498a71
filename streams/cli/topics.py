"""`factstream topics create|list`: factstream's topics (streams/kafka/topics.py)."""

from __future__ import annotations

import typer
from rich.table import Table

from streams.cli.console import JsonFlag, out, print_json, settings_of
from streams.cli.printable import safe_text
from streams.kafka import topics as topics_ops
from streams.kafka.client import require_cluster

topics_app = typer.Typer(help="Create and list factstream's topics.", no_args_is_help=True)


@topics_app.command("create")
def topics_create(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create every topic (idempotent); existing ones get the configured retention."""
    settings = settings_of(ctx)
    require_cluster(settings)
    results = topics_ops.create_topics(settings)
    if as_json:
        print_json(
            {
                "bootstrap": settings.kafka_bootstrap_servers,
                "topics": [{"name": r.name, "action": r.action, "note": r.note} for r in results],
            }
        )
        return
    for result in results:
        line = safe_text(f"{result.action:8} {result.name}")
        if result.note:
            line.append_text(safe_text(f"  {result.note}", "yellow"))
        out.print(line)


@topics_app.command("list")
def topics_list(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Topics under the prefix, with partitions and retention as the broker has them."""
    settings = settings_of(ctx)
    require_cluster(settings)
    infos = topics_ops.describe_topics(settings)
    if as_json:
        rows = [
            {
                "name": i.name,
                "configured": i.configured,
                "exists": i.partitions is not None,
                "partitions": i.partitions,
                "retention_ms": i.retention_ms,
            }
            for i in infos
        ]
        print_json({"bootstrap": settings.kafka_bootstrap_servers, "topics": rows})
        return
    table = Table(title=f"topics ({settings.kafka_bootstrap_servers})")
    for col in ("name", "partitions", "retention", "status"):
        table.add_column(col, overflow="fold")
    for info in infos:
        status = safe_text("ok") if info.partitions is not None else safe_text("missing", "red")
        if not info.configured:
            status = safe_text("not in settings")
        table.add_row(
            info.name,
            "" if info.partitions is None else str(info.partitions),
            topics_ops.format_retention(info.retention_ms) if info.partitions is not None else "",
            status,
        )
    out.print(table)
