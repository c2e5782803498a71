"""`factstream demo` (and `make demo`): the whole system on the bundled conversations."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated

import typer
from rich.text import Text

from streams.api.app import create_app
from streams.cli.console import out, settings_of
from streams.cli.playground import run_console
from streams.cli.printable import one_line, safe_text
from streams.cli.tables import drops_table, fact_table, lag_table, ledger_table
from streams.demo.report import DemoResults
from streams.demo.run import run_demo
from streams.domain.time import valid_at
from streams.settings import Settings


def print_results(results: DemoResults) -> None:
    now = datetime.now(UTC)
    out.print(ledger_table(results.ledger))
    for (dataset, project), rows in results.histories.items():
        live = [
            r for r in rows
            if r.invalid_at is None and valid_at(r.valid_from, r.valid_until, r.stated_at, now)
        ]  # fmt: skip
        title = f"facts of {dataset}:{project} (history: {len(rows)} rows, {len(live)} live)"
        out.print(fact_table(rows, title, temporal=True))
        out.print(safe_text("  live now: " + "; ".join(" ".join(r.triple) for r in live)))
    out.print(drops_table(results.drops))
    out.print(lag_table(results.lag))
    for r in results.failed:
        why = r["semantic_last_error"] or r["last_error"]
        what = one_line(f"episode {r['episode_id']} ended failed: ")
        out.print(Text.assemble((what, "red"), one_line(why)))


class Provider(StrEnum):
    AUTO = "auto"
    REPLAY = "replay"
    GEMINI = "gemini"
    OPENAI = "openai"


def demo_console(settings: Settings, group_of: Callable[[str], str]) -> None:
    """The Playground on the demo's database, topics and consumer groups."""
    prefix = settings.topic_prefix
    out.print(
        Text(f"the workers keep running: publish more with FACTSTREAM_TOPIC_PREFIX={prefix}"
             f" FACTSTREAM_DATABASE_URL=... factstream publish FILE"), highlight=False,
    )  # fmt: skip
    run_console(
        settings, lambda: create_app(settings, group_of=group_of), "Playground on the demo's data"
    )


def demo_command(
    ctx: typer.Context,
    provider: Annotated[
        Provider,
        typer.Option(
            help="auto: an OpenAI-compatible server when FACTSTREAM_MODEL_PROVIDER=openai,"
            " Gemini when GEMINI_API_KEY is set, else the bundled cassette;"
            " or replay | gemini | openai."
        ),
    ] = Provider.AUTO,
    record_cassette: Annotated[
        bool,
        typer.Option(
            "--record-cassette", help="Re-record the bundled cassette from the scripted demo model."
        ),
    ] = False,
    db_name: Annotated[
        str, typer.Option(help="Database created fresh on the configured server (dropped first).")
    ] = "factstream_demo",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for every episode.")] = 150.0,
    keep_topics: Annotated[
        bool, typer.Option("--keep-topics", help="Keep this run's topics and groups.")
    ] = False,
    console: Annotated[
        bool,
        typer.Option(
            "--console",
            help="Then keep the Playground up on the demo's data (workers running) until"
            " Ctrl-C; it prints its URL.",
        ),
    ] = False,
) -> None:
    """Run the whole pipeline on the bundled conversations and print the resulting facts."""
    code = run_demo(
        settings_of(ctx), out, print_results, provider=provider.value, record=record_cassette,
        db_name=db_name, timeout_s=timeout, keep_topics=keep_topics,
        playground=demo_console if console else None,
    )  # fmt: skip
    raise typer.Exit(code)
