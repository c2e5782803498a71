"""Reading the bi-temporal fact table on both clocks (DESIGN "Time: three clocks per fact").

Valid time ``valid_from``/``valid_until`` says when a fact is true in the user's world (a
fact without valid_from from when it was said, ``stated_at``, or, when it had ended by
then, up to its end: ``domain.time.effective_start``); transaction time
``created_at``/``invalid_at`` says when the store believed it. One query answers all:

- ``valid_at=T``: true in the user's world at T, by what the store believes now;
- ``as_of=A``: what the store believed at A (``created_at <= A < invalid_at``), whatever
  valid time says;
- both: what the store believed at A was true at T;
- neither: live, i.e. believed now and true now.

``history`` returns every row ever written instead. Every query filters on the tenant;
``conn`` is an asyncpg connection or pool. The read API and the CLI share these.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

_COLUMNS = (
    "id, subject, predicate, object, kind, confidence, source_quote, episode_id, valid_from,"
    " valid_until, stated_at, created_at, invalid_at, invalid_reason, invalidated_by, copy_of,"
    " ended_by, end_reason, untrusted_reason, end_quote"
)
_TENANT = "dataset = $1 AND project_id = $2"
_ORDER = " ORDER BY subject, predicate, object, id"


def valid_time_sql(when: str, alias: str = "") -> str:
    """The condition "true in the user's world at ``when``" on a fact row (``alias.``
    columns when given), with the start of domain.time.effective_start."""
    t = f"{alias}." if alias else ""
    start = (
        f"coalesce({t}valid_from, CASE WHEN {t}valid_until <= {t}stated_at"
        f" THEN '-infinity'::timestamptz ELSE {t}stated_at END)"
    )
    return f"{start} <= {when} AND ({t}valid_until IS NULL OR {t}valid_until > {when})"


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
    stated_at: datetime
    created_at: datetime
    invalid_at: datetime | None
    invalid_reason: str | None
    invalidated_by: int | None
    copy_of: int | None
    ended_by: int | None
    end_reason: str | None
    untrusted_reason: str | None
    end_quote: str | None = None  # the user's words that ended it (a closure's copy)

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, self.object)

    def as_json(self) -> dict[str, Any]:
        return {k: v.isoformat() if isinstance(v, datetime) else v for k, v in asdict(self).items()}


def _rows(records: Any) -> list[FactRow]:
    return [FactRow(**dict(r)) for r in records]


async def facts_at(
    conn: Any,
    dataset: str,
    project_id: str,
    *,
    valid_at: datetime | None = None,
    as_of: datetime | None = None,
    entity_id: int | None = None,
) -> list[FactRow]:
    """Facts true at ``valid_at`` by the belief at ``as_of`` (see the module doc); with
    ``entity_id``, only those naming that entity as subject or object."""
    args: list[Any] = [dataset, project_id]

    def param(value: datetime) -> str:
        args.append(value)
        return f"${len(args)}"

    if as_of is None:
        where = ["invalid_at IS NULL"]
    else:
        at = param(as_of)
        where = [f"created_at <= {at} AND (invalid_at IS NULL OR invalid_at > {at})"]
    if valid_at is not None or as_of is None:
        when = "now()" if valid_at is None else param(valid_at)
        where.append(valid_time_sql(when))
    if entity_id is not None:
        args.append(entity_id)
        where.append(f"(subject_entity_id = ${len(args)} OR object_entity_id = ${len(args)})")
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT} AND {' AND '.join(where)}{_ORDER}", *args
    )
    return _rows(records)


async def live_facts(
    conn: Any, dataset: str, project_id: str, *, now: datetime | None = None
) -> list[FactRow]:
    """Facts true now by current belief."""
    return await facts_at(conn, dataset, project_id, valid_at=now)


async def history(
    conn: Any, dataset: str, project_id: str, *, entity_id: int | None = None
) -> list[FactRow]:
    """Every row ever written for the tenant, oldest first: nothing is ever deleted."""
    by_entity = entity_id is not None
    named = " AND $3::bigint IN (subject_entity_id, object_entity_id)" if by_entity else ""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT}{named} ORDER BY created_at, id",
        dataset,
        project_id,
        *([entity_id] if by_entity else []),
    )
    return _rows(records)


async def as_of(conn: Any, dataset: str, project_id: str, at: datetime) -> list[FactRow]:
    """What the store held at transaction time ``at`` (rows ended later still show)."""
    return await facts_at(conn, dataset, project_id, as_of=at)


async def fact_rows(conn: Any, dataset: str, project_id: str, ids: list[int]) -> list[FactRow]:
    """The tenant's rows among ``ids`` (another tenant's ids find nothing), oldest first."""
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM facts WHERE {_TENANT} AND id = ANY($3::bigint[])"
        " ORDER BY created_at, id",
        dataset,
        project_id,
        ids,
    )
    return _rows(records)


_ORIGINS = """
WITH RECURSIVE up(start, id, copy_of, episode_id) AS (
    SELECT id, id, copy_of, episode_id FROM facts
    WHERE dataset = $1 AND project_id = $2 AND id = ANY($3::bigint[])
    UNION ALL
    SELECT up.start, f.id, f.copy_of, f.episode_id FROM facts f JOIN up ON f.id = up.copy_of
    WHERE f.dataset = $1 AND f.project_id = $2
)
SELECT start, episode_id FROM up WHERE copy_of IS NULL
"""


async def said_in(conn: Any, dataset: str, project_id: str, rows: list[FactRow]) -> dict[int, str]:
    """Copy id -> the episode of the original statement it continues (a copy's own
    ``episode_id`` is the episode that ended it). Rows that are no copies are left out."""
    copies = [r.id for r in rows if r.copy_of is not None]
    if not copies:
        return {}
    found = await conn.fetch(_ORIGINS, dataset, project_id, copies)
    return {int(r["start"]): str(r["episode_id"]) for r in found}
