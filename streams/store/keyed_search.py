"""Nearest neighbours per key: the store's (vector, key) searches, many keys at once.

A fact's neighbours are searched among its subject's facts, an entity's among its type's.
:func:`nearest_per_key` runs the search of streams/store/vector_search.py once per distinct
key, all in one statement, the key a parameter the planner sees; a tenant known to be small
is scanned exactly by one cached statement instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pgvector import Vector

from streams.store.vector_search import (
    DEFAULT_TUNING,
    ScanTuning,
    complete_search,
    configure_search,
    exact_sql,
    is_large,
    remember_large,
    search_sql,
)


def _key_blocks(
    one: str,
    args: Sequence[Any],
    queries: Sequence[tuple[Sequence[float], Any]],
    positions: dict[Any, list[int]],
) -> tuple[list[str], list[Any]]:
    """``one`` (a search of the query vectors $1 and the key after ``args``) once per key,
    as ``SELECT j AS block, ...`` parts of one statement, and the statement's parameters:
    key j's vectors and key renumbered after the shared ``args``."""
    key_at = len(args) + 2  # the key follows ``args``, which follow the vectors ($1)
    blocks, params = [], [None, *args, None]
    for j, key in enumerate(positions):
        vecs = [Vector(list(queries[i][0])) for i in positions[key]]
        if j == 0:
            params[0], params[-1], sql = vecs, key, one
        else:
            moves = {1: len(params) + 1, key_at: len(params) + 2}
            params += [vecs, key]
            sql = _renumbered(one, moves)
        blocks.append(f"SELECT {j} AS block, b.* FROM ({sql}) b")
    return blocks, params


_PARAMETER = re.compile(r"\$(\d+)\b")


def _renumbered(sql: str, moves: dict[int, int]) -> str:
    """``sql`` with parameter $a written $b for every a -> b of ``moves``."""
    return _PARAMETER.sub(lambda m: f"${moves.get(int(m.group(1)), int(m.group(1)))}", sql)


async def nearest_per_key(
    conn: Any,
    *,
    source: str,
    columns: str,
    where: str,
    args: Sequence[Any],
    queries: Sequence[tuple[Sequence[float], Any]],
    k: int,
    count_where: str | None = None,
    tuning: ScanTuning = DEFAULT_TUNING,
    tenant_where: str | None = None,
) -> list[list[Any]]:
    """:func:`nearest` for (vector, key) queries, where ``where`` compares a column with
    the parameter after ``args`` (the key): the subject of a fact, the type of an entity.

    One search per distinct key, all in one statement, the key a parameter rather than a
    per-query value: the planner then knows how many rows it matches and walks the
    tenant's HNSW index (as a per-query value it guesses few rows and sorts all of a big
    tenant's), and the small-set check counts only the key's rows, so 32 ORG entities
    among 10k THINGs are scanned exactly instead of walking a graph of THINGs.

    ``tenant_where`` (the tenant's rows, with ``args``' parameters, answered by an index)
    lets a tenant with few rows skip all that: its keys are scanned exactly by a cached
    statement, planned once rather than per call, which also counts the tenant's rows;
    a tenant found to have more than ``exact_below`` takes the path above from then on.
    ``args`` then begins with the tenant's dataset and project id.
    """
    if not queries:
        return []
    found: list[list[Any]] = [[] for _ in queries]
    positions: dict[Any, list[int]] = {}
    for i, (_, key) in enumerate(queries):
        positions.setdefault(key, []).append(i)
    configured = getattr(conn, "session_tuning", None) == tuning
    tenant = (source, str(args[0]), str(args[1])) if args else None
    if configured and tenant_where is not None and tenant and not is_large(tenant):
        per_key, large = await _small_tenant_keys(
            conn, source, columns, where, args, queries, positions, k, tenant_where, tuning
        )
        if large:
            remember_large(tenant)
    elif configured:
        per_key = await _nearest_keys_at_once(
            conn, source, columns, where, args, queries, positions, k, count_where, tuning
        )
    else:
        async with conn.transaction():
            await configure_search(conn, tuning)
            per_key = await _nearest_keys_at_once(
                conn, source, columns, where, args, queries, positions, k, count_where, tuning
            )
    for key, where_at in positions.items():
        for i, per in zip(where_at, per_key[key], strict=True):
            found[i] = per
    return found


async def _nearest_keys_at_once(
    conn: Any, source: str, columns: str, where: str, args: Sequence[Any],
    queries: Sequence[tuple[Sequence[float], Any]], positions: dict[Any, list[int]], k: int,
    count_where: str | None, tuning: ScanTuning,
) -> dict[Any, list[list[Any]]]:  # fmt: skip
    """Every key's search in one statement (one round trip): key j's block is the search
    of :func:`nearest` with its own query vectors and key parameters, each still planned
    for its key's value (a fresh statement, parameters known to the planner)."""
    one = search_sql(source, columns, where, k, count_where, tuning)
    keys = list(positions)
    blocks, params = _key_blocks(one, args, queries, positions)
    union = " UNION ALL ".join(blocks)
    statement = await conn.prepare(
        f"SELECT * FROM ({union}) u ORDER BY u.block, u.ord, u.similarity DESC"
    )
    rows = await statement.fetch(*params)
    exact = exact_sql(source, columns, where, k)
    out: dict[Any, list[list[Any]]] = {}
    for j, key in enumerate(keys):
        vecs = [Vector(list(queries[i][0])) for i in positions[key]]
        found: list[list[Any]] = [[] for _ in vecs]

        def collect(got: Sequence[Any], at: Sequence[int], found: list[list[Any]] = found) -> None:
            for i in at:
                found[i] = []
            for row in got:
                found[at[row["ord"] - 1]].append(row)

        mine = [r for r in rows if r["block"] == j]
        await complete_search(conn, exact, (*args, key), vecs, k, mine, collect)
        out[key] = found
    return out


async def _small_tenant_keys(
    conn: Any, source: str, columns: str, where: str, args: Sequence[Any],
    queries: Sequence[tuple[Sequence[float], Any]], positions: dict[Any, list[int]], k: int,
    tenant_where: str, tuning: ScanTuning,
) -> tuple[dict[Any, list[list[Any]]], bool]:  # fmt: skip
    """Every key's exact scan in one cached statement, and whether the tenant has more
    rows than ``exact_below`` (a bounded count). Exact scans are complete at any size;
    a large tenant only makes them slow, so the caller remembers it."""
    limit = int(tuning.exact_below)
    one = exact_sql(source, columns, where, k)
    keys = list(positions)
    blocks, params = _key_blocks(one, args, queries, positions)
    rows = await conn.fetch(
        f"WITH size AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM {source} t"
        f" WHERE {tenant_where} LIMIT {limit + 1}) c)"
        f" SELECT size.n > {limit} AS large, u.* FROM size LEFT JOIN"
        f" ({' UNION ALL '.join(blocks)}) u ON true ORDER BY u.block, u.ord, u.similarity DESC",
        *params,
    )
    out: dict[Any, list[list[Any]]] = {key: [[] for _ in positions[key]] for key in keys}
    for row in rows:
        if row["block"] is not None:
            out[keys[row["block"]]][row["ord"] - 1].append(row)
    return out, bool(rows[0]["large"])
