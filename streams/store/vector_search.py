"""Tenant-filtered nearest-neighbour search that never under-returns.

HNSW applies WHERE filters after walking the graph: with the default ef_search of 40, a
query for a small tenant next to a crowded one can come back empty although the tenant
holds matching rows. So:

- few candidate rows (at most ``exact_below`` rows pass ``where``, counted with a bounded
  query): an exact scan, one pass over those rows for all query vectors. Complete by
  construction, and cheaper than walking a graph full of other tenants' rows, which is
  what the planner tends to choose;
- larger tenant: its own partial HNSW index (streams/store/tenant_indexes.py, built by the
  sweep; chosen by the planner thanks to the custom plans below) with pgvector 0.8's
  iterative scan (SET LOCAL per transaction), which keeps walking until LIMIT rows pass
  the rest of the filter (live, same subject or type) or ``hnsw.max_scan_tuples`` is
  spent. A query that still returns fewer than k rows is repeated exactly for that vector.
  The rows written since the graph was built, which it does not hold yet, are scanned
  exactly beside it (streams/store/graph_tail.py).

Every query therefore returns min(k, matching rows) rows; the only approximation left is
HNSW's own recall on big tenants, which the tenant filter does not make worse. All of
it runs in one (sub)transaction because the settings are SET LOCAL. The same search per
key (a fact's subject, an entity's type), many keys in one statement, is in
streams/store/keyed_search.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pgvector import Vector

from streams.store import graph_tail


@dataclass(frozen=True)
class ScanTuning:
    """Per-transaction HNSW knobs. ``relaxed_order`` has the better recall; we re-sort.

    ef_search 100, not pgvector's 40: a missed neighbour is a duplicate kept or an alias
    not merged, so recall wins over the small extra time per query (the recall measured
    at both values is in bench/README.md).
    """

    ef_search: int = 100
    max_scan_tuples: int = 20_000
    iterative_scan: str = "relaxed_order"
    # Tenants with at most this many candidate rows are scanned exactly.
    exact_below: int = 2_000


DEFAULT_TUNING = ScanTuning()


def session_settings(tuning: ScanTuning = DEFAULT_TUNING) -> dict[str, str]:
    """What :func:`configure_search` sets but the plan cache mode, as the server settings
    of a session: pools open their connections with these (streams/store/db.py), so a
    search with the default tuning needs no transaction of its own. The plan cache mode
    stays the server's: forcing custom plans on every statement of a session costs more
    Postgres CPU than it saves; a search gets its custom plan from a statement prepared
    for it alone (:func:`_search`)."""
    return {
        "hnsw.iterative_scan": tuning.iterative_scan,
        "hnsw.ef_search": str(int(tuning.ef_search)),
        "hnsw.max_scan_tuples": str(int(tuning.max_scan_tuples)),
        "work_mem": "64MB",
    }


async def configure_search(conn: Any, tuning: ScanTuning = DEFAULT_TUNING) -> None:
    """SET LOCAL what a search needs; it lasts until the caller's transaction ends.

    - hnsw.*: the iterative scan and its budget;
    - plan_cache_mode: asyncpg prepares every statement, and after five runs Postgres may
      switch to a generic plan that ignores which tenant is asked for (measured 4-6x
      slower for a small tenant) and cannot use a tenant's partial index at all;
    - work_mem: room for the exact path's materialised rows (2,000 x 768 floats = 6 MB).
    """
    if tuning.iterative_scan not in ("relaxed_order", "strict_order", "off"):
        raise ValueError(f"unknown hnsw.iterative_scan mode {tuning.iterative_scan!r}")
    await conn.execute(
        f"SET LOCAL hnsw.iterative_scan = {tuning.iterative_scan};"
        f" SET LOCAL hnsw.ef_search = {int(tuning.ef_search)};"
        f" SET LOCAL hnsw.max_scan_tuples = {int(tuning.max_scan_tuples)};"
        " SET LOCAL plan_cache_mode = force_custom_plan;"
        " SET LOCAL work_mem = '64MB'"
    )


_QUERIES = "unnest($1::vector[]) WITH ORDINALITY AS q(v, ord)"


def _index_sql(source: str, columns: str, where: str, k: int) -> str:
    def walk(rows: str) -> str:
        return (
            f"SELECT {columns}, 1 - (t.embedding <=> q.v) AS similarity FROM {source} t"
            f" WHERE t.embedding IS NOT NULL AND {where}{rows}"
            f" ORDER BY t.embedding <=> q.v LIMIT {k}"
        )

    if source not in graph_tail.RELATIONS:  # a derived source: no graph of its own
        nearest_rows = walk("")
    else:  # the graph's rows, and the rows it does not hold yet scanned exactly
        nearest_rows = (
            f"SELECT * FROM (({walk(' AND ' + graph_tail.in_graph())})"
            f" UNION ALL ({walk(' AND ' + graph_tail.in_tail())})) g"
            f" ORDER BY g.similarity DESC LIMIT {k}"
        )
    return (
        f"SELECT q.ord, n.* FROM {_QUERIES} CROSS JOIN LATERAL ({nearest_rows}) n"
        " ORDER BY q.ord, n.similarity DESC"
    )


def _output_names(columns: str) -> list[str]:
    """The names ``columns`` ("t.id, t.name, t.embedding AS vec") come out under."""
    names = []
    for column in columns.split(","):
        column = column.strip()
        names.append(column.split(" AS ")[-1] if " AS " in column else column.split(".")[-1])
    return names


def exact_sql(source: str, columns: str, where: str, k: int) -> str:
    # The rows `where` selects are read once (materialised), then each query vector takes its
    # top k by a bounded sort over them: nothing HNSW can serve, so this is exact.
    picked = ", ".join(f"t.{name}" for name in _output_names(columns))
    return (
        f"WITH rows AS MATERIALIZED (SELECT {columns}, t.embedding AS search_vector"
        f"  FROM {source} t WHERE t.embedding IS NOT NULL AND {where})"
        f" SELECT q.ord, n.* FROM {_QUERIES} CROSS JOIN LATERAL ("
        f"  SELECT {picked}, 1 - (t.search_vector <=> q.v) AS similarity FROM rows t"
        f"  ORDER BY t.search_vector <=> q.v LIMIT {k}"
        " ) n ORDER BY q.ord, n.similarity DESC"
    )


async def nearest(
    conn: Any,
    *,
    source: str,
    columns: str,
    where: str,
    args: Sequence[Any],
    vectors: Sequence[Sequence[float]],
    k: int,
    count_where: str | None = None,
    tuning: ScanTuning = DEFAULT_TUNING,
) -> list[list[Any]]:
    """The k nearest rows of ``source`` (aliased ``t``) per query vector, best first.

    ``where`` is trusted SQL from our own code filtering on the tenant, with parameters
    from $2 on given in ``args``; it must not refer to the query. ``columns`` select from
    ``t``. Rows also carry ``similarity`` (cosine). ``count_where``, when given, is a
    looser filter (a superset of ``where``'s rows, the same parameters) that an index
    answers alone, for the small-set check: counting too many only sends a search to the
    index path, which is complete anyway.
    """
    if not vectors:
        return []
    if k < 1:
        raise ValueError("k must be at least 1")
    vecs = [Vector(list(v)) for v in vectors]
    found: list[list[Any]] = [[] for _ in vectors]

    def collect(rows: Sequence[Any], positions: Sequence[int]) -> None:
        for i in positions:
            found[i] = []
        for row in rows:
            found[positions[row["ord"] - 1]].append(row)

    if getattr(conn, "session_tuning", None) == tuning:  # the session is configured already
        await _search(conn, source, columns, where, args, vecs, k, count_where, tuning, collect)
        return found
    async with conn.transaction():
        await configure_search(conn, tuning)
        await _search(conn, source, columns, where, args, vecs, k, count_where, tuning, collect)
    return found


def search_sql(
    source: str, columns: str, where: str, k: int, count_where: str | None, tuning: ScanTuning
) -> str:
    """The small-set check and the search in one statement: one row at least (the flag
    ``exact_path``), then the rows of the one path the flag gates."""
    limit = int(tuning.exact_below)
    # Bounded count: reads at most exact_below + 1 index entries of the tenant. A one-time
    # filter on it runs exactly one of the two paths.
    small = (
        f"(SELECT count(*) <= {limit} FROM (SELECT 1 FROM {source} t"
        f" WHERE {count_where or f't.embedding IS NOT NULL AND {where}'}"
        f" LIMIT {limit + 1}) c)"
    )
    return (
        f"WITH f AS MATERIALIZED (SELECT {small} AS small)"
        " SELECT f.small AS exact_path, r.* FROM f"
        f" LEFT JOIN LATERAL (SELECT e.* FROM ({exact_sql(source, columns, where, k)}) e"
        f" WHERE f.small UNION ALL SELECT i.* FROM ({_index_sql(source, columns, where, k)}) i"
        " WHERE NOT f.small) r ON true ORDER BY r.ord, r.similarity DESC"
    )


async def _search(
    conn: Any, source: str, columns: str, where: str, args: Sequence[Any], vecs: list[Vector],
    k: int, count_where: str | None, tuning: ScanTuning,
    collect: Callable[[Sequence[Any], Sequence[int]], None],
) -> None:  # fmt: skip
    """One search statement; the index path's short answers are asked again exactly."""
    # Prepared afresh, not from the statement cache: a new statement is planned for the
    # values it is given (the tenant's partial index, its size), never generically.
    statement = await conn.prepare(search_sql(source, columns, where, k, count_where, tuning))
    rows = await statement.fetch(vecs, *args)
    await complete_search(conn, exact_sql(source, columns, where, k), args, vecs, k, rows, collect)


async def complete_search(
    conn: Any, exact: str, args: Sequence[Any], vecs: list[Vector], k: int,
    rows: Sequence[Any], collect: Callable[[Sequence[Any], Sequence[int]], None],
) -> None:  # fmt: skip
    """Collect one search's rows; on the index path, ask again exactly for every query
    vector that came back with fewer than k rows."""
    everyone = list(range(len(vecs)))
    collect([r for r in rows if r["ord"] is not None], everyone)
    if rows[0]["exact_path"]:
        return
    found_per: dict[int, int] = {}
    for r in rows:
        if r["ord"] is not None:
            found_per[r["ord"] - 1] = found_per.get(r["ord"] - 1, 0) + 1
    short = [i for i in everyone if found_per.get(i, 0) < k]
    if short:
        retry = await conn.prepare(exact)
        collect(await retry.fetch([vecs[i] for i in short], *args), short)


# Tenants (source, dataset, project id) known to hold more rows than a search scans
# exactly. Bounded: a tenant forgotten is counted again by its next search.
_LARGE_TENANTS: dict[tuple[str, str, str], None] = {}
_LARGE_TENANTS_KEPT = 20_000


def is_large(tenant: tuple[str, str, str]) -> bool:
    return tenant in _LARGE_TENANTS


def remember_large(tenant: tuple[str, str, str]) -> None:
    if len(_LARGE_TENANTS) >= _LARGE_TENANTS_KEPT:
        _LARGE_TENANTS.pop(next(iter(_LARGE_TENANTS)))
    _LARGE_TENANTS[tenant] = None
