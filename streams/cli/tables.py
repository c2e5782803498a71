"""Rich tables of what the commands print: facts, lag, the ledger, drops."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from rich.table import Table
from rich.text import Text

from streams.cli.printable import safe_text
from streams.ops.lag import StageLag
from streams.store.facts_query import FactRow


def show_time(value: datetime | None) -> str:
    return "" if value is None else value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def fact_table(rows: Sequence[FactRow], title: str, *, temporal: bool) -> Table:
    table = Table(title=title)
    columns = ["id", "subject", "predicate", "object", "said", "valid from", "valid until"]
    columns += ["ends because"]
    if temporal:
        columns += ["created", "retired", "reason", "by"]
    untrusted = any(r.untrusted_reason is not None for r in rows)
    if untrusted:
        columns += ["untrusted because"]
    for column in columns:
        table.add_column(column, overflow="fold")
    for r in rows:
        cells: list[str | Text] = [str(r.id), *map(safe_text, (r.subject, r.predicate, r.object))]
        cells += [show_time(r.stated_at), show_time(r.valid_from), show_time(r.valid_until)]
        cells.append(safe_text(_end(r)))
        if temporal:
            by = "" if r.invalidated_by is None else f"#{r.invalidated_by}"
            reason = safe_text(r.invalid_reason or "")
            cells += [show_time(r.created_at), show_time(r.invalid_at), reason, by]
        if untrusted:
            cells.append(safe_text(r.untrusted_reason or ""))
        table.add_row(*cells)
    return table


def _end(row: FactRow) -> str:
    """Why the row's valid time ends: the user said so, or which row ended it."""
    if row.end_reason is None:
        return "said so" if row.valid_until is not None else ""
    return row.end_reason + ("" if row.ended_by is None else f" by #{row.ended_by}")


def lag_table(report: list[StageLag], all_partitions: bool = False) -> Table:
    table = Table(title="consumer lag (lag = log-end - committed; '-' = never committed)")
    for col in ("stage", "group", "topic", "partition", "committed", "log-end", "lag"):
        table.add_column(
            col, justify="right" if col in ("partition", "committed", "log-end", "lag") else "left"
        )
    for s in report:
        if s.error is not None:
            table.add_row(s.stage, s.group, s.topic, "", "", "", safe_text(s.error, "red"))
            continue
        shown = [
            p for p in s.partitions if all_partitions or p.log_end > 0 or p.committed is not None
        ]
        for p in shown:
            committed = "-" if p.committed is None else str(p.committed)
            table.add_row(
                s.stage, s.group, s.topic, str(p.partition), committed, str(p.log_end), str(p.lag)
            )
        hidden = len(s.partitions) - len(shown)
        notes = [f"{hidden} empty hidden"] if hidden else []
        # A mistyped or deleted group reads as "never committed": say so once per stage.
        if all(p.committed is None for p in s.partitions):
            notes.append("group never committed here")
        note = f" ({'; '.join(notes)})" if notes else ""
        # The group is repeated here because every partition row may be hidden.
        table.add_row(
            safe_text(s.stage, "bold"),
            s.group,
            f"total{note}",
            "",
            "",
            "",
            safe_text(s.lag, "bold"),
            end_section=True,
        )
    total = sum(s.lag for s in report)
    table.add_row(safe_text("all stages", "bold"), "", "", "", "", "", safe_text(total, "bold"))
    return table


def ledger_table(rows: list[Any]) -> Table:
    table = Table(title="episodes (the ledger)")
    for column in ("tenant", "episode", "summary", "extraction", "note"):
        table.add_column(column, overflow="fold")
    for r in rows:
        note = r["semantic_last_error"] or r["last_error"] or ""
        table.add_row(
            *map(safe_text, (f"{r['dataset']}:{r['project_id']}", r["episode_id"])),
            r["status"],
            r["semantic_status"],
            safe_text(note),
        )
    return table


def drops_table(rows: list[Any]) -> Table:
    table = Table(title=f"dropped on the way ({len(rows)}; `factstream trace EPISODE` for more)")
    for column in ("tenant", "episode", "stage", "reason", "claim"):
        table.add_column(column, overflow="fold")
    for r in rows:
        claim = " ".join(x for x in (r["subject"], r["predicate"], r["object"]) if x)
        tenant = f"{r['dataset']}:{r['project_id']}"
        table.add_row(*map(safe_text, (tenant, r["episode_id"], r["stage"], r["reason"], claim)))
    return table
