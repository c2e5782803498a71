"""Entities of a tenant: exact lookups, same-type nearest neighbours, concurrent-safe inserts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pgvector import Vector

from streams.domain.entity_rows import ANY_TYPE, EntityNeighbour, EntityRow, NewEntity
from streams.events import USER_ENTITY
from streams.store.batched_search import (
    Found,
    SearchShape,
    TenantSearch,
    batched_or_planned,
    searcher,
)
from streams.store.coalesce import Coalescer, on_pool
from streams.store.keyed_search import nearest_per_key
from streams.store.tenant_indexes import has_graph_sql
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning

# graph_pending of an entity row written now: streams/store/graph_tail.py
_PENDING = has_graph_sql("entities", "$1", "$2")


@dataclass(frozen=True)
class NameLookup:
    dataset: str
    project_id: str
    names: tuple[str, ...]


async def find_by_names_of_many(conn: Any, lookups: Sequence[NameLookup]) -> list[list[EntityRow]]:
    """Per lookup, every stored entity of its tenant whose name is one of its names (any
    type): several tenants in one statement, each answer holding only its own tenant's
    rows (the join is on each lookup's tenant)."""
    at, datasets, projects, names = [], [], [], []
    for i, lookup in enumerate(lookups):
        for name in dict.fromkeys(lookup.names):
            at.append(i)
            datasets.append(lookup.dataset)
            projects.append(lookup.project_id)
            names.append(name)
    found: list[list[EntityRow]] = [[] for _ in lookups]
    if not at:
        return found
    rows = await conn.fetch(
        # OFFSET 0 keeps each name a lookup in its own tenant: a flattened join is
        # planned as one scan of every tenant's entities.
        "SELECT q.i, e.id, e.name, e.type"
        " FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS q(i, ds, pid, name)"
        " CROSS JOIN LATERAL (SELECT id, name, type FROM entities WHERE dataset = q.ds"
        " AND project_id = q.pid AND name = q.name OFFSET 0) e"
        " ORDER BY q.i, e.id",
        at, datasets, projects, names,
    )  # fmt: skip
    for r in rows:
        found[r["i"]].append(EntityRow(r["id"], r["name"], r["type"]))
    return found


def names_finder(pool: Any) -> Coalescer[NameLookup, list[EntityRow]]:
    """:func:`find_by_names_of_many` for concurrent records (streams/store/coalesce.py):
    the lookups that arrive while one is on its way go together as one statement."""
    return on_pool(pool, find_by_names_of_many)


async def nearest_same_type(
    conn: Any,
    dataset: str,
    project_id: str,
    queries: Sequence[tuple[Sequence[float], str]],
    *,
    k: int = 1,
    exclude_names: Sequence[str] = (),
    tuning: ScanTuning = DEFAULT_TUNING,
) -> list[list[EntityNeighbour]]:
    """Per (vector, type) query, the tenant's k nearest entities of that type, best first;
    the type ANY_TYPE ("*") asks for the nearest of every type (a probe's search)."""
    rows = await nearest_per_key(
        conn,
        source="entities",
        columns="t.id, t.name, t.type",
        where="t.dataset = $2 AND t.project_id = $3 AND NOT (t.name = ANY($4::text[]))"
        " AND (t.type = $5 OR $5 = '*')",
        args=(dataset, project_id, list(exclude_names)),
        queries=queries,
        k=k,
        tuning=tuning,
        tenant_where="t.dataset = $2 AND t.project_id = $3",
    )
    return [[_neighbour(r) for r in per] for per in rows]


def _neighbour(row: Any) -> EntityNeighbour:
    return EntityNeighbour(row["id"], row["name"], row["type"], float(row["similarity"]))


async def upsert_entities(
    conn: Any, dataset: str, project_id: str, new: Sequence[NewEntity]
) -> dict[tuple[str, str], int]:
    """Insert entities that may already exist; return (name, type) -> id for every one.

    ON CONFLICT DO NOTHING waits for a concurrent inserter of the same (name, type) and
    then skips; the re-select reads the row that won. Rows go in sorted order so two
    workers inserting overlapping sets cannot deadlock on each other's speculative rows.
    """
    if not new:
        return {}
    ordered = sorted({(e.name, e.type): e for e in new}.values(), key=lambda e: (e.name, e.type))
    names = [e.name for e in ordered]
    types = [e.type for e in ordered]
    vectors = [None if e.embedding is None else Vector(e.embedding) for e in ordered]
    ids: dict[tuple[str, str], int] = {}
    for r in await conn.fetch(
        "INSERT INTO entities (dataset, project_id, name, type, embedding, graph_pending)"
        f" SELECT $1, $2, n, t, v, {_PENDING}"
        " FROM unnest($3::text[], $4::text[], $5::vector[]) WITH ORDINALITY AS u(n, t, v, o)"
        " ORDER BY o"
        " ON CONFLICT (dataset, project_id, name, type) DO NOTHING RETURNING id, name, type",
        dataset,
        project_id,
        names,
        types,
        vectors,
    ):
        ids[(r["name"], r["type"])] = r["id"]
    missing = [e for e in ordered if (e.name, e.type) not in ids]
    if missing:
        for r in await conn.fetch(
            "SELECT e.id, e.name, e.type FROM entities e"
            " JOIN unnest($3::text[], $4::text[]) AS u(n, t) ON e.name = u.n AND e.type = u.t"
            " WHERE e.dataset = $1 AND e.project_id = $2",
            dataset,
            project_id,
            [e.name for e in missing],
            [e.type for e in missing],
        ):
            ids[(r["name"], r["type"])] = r["id"]
    return ids


_PRUNE_UNREFERENCED = (
    # The entities asked about, one probe per name (as `name = ANY($3)` the planner
    # guessed a thousand rows and merge-joined a big tenant's whole live-fact index).
    "WITH asked AS MATERIALIZED (SELECT x.id, x.name FROM unnest($3::text[]) AS n(name)"
    " CROSS JOIN LATERAL (SELECT id, name FROM entities WHERE dataset = $1"
    "  AND project_id = $2 AND name = n.name OFFSET 0) x WHERE n.name <> $4),"
    # Most names asked about are named by a live fact (a claim dropped as a duplicate of
    # one): the live-fact indexes answer that by id or by name (a fact written without
    # the entity's id: its subject, or the object of the user's link to it)...
    " unnamed AS MATERIALIZED (SELECT a.id FROM asked a WHERE"
    " NOT EXISTS (SELECT 1 FROM facts f WHERE f.dataset = $1 AND f.project_id = $2"
    "   AND f.invalid_at IS NULL AND f.subject_entity_id = a.id)"
    " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.dataset = $1 AND f.project_id = $2"
    "   AND f.invalid_at IS NULL AND f.object_entity_id = a.id)"
    " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.dataset = $1 AND f.project_id = $2"
    "   AND f.invalid_at IS NULL AND f.subject = a.name)"
    " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.dataset = $1 AND f.project_id = $2"
    "   AND f.invalid_at IS NULL AND f.subject = $4 AND f.object = a.name))"
    # ...and only the rest read the tenant's history for a row that keeps the id (an
    # entity id is only ever its own tenant's facts', write_steps _OWN_IDS)
    " DELETE FROM entities e USING unnamed u WHERE e.id = u.id AND e.dataset = $1"
    " AND e.project_id = $2 AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.dataset = $1"
    "   AND f.project_id = $2 AND (f.subject_entity_id = e.id OR f.object_entity_id = e.id))"
    " RETURNING e.name, e.type"
)


async def prune_unreferenced(
    conn: Any, dataset: str, project_id: str, names: Sequence[str]
) -> list[tuple[str, str]]:
    """Delete the entities of these names that no fact names, by id (live or history) or
    by name (live), and return their (name, type). The seed's orphan pruning, after
    resolution: an entity resolution stored for a claim that dedup, the judge or the
    writer then dropped. The user entity stays. The per-tenant gate makes this safe: no
    later episode of the tenant has been resolved against these entities yet. A delete
    pays the foreign keys' scan of the facts (no index on their entity ids: one misled
    the planner); orphans are rare."""
    if not names:
        return []
    rows = await conn.fetch(_PRUNE_UNREFERENCED, dataset, project_id, sorted(set(names)),
                            USER_ENTITY)  # fmt: skip
    return [(r["name"], r["type"]) for r in rows]


# The nearest entity of a type (or of any, "*") other than the user, as a small tenant's
# batched exact scan (streams/store/batched_search.py) spells nearest_same_type's search
# with exclude_names=[USER_ENTITY], which is how resolution asks.
NEAREST_OTHER_THAN_USER = SearchShape(
    source="entities",
    columns="t.id, t.name, t.type",
    key_filter=f"t.name <> '{USER_ENTITY}' AND (t.type = q.key OR q.key = '{ANY_TYPE}')",
    tenant_rows="x.dataset = s.ds AND x.project_id = s.pid",
    k=1,
)


def type_searcher(pool: Any) -> Coalescer[TenantSearch, Found]:
    return searcher(pool, NEAREST_OTHER_THAN_USER)


async def nearest_other_than_user_batched(
    search: Coalescer[TenantSearch, Found], pool: Any, dataset: str, project_id: str,
    queries: Sequence[tuple[Sequence[float], str]], *, tuning: ScanTuning = DEFAULT_TUNING,
) -> list[list[EntityNeighbour]]:  # fmt: skip
    """``nearest_same_type(..., k=1, exclude_names=[USER_ENTITY])`` for concurrent
    records: a small tenant's scans share one statement with other records' (``search``);
    a large tenant is searched the planned way on a connection of its own."""
    return await batched_or_planned(
        search, pool, "entities", TenantSearch(dataset, project_id, tuple(queries)),
        tuning=tuning, row=_neighbour,
        planned=lambda conn: nearest_same_type(
            conn, dataset, project_id, queries, k=1, exclude_names=[USER_ENTITY], tuning=tuning
        ),
    )  # fmt: skip
