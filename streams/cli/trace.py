"""`factstream trace EPISODE [--dataset D --project P] [--full] [--json]`: one episode's path.

Renders :func:`streams.store.traces.load_traces`: the ledger (status per stage, retries,
last errors, the claim), every model request and response (truncated unless ``--full``),
what the guards mended silently (a type read as THING, a predicate normalised, a cap, a
confidence clamped, a date moved, a kind decided, the user added), what each stage
dropped and why, the facts the episode added and the facts it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from streams.cli.console import (
    JsonFlag,
    database_url_of,
    fail,
    out,
    print_json,
    settings_of,
    usage_error,
)
from streams.cli.params import tenant_id
from streams.cli.printable import safe_text
from streams.domain.mends import Caps
from streams.store.db import ready_database
from streams.store.traces import EpisodeTrace, load_traces

PREVIEW_CHARS = 600
_STAGE_ORDER = ("extract", "resolve", "dedup", "judge", "write")


def _time(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return "" if value is None else str(value)


def _json(value: Any, full: bool) -> str:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):  # a connection without the jsonb codec
            value = json.loads(value)
    if full:  # everything, readable
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    text = json.dumps(value, ensure_ascii=False, default=str)  # compact: a few folded lines
    if len(text) <= PREVIEW_CHARS:
        return text
    return text[:PREVIEW_CHARS] + f"\n… {len(text) - PREVIEW_CHARS} more characters (--full)"


def ledger_table(trace: EpisodeTrace) -> Table:
    row = trace.ledger
    table = Table(title="ledger", title_justify="left")
    for column in ("stage", "status", "retries", "last error / claim"):
        table.add_column(column, overflow="fold")
    table.add_row(
        "summary", row["status"], str(row["retry_count"]), safe_text(row["last_error"] or "")
    )
    table.add_row(
        "extraction", row["semantic_status"], str(row["semantic_retry_count"]),
        safe_text(row["semantic_last_error"] or ""),
    )  # fmt: skip
    claim = (
        f"claimed by {row['claimed_by']} at {_time(row['claimed_at'])}"
        if row["claimed_at"] is not None
        else "no claim held" + (f" (last: {row['claimed_by']})" if row["claimed_by"] else "")
    )
    table.add_row("claim", "", "", safe_text(claim))
    return table


def call_panels(trace: EpisodeTrace, full: bool) -> Iterator[Panel]:
    for number, call in enumerate(trace.calls, 1):
        tokens = (
            f"tokens {call['input_tokens']}→{call['output_tokens']}"
            if call["input_tokens"] is not None
            else "tokens -"
        )
        title = (
            f"#{number} {call['stage']} · {call['kind']} · {call['model']} · "
            f"{call['latency_ms']:.0f} ms · {tokens} · attempts {call['attempts']}"
        )
        parts: list[RenderableType] = [
            Text("request", style="bold"),
            safe_text(_json(call["request"], full)),
        ]
        if call["error"]:
            parts += [Text("error", style="bold red"), safe_text(call["error"])]
        else:
            parts += [Text("response", style="bold"), safe_text(_json(call["response"], full))]
        # A str title would be read as markup by Panel: the model name is stored text.
        yield Panel(Group(*parts), title=safe_text(title), title_align="left", expand=True)


def drops_tables(trace: EpisodeTrace) -> Iterator[Table]:
    by_stage: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for drop in trace.drops:
        by_stage[drop["stage"]].append(drop)
    rank = {stage: i for i, stage in enumerate(_STAGE_ORDER)}
    for stage in sorted(by_stage, key=lambda s: rank.get(s, len(rank))):
        table = Table(title=f"dropped by {stage} ({len(by_stage[stage])})", title_justify="left")
        columns = ("reason", "subject", "predicate", "object", "detail")
        for column in columns:
            table.add_column(column, overflow="fold")
        for d in by_stage[stage]:
            table.add_row(*(safe_text(d[c] or "") for c in columns))
        yield table


def mends_table(trace: EpisodeTrace) -> Table:
    table = Table(title=f"mended by guard ({len(trace.mends)})", title_justify="left")
    for title in ("what", "entity / claim", "model gave", "stored", "why"):
        table.add_column(title, overflow="fold")
    for m in trace.mends:
        table.add_row(*(safe_text(m[c]) for c in ("what", "item", "given", "stored", "why")))
    return table


def added_table(trace: EpisodeTrace) -> Table:
    table = Table(title=f"facts added ({len(trace.facts_added)})", title_justify="left")
    for column in (
        "id",
        "subject",
        "predicate",
        "object",
        "kind",
        "conf",
        "said",
        "valid from",
        "valid until",
        "now",
        "trust",
    ):
        table.add_column(column, overflow="fold")
    for f in trace.facts_added:
        now = "live" if f["invalid_at"] is None else f"ended: {f['invalid_reason']}"
        if f["invalid_at"] is None and f["copy_of"] is not None:
            by = "" if f["ended_by"] is None else f" by #{f['ended_by']}"
            now = f"copy of #{f['copy_of']}, valid time ends: {f['end_reason']}{by}"
        elif f["invalid_at"] is None and f["valid_until"] is not None:
            now = "history (valid until set)"
        # Not trusted to end another fact: why (its quote, or no confidence given).
        trust = (
            "trusted" if f["untrusted_reason"] is None else f"untrusted: {f['untrusted_reason']}"
        )
        table.add_row(
            str(f["id"]), *map(safe_text, (f["subject"], f["predicate"], f["object"], f["kind"])),
            f"{f['confidence']:.2f}", _time(f["stated_at"]), _time(f["valid_from"]),
            _time(f["valid_until"]), safe_text(now), safe_text(trust),
        )  # fmt: skip
    return table


def ended_table(trace: EpisodeTrace) -> Table:
    table = Table(title=f"facts ended ({len(trace.facts_ended)})", title_justify="left")
    for column in ("id", "subject", "predicate", "object", "why", "at", "by"):
        table.add_column(column, overflow="fold")
    for f in trace.facts_ended:
        table.add_row(
            str(f["id"]), *map(safe_text, (f["subject"], f["predicate"], f["object"])),
            safe_text(f["invalid_reason"] or ""), _time(f["invalid_at"]), f"#{f['invalidated_by']}",
        )  # fmt: skip
    return table


def render(trace: EpisodeTrace, full: bool) -> Iterator[RenderableType]:
    row = trace.ledger
    yield safe_text(
        f"episode {trace.episode_id} of {trace.dataset}:{trace.project_id}"
        f" (session {row['session_id']}, window {row['from_seq']}..{row['to_seq']})",
        "bold",
    )
    yield ledger_table(trace)
    yield Text(f"model calls ({len(trace.calls)})", style="bold")
    yield from call_panels(trace, full)
    yield mends_table(trace) if trace.mends else Text("nothing mended by guard")
    if trace.drops:
        yield from drops_tables(trace)
    else:
        yield Text("nothing dropped")
    yield added_table(trace)
    yield ended_table(trace)


def trace_command(
    ctx: typer.Context,
    episode: Annotated[str, typer.Argument(help="The episode id.")],
    dataset: Annotated[
        str | None, typer.Option(help="Only this tenant's dataset.", callback=tenant_id)
    ] = None,
    project: Annotated[
        str | None, typer.Option(help="Only this tenant's project id.", callback=tenant_id)
    ] = None,
    full: Annotated[bool, typer.Option("--full", help="Do not truncate requests.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Why (not) this fact: the episode's ledger, model calls, mends, drops, facts added/ended.

    --json prints an array of traces (one per tenant holding the episode id); exit code 1
    when no tenant holds it.
    """
    if (dataset is None) != (project is None):
        raise usage_error("--dataset and --project go together")
    url = database_url_of(ctx)
    caps = Caps.of(settings_of(ctx))
    asyncio.run(ready_database(url))
    traces = asyncio.run(load_traces(url, episode, dataset, project, caps))
    if as_json:
        print_json([t.__dict__ for t in traces], indent=2)
        if not traces:
            raise typer.Exit(1)
        return
    if not traces:
        raise fail(f"no episode {episode!r}" + (f" in {dataset}:{project}" if dataset else ""))
    if len(traces) > 1:
        tenants = ", ".join(f"{t.dataset}:{t.project_id}" for t in traces)
        out.print(f"{len(traces)} tenants hold episode {episode}: {tenants}", style="yellow")
    for trace in traces:
        for renderable in render(trace, full):
            out.print(renderable, soft_wrap=False)  # fold long JSON inside panels
