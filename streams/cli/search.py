"""`factstream search DATASET PROJECT QUERY [--valid-at T] [-k N] [--include-ended]
[--min-confidence X] [--include-untrusted] [--json]`: the read API's search, from a shell.

The query is embedded with the configured embedder (FACTSTREAM_MODEL_PROVIDER) and fused
with full-text rank (streams/api/search.py). Stored text is printed as text, never as
markup.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from streams.api.jsonable import search_json
from streams.api.search import SearchQuery, SearchResult, search
from streams.cli.console import JsonFlag, err, out, print_json, settings_of, usage_error
from streams.cli.facts import parse_time
from streams.cli.params import tenant_id
from streams.cli.printable import one_line, safe_text
from streams.model.loader import build_models
from streams.settings import Settings
from streams.store.db import create_pool, ready_database


async def run_search(
    settings: Settings, dataset: str, project: str, query: SearchQuery
) -> SearchResult:
    embedder = build_models(settings).embedder
    url = settings.require_database_url()
    # Not migrated, or migrated for vectors of another size: the one line every command
    # prints (streams/cli/faults.py), not a query's error after the fact.
    await ready_database(url, embedding_dim=settings.embedding_dim)
    pool = await create_pool(url, min_size=1, max_size=2)
    try:
        return await search(pool, embedder, dataset, project, query)
    finally:
        await pool.close()


def results_table(title: str, result: SearchResult) -> Table:
    table = Table(title=title)
    for column in ("score", "vector", "text", "id", "fact", "quote", "episode", "said"):
        table.add_column(column, overflow="fold")
    for hit in result.hits:
        f = hit.fact
        vector = "" if hit.vector_rank is None else f"#{hit.vector_rank} ({hit.similarity:.3f})"
        text = "" if hit.text_rank is None else f"#{hit.text_rank}"
        said = f.stated_at.strftime("%Y-%m-%d")
        table.add_row(f"{hit.score:.4f}", vector, text, str(f.id), safe_text(" ".join(f.triple)),
                      safe_text(f.source_quote), safe_text(hit.said_in), said)  # fmt: skip
    return table


def search_command(
    ctx: typer.Context,
    dataset: Annotated[str, typer.Argument(help="The tenant's dataset.", callback=tenant_id)],
    project: Annotated[str, typer.Argument(help="The tenant's project id.", callback=tenant_id)],
    query: Annotated[str, typer.Argument(help="What to look for, in any language.")],
    valid_at: Annotated[
        str | None, typer.Option("--valid-at", help="True at this time (ISO 8601); default now.")
    ] = None,
    k: Annotated[int | None, typer.Option("-k", "--k", help="How many results.")] = None,
    include_ended: Annotated[
        bool, typer.Option("--include-ended", help="Also facts whose valid time ended.")
    ] = False,
    min_confidence: Annotated[
        float | None,
        typer.Option(help="Lowest confidence shown (default FACTSTREAM_RETRIEVAL_MIN_CONFIDENCE)."),
    ] = None,
    include_untrusted: Annotated[
        bool, typer.Option("--include-untrusted", help="Also facts whose quote did not check out.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Search a tenant's memory: embedding similarity fused with full-text rank."""
    settings = settings_of(ctx)
    if not query.strip():
        raise usage_error("give the text to search for")
    if k is not None and not 1 <= k <= settings.search_max_k:
        raise usage_error(f"-k is between 1 and {settings.search_max_k}")
    if min_confidence is not None and not 0 <= min_confidence <= 1:
        raise usage_error("--min-confidence is between 0 and 1")
    when = parse_time(valid_at) if valid_at is not None else None
    given = {} if min_confidence is None else {"min_confidence": min_confidence}
    try:
        request = SearchQuery.of(
            settings, query.strip(), k=k or settings.search_default_k, valid_at=when,
            include_ended=include_ended, include_untrusted=include_untrusted, **given,
        )  # fmt: skip
    except ValueError as exc:  # a NUL, a query over 2,000 characters
        raise usage_error(str(exc)) from exc
    # An unusable Postgres or model provider is reported by streams/cli/faults.py: one
    # line naming the address, exit 1 (2 for a setting to fix: the provider, the size).
    result = asyncio.run(run_search(settings, dataset, project, request))
    if as_json:
        print_json(search_json(request.text, result), indent=2)
        return
    if result.embedding_error:
        why = one_line(result.embedding_error)
        err.print(Text.assemble("vector half unavailable, text rank only: ", why))
    where = "valid now" if when is None else f"valid at {when.isoformat()}"
    title = f"search {dataset}:{project} ({where}, {len(result.hits)} results)"
    out.print(results_table(title, result))
    out.print(Text.assemble("query: ", one_line(request.text)))
