"""Reading the bi-temporal fact table: live facts, full history, and as-of transaction time.

Two clocks (seed "The bi-temporal model"): valid time ``valid_from``/``valid_until`` says
when a fact was true in the user's world; transaction time ``created_at``/``invalid_at``
says when the store believed it. ``live`` = not invalidated and not past valid_until;
``as_of(T)`` = what the store believed at T (``created_at <= T < invalid_at``), whatever
valid time says. Every query filters on the tenant. ``conn`` is an asyncpg connection or
pool.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

_COLUMNS = (
    "id, subject, predicate, object, kind, confidence, source_quote, episode_id, valid_from,"
    " valid_until, created_at, invalid_at, invalid_reason, invalidated_by"
)
_TENANT = "dataset = $1 AND project_id = $2"


@dataclass(frozen=True)
class FactRow:
    id: int
    subject: str
    predicate: str
    object: str
    kind: str
    confidence: float
    source_quote: str
    episode_id: str
    valid_from: datetime | None
    valid_until: datetime | None
    created_at: datetime
    invalid_at: datetime | None
    invalid_reason: str | None
    invalidated_by: int | None

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, self.object)

    def as_json(self) -> dict[str, Any]:
        return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in asdict(self).items()}


def _rows(records: Any) -> list[FactRow]:
    return [FactRow(**dict(r)) for r in records]


async def live_facts(
    conn: Any, dataset: str, project_id: str, *, now: datetime | None = None
) -> list[FactRow]:
    """Facts true now: not invalidated and not past their valid_until."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT} AND invalid_at IS NULL"
        " AND (valid_until IS NULL OR valid_until > coalesce($3, now()))"
        " ORDER BY subject, predicate, object, id",
        dataset,
        project_id,
        now,
    )
    return _rows(records)


async def history(conn: Any, dataset: str, project_id: str) -> list[FactRow]:
    """Every row ever written for the tenant, oldest first: nothing is ever deleted."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT} ORDER BY created_at, id",
        dataset,
        project_id,
    )
    return _rows(records)


async def as_of(conn: Any, dataset: str, project_id: str, at: datetime) -> list[FactRow]:
    """What the store held at transaction time ``at`` (rows ended later still show)."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT} AND created_at <= $3"
        " AND (invalid_at IS NULL OR invalid_at > $3) ORDER BY subject, predicate, object, id",
        dataset,
        project_id,
        at,
    )
    return _rows(records)
