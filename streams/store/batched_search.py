"""Small tenants' nearest-neighbour searches of concurrent records in one statement.

Most tenants hold too few rows for an index to pay (streams/store/vector_search.py scans
them exactly). Under load, the dedup workers of several tenants search at once, as do the
resolve workers; their exact scans go together in one statement of a fixed shape
(micro-batching, streams/store/coalesce.py), which Postgres plans once, instead of one
statement per record. Each query vector is matched only against its own tenant's rows
(the scan is keyed by the query's tenant, one index lookup per key: ``OFFSET 0`` keeps
the planner from flattening it into a scan of every tenant's rows).

The same statement counts each tenant's rows, bounded by ``exact_below``: a tenant with
more is answered ``None``, and the caller searches it the planned way (its own HNSW
index), remembering it as large (vector_search's memory of large tenants).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pgvector import Vector

from streams.store.coalesce import Coalescer, on_pool
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning, is_large, remember_large

T = TypeVar("T")


@dataclass(frozen=True)
class SearchShape:
    """One kind of search: its rows, what it returns, and how a key narrows them.

    ``key_filter`` is SQL on the searched row ``t`` and the query ``q`` (``q.ds``,
    ``q.pid``, ``q.key``); ``tenant_rows`` counts the tenant's rows on ``x`` for tenant
    ``s`` (``s.ds``, ``s.pid``). Both are our own code's, never a caller's input."""

    source: str
    columns: str
    key_filter: str
    tenant_rows: str
    k: int


@dataclass(frozen=True)
class TenantSearch:
    """One record's searches: (vector, key) pairs within one tenant."""

    dataset: str
    project_id: str
    queries: tuple[tuple[Sequence[float], str], ...]


# One answer per TenantSearch: per query, its rows best first; None for a large tenant.
Found = list[list[Any]] | None


def _sql(shape: SearchShape, exact_below: int) -> str:
    limit = int(exact_below)
    return (
        "WITH q AS (SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[],"
        " $5::text[], $6::vector[]) AS q(r, n, ds, pid, key, v)),"
        " s AS (SELECT DISTINCT ds, pid FROM q),"
        " size AS MATERIALIZED (SELECT s.ds, s.pid, (SELECT count(*) FROM"
        f"  (SELECT 1 FROM {shape.source} x WHERE {shape.tenant_rows} LIMIT {limit + 1}) c)"
        " AS n FROM s)"
        f" SELECT q.r, q.n AS ord, size.n > {limit} AS large, m.* FROM q"
        " JOIN size ON size.ds = q.ds AND size.pid = q.pid"
        f" LEFT JOIN LATERAL (SELECT {shape.columns}, 1 - (t.embedding <=> q.v) AS similarity"
        f"  FROM {shape.source} t WHERE size.n <= {limit} AND t.embedding IS NOT NULL"
        f"  AND t.dataset = q.ds AND t.project_id = q.pid AND {shape.key_filter}"
        f"  ORDER BY t.embedding <=> q.v LIMIT {int(shape.k)} OFFSET 0) m ON true"
        " ORDER BY q.r, q.n, m.similarity DESC"
    )


async def search_many(
    conn: Any, shape: SearchShape, searches: Sequence[TenantSearch],
    exact_below: int = DEFAULT_TUNING.exact_below,
) -> list[Found]:  # fmt: skip
    """Exact searches of several tenants in one statement, one answer per search."""
    columns: list[list[Any]] = [[], [], [], [], [], []]
    for r, search in enumerate(searches):
        for n, (vector, key) in enumerate(search.queries):
            row = (r, n, search.dataset, search.project_id, key, Vector(list(vector)))
            for column, value in zip(columns, row, strict=True):
                column.append(value)
    answers: list[Found] = [[[] for _ in s.queries] for s in searches]
    if not columns[0]:
        return answers
    for row in await conn.fetch(_sql(shape, exact_below), *columns):
        found = answers[row["r"]]
        if row["large"]:
            answers[row["r"]] = None
        elif found is not None and row["similarity"] is not None:
            found[row["ord"]].append(row)
    return answers


def searcher(pool: Any, shape: SearchShape) -> Coalescer[TenantSearch, Found]:
    """:func:`search_many` for concurrent records (streams/store/coalesce.py)."""
    return on_pool(pool, lambda conn, searches: search_many(conn, shape, searches))


async def batched_or_planned(
    search: Coalescer[TenantSearch, Found], pool: Any, source: str, request: TenantSearch,
    *, tuning: ScanTuning, row: Callable[[Any], T],
    planned: Callable[[Any], Awaitable[list[list[T]]]],
) -> list[list[T]]:  # fmt: skip
    """A tenant not known to be large: its exact scans batched with other records'
    (``search``, over ``source``), each row made by ``row``. A large one (remembered once
    found), or a search with a tuning of its own: ``planned(conn)`` on a connection of
    its own."""
    tenant = (source, request.dataset, request.project_id)
    if tuning == DEFAULT_TUNING and request.queries and not is_large(tenant):
        found = await search(request)
        if found is not None:
            return [[row(r) for r in per] for per in found]
        remember_large(tenant)
    async with pool.acquire() as conn:
        return await planned(conn)
