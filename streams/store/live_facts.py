"""Read queries over a tenant's current facts (dedup, and the judge).

Current (what the pipeline calls live) = believed and not past its valid time:
``invalid_at IS NULL AND (valid_until IS NULL OR valid_until > now())``; a fact that starts
in the future is current (streams/domain/time.py). Every query filters on the tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streams.domain.facts import LiveFact, Triple
from streams.store.batched_search import (
    Found,
    SearchShape,
    TenantSearch,
    batched_or_planned,
    searcher,
)
from streams.store.coalesce import Coalescer, on_pool
from streams.store.keyed_search import nearest_per_key
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning

# `t.invalid_at IS NULL` verbatim, so the planner can use the partial indexes on live rows.
LIVE_SQL = "t.invalid_at IS NULL AND (t.valid_until IS NULL OR t.valid_until > now())"

_COLUMNS = (
    "t.id, t.subject, t.predicate, t.object, t.kind, t.confidence, t.valid_from,"
    " t.valid_until, t.subject_entity_id, t.object_entity_id, t.episode_id, t.stated_at,"
    " t.end_reason"
)

# Live facts of one subject read per candidate, nearest first. Dedup reads them once for
# its near-duplicate pass and hands those inside the contradiction band to the judge, so
# the judge's band is the nearest this many: more rewordings of one fact than this inside
# the band of a single candidate is not a case worth reading the whole subject for.
SUBJECT_NEIGHBOURS = 20
# The small-set check of a subject's search counts its not-invalidated facts from the
# index facts_live_by_subject_predicate alone (no visit to the rows for the vector or
# valid_until): index entries only, never the rows.
# The tenant's believed rows, for the small-tenant check (an index answers it alone).
TENANT_COUNT_WHERE = "t.dataset = $2 AND t.project_id = $3 AND t.invalid_at IS NULL"
SUBJECT_COUNT_WHERE = (
    "t.dataset = $2 AND t.project_id = $3 AND t.subject = $4 AND t.invalid_at IS NULL"
)


def live_fact_from_row(row: Any, embedding: Any = None) -> LiveFact:
    """A LiveFact from a row of ``facts`` with any of its columns (absent ones default);
    ``embedding`` is the row's pgvector value when the caller read one."""
    sim, confidence = row.get("similarity"), row.get("confidence")
    return LiveFact(
        id=row["id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        kind=row.get("kind") or "relationship",
        confidence=1.0 if confidence is None else float(confidence),
        valid_from=row["valid_from"],
        valid_until=row["valid_until"],
        subject_entity_id=row.get("subject_entity_id"),
        object_entity_id=row.get("object_entity_id"),
        episode_id=row.get("episode_id") or "",
        stated_at=row.get("stated_at"),
        end_reason=row.get("end_reason"),
        similarity=None if sim is None else float(sim),
        embedding=None if embedding is None else embedding.to_list(),
    )


async def find_believed_by_triples(
    conn: Any, dataset: str, project_id: str, triples: Sequence[Triple]
) -> tuple[dict[Triple, list[LiveFact]], datetime | None]:
    """Every believed row (current or history) of each of ``triples``, oldest first, and
    the tenant's write watermark (:func:`newest_live_fact_at`) read in the same statement."""
    (found,) = await find_believed_of_many(
        conn, [TriplesLookup(dataset, project_id, tuple(triples))]
    )
    return found


@dataclass(frozen=True)
class TriplesLookup:
    dataset: str
    project_id: str
    triples: tuple[Triple, ...]


Believed = tuple[dict[Triple, list[LiveFact]], datetime | None]

# Per lookup i: its tenant's watermark, and the believed rows of its triples, each row
# looked up by index within the lookup's own tenant. OFFSET 0 keeps each lookup a
# lookup: a flattened join is planned as one scan of every tenant's facts.
_BELIEVED_OF_MANY = f"""
WITH q AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
        AS q(i, ds, pid, s, p, o)
), asked AS (SELECT DISTINCT i, ds, pid FROM q)
SELECT a.i, w.at AS watermark, r.* FROM asked a
CROSS JOIN LATERAL (SELECT max(created_at) AS at FROM facts
    WHERE dataset = a.ds AND project_id = a.pid AND invalid_at IS NULL) w
LEFT JOIN LATERAL (SELECT f.* FROM q u CROSS JOIN LATERAL (
    SELECT {_COLUMNS} FROM facts t
    WHERE t.dataset = u.ds AND t.project_id = u.pid AND t.subject = u.s
        AND t.predicate = u.p AND t.object = u.o AND t.invalid_at IS NULL OFFSET 0) f
    WHERE u.i = a.i) r ON true
ORDER BY a.i, r.id
"""


async def find_believed_of_many(conn: Any, lookups: Sequence[TriplesLookup]) -> list[Believed]:
    """:func:`find_believed_by_triples` of several tenants in one statement, one answer
    per lookup; a lookup without triples reads nothing (its watermark is None)."""
    answers: list[Believed] = [({}, None) for _ in lookups]
    columns: list[list[Any]] = [[], [], [], [], [], []]
    for i, lookup in enumerate(lookups):
        for triple in lookup.triples:
            row = (i, lookup.dataset, lookup.project_id, *triple)
            for column, value in zip(columns, row, strict=True):
                column.append(value)
    if not columns[0]:
        return answers
    for row in await conn.fetch(_BELIEVED_OF_MANY, *columns):
        found, _ = answers[row["i"]]
        if row["id"] is not None:
            fact = live_fact_from_row(row)
            found.setdefault(fact.triple, []).append(fact)
        answers[row["i"]] = (found, row["watermark"])
    return answers


# When the end of each of the given rows was said: the completed_at of the episode that
# wrote it (a closure's copy keeps its original's stated_at, but is written by the
# closing episode), or the stated_at of the row that ended it, whichever is later.
_ENDS_SAID = """
SELECT t.id, GREATEST(e.completed_at, b.stated_at) AS said FROM facts t
LEFT JOIN episodes e ON e.dataset = t.dataset AND e.project_id = t.project_id
    AND e.episode_id = t.episode_id
LEFT JOIN facts b ON b.id = t.ended_by AND b.dataset = t.dataset AND b.project_id = t.project_id
WHERE t.dataset = $1 AND t.project_id = $2 AND t.id = ANY($3::bigint[])
"""


async def ends_said(
    conn: Any, dataset: str, project_id: str, ids: Sequence[int]
) -> dict[int, datetime]:
    """When the valid end of each of ``ids`` (rows of the tenant) was said; primary-key
    lookups, asked only for the rare candidate whose triple a closure or a replacement
    ended."""
    rows = await conn.fetch(_ENDS_SAID, dataset, project_id, list(ids))
    return {r["id"]: r["said"] for r in rows if r["said"] is not None}


def believed_finder(pool: Any) -> Coalescer[TriplesLookup, Believed]:
    """:func:`find_believed_of_many` for concurrent records (streams/store/coalesce.py)."""
    return on_pool(pool, find_believed_of_many)


async def newest_live_fact_at(conn: Any, dataset: str, project_id: str) -> datetime | None:
    """created_at of the tenant's newest live fact, a watermark of its writes: every write
    that changes the live facts inserts at least one (the writer stamps each write's rows
    with one later clock). One probe of ``facts_live_recent``."""
    value: datetime | None = await conn.fetchval(
        "SELECT max(created_at) FROM facts"
        " WHERE dataset = $1 AND project_id = $2 AND invalid_at IS NULL",
        dataset,
        project_id,
    )
    return value


async def nearest_live_facts(
    conn: Any,
    dataset: str,
    project_id: str,
    queries: Sequence[tuple[Sequence[float], str]],
    *,
    k: int = SUBJECT_NEIGHBOURS,
    tuning: ScanTuning = DEFAULT_TUNING,
) -> list[list[LiveFact]]:
    """Per (vector, subject) query, the k nearest live facts of that subject, best first
    (never under-returns)."""
    rows = await nearest_per_key(
        conn,
        source="facts",
        columns=_COLUMNS,
        where=f"t.dataset = $2 AND t.project_id = $3 AND t.subject = $4 AND {LIVE_SQL}",
        args=(dataset, project_id),
        queries=queries,
        k=k,
        count_where=SUBJECT_COUNT_WHERE,
        tuning=tuning,
        tenant_where=TENANT_COUNT_WHERE,
    )
    return [[live_fact_from_row(r) for r in per] for per in rows]


# A subject's live facts, nearest first, as a small tenant's batched exact scan
# (streams/store/batched_search.py) spells nearest_live_facts' search.
FACTS_BY_SUBJECT = SearchShape(
    source="facts",
    columns=_COLUMNS,
    key_filter=f"t.subject = q.key AND {LIVE_SQL}",
    tenant_rows="x.dataset = s.ds AND x.project_id = s.pid AND x.invalid_at IS NULL",
    k=SUBJECT_NEIGHBOURS,
)


def subject_searcher(pool: Any) -> Coalescer[TenantSearch, Found]:
    return searcher(pool, FACTS_BY_SUBJECT)


async def nearest_live_facts_batched(
    search: Coalescer[TenantSearch, Found], pool: Any, dataset: str, project_id: str,
    queries: Sequence[tuple[Sequence[float], str]], *, tuning: ScanTuning = DEFAULT_TUNING,
) -> list[list[LiveFact]]:  # fmt: skip
    """:func:`nearest_live_facts` (k = SUBJECT_NEIGHBOURS) for concurrent records: a small
    tenant's scans share one statement with other records' (``search``); a large tenant
    is searched the planned way on a connection of its own."""
    return await batched_or_planned(
        search, pool, "facts", TenantSearch(dataset, project_id, tuple(queries)),
        tuning=tuning, row=live_fact_from_row,
        planned=lambda conn: nearest_live_facts(conn, dataset, project_id, queries, tuning=tuning),
    )  # fmt: skip
