"""A tenant's whole fact table (live and history) in a form tests can compare.

Ids and transaction times (created_at, invalid_at) are left out, so two runs, or two
tenants fed the same episodes, compare equal when they hold the same knowledge. What
ended a row is kept as the sentence of the row that ended it: in transaction time
(``by``, with ``state`` its reason) and in valid time (``end_by``, with ``end`` its
reason, for the copies that carry a fact's valid end).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

_ROWS = """
SELECT f.subject, f.predicate, f.object, f.kind, f.confidence, f.episode_id, f.valid_from,
       f.valid_until, f.invalid_reason, f.end_reason, f.untrusted_reason,
       f.invalid_at IS NULL AND f.valid_until IS NOT NULL AND f.valid_until <= now() AS expired,
       b.subject || ' ' || b.predicate || ' ' || b.object AS ended_by,
       e.subject || ' ' || e.predicate || ' ' || e.object AS valid_end_by
FROM facts f LEFT JOIN facts b ON b.id = f.invalidated_by LEFT JOIN facts e ON e.id = f.ended_by
WHERE f.dataset = $1 AND f.project_id = $2
"""


@dataclass(frozen=True)
class Row:
    """One fact row. ``state``: live, expired (believed, past its valid_until), or the
    reason it was invalidated (superseded, closed, cascade, renewed); ``by``: the sentence of
    the row that invalidated it. ``end``: why its valid time ends when a later statement
    ended it (superseded, closed, cascade), ``end_by``: the sentence of that statement."""

    subject: str
    predicate: str
    object: str
    episode: str
    state: str = "live"
    by: str | None = None
    kind: str = "relationship"
    confidence: float = 0.9
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    end: str | None = None
    end_by: str | None = None
    untrusted: str | None = None  # why it may never end another fact (None: trusted)

    def sort_key(self) -> tuple[str, ...]:
        return (
            self.subject, self.predicate, self.object, self.episode, self.state, self.by or "",
            self.end or "",
        )  # fmt: skip


def table(rows: list[Row]) -> list[Row]:
    """Rows in the order fact_table returns them, for writing expected tables freely."""
    return sorted(rows, key=Row.sort_key)


async def fact_table(conn: Any, dataset: str, project_id: str) -> list[Row]:
    """Every row the tenant ever had, live and history, sorted."""
    records = await conn.fetch(_ROWS, dataset, project_id)
    return table([_row(r) for r in records])


def _row(r: Any) -> Row:
    return Row(
        subject=r["subject"], predicate=r["predicate"], object=r["object"],
        episode=r["episode_id"],
        state=r["invalid_reason"] or ("expired" if r["expired"] else "live"),
        by=r["ended_by"], kind=r["kind"], confidence=round(float(r["confidence"]), 3),
        valid_from=r["valid_from"], valid_until=r["valid_until"],
        end=r["end_reason"], end_by=r["valid_end_by"], untrusted=r["untrusted_reason"],
    )  # fmt: skip


async def model_calls(conn: Any, dataset: str, project_id: str) -> Counter[tuple[str, str, str]]:
    """llm_calls rows per (episode, stage, kind)."""
    records = await conn.fetch(
        "SELECT episode_id, stage, kind, count(*) AS n FROM llm_calls"
        " WHERE dataset = $1 AND project_id = $2 GROUP BY 1, 2, 3",
        dataset, project_id,
    )  # fmt: skip
    return Counter({(r["episode_id"], r["stage"], r["kind"]): r["n"] for r in records})


async def judge_requests(conn: Any, dataset: str, project_id: str) -> dict[str, list[Any]]:
    """The pairs each episode's judge call was asked about, as (candidate, existing)."""
    records = await conn.fetch(
        "SELECT episode_id, request FROM llm_calls WHERE dataset = $1 AND project_id = $2"
        " AND kind = 'judge' ORDER BY id",
        dataset, project_id,
    )  # fmt: skip
    return {
        r["episode_id"]: [(p["candidate"], p["existing"]) for p in r["request"]["pairs"]]
        for r in records
    }


async def drops(conn: Any, dataset: str, project_id: str) -> list[tuple[str, str, str, str]]:
    """What was dropped, as (episode, stage, reason, sentence), in order."""
    records = await conn.fetch(
        "SELECT episode_id, stage, reason, subject, predicate, object FROM fact_drops"
        " WHERE dataset = $1 AND project_id = $2 ORDER BY id",
        dataset, project_id,
    )  # fmt: skip
    return [
        (r["episode_id"], r["stage"], r["reason"], f"{r['subject']} {r['predicate']} {r['object']}")
        for r in records
    ]


async def entities(conn: Any, dataset: str, project_id: str) -> list[tuple[str, str]]:
    records = await conn.fetch(
        "SELECT name, type FROM entities WHERE dataset = $1 AND project_id = $2 ORDER BY 1, 2",
        dataset, project_id,
    )  # fmt: skip
    return [(r["name"], r["type"]) for r in records]
