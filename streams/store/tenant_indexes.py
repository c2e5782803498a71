"""One HNSW index per big tenant, instead of one over every tenant's vectors.

A nearest-neighbour search reads an HNSW index only for a tenant with more than
``ScanTuning.exact_below`` rows (streams/store/vector_search.py: smaller ones are
scanned exactly, which is cheaper and complete). A global index would be paid for on
every insert of every tenant (an HNSW insert costs several times a plain row insert), and
a big tenant's search would walk a graph full of other tenants' vectors.

So there are no global vector indexes (migration 009), and the sweep (streams/ops/sweep.py) builds,
for each tenant that has grown past the threshold, a partial index over that tenant's
rows alone (``CREATE INDEX CONCURRENTLY``: writes go on meanwhile), one per pass. Small
tenants pay nothing on insert; a big tenant's search walks its own graph. The planner
uses a partial index only when it can prove the query's tenant equals the index's, which
needs a custom plan: ``configure_search`` sets ``plan_cache_mode = force_custom_plan``.
Until its index is built, a tenant that crossed the threshold gets exact results from a
plain scan, only slower. Each partial index costs the planner a predicate check on every
query of its table, which is fine for hundreds of big tenants, not for a million.

A tenant's graph leaves out the rows written after it was built (``graph_pending``,
streams/store/graph_tail.py): an HNSW insert into a big graph costs several milliseconds
a row, so the writer does not pay it; the sweep grafts those rows in batches.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

# relation -> the rows a search may return (the index's WHERE beyond the tenant)
_LIVE_ROWS = {"facts": "invalid_at IS NULL", "entities": "TRUE"}
_PREFIX = {"facts": "facts_graph_", "entities": "entities_graph_"}
# Graphs built before migration 018 hold pending rows too; each is dropped once the
# tenant's new graph is built (searches use either meanwhile: both are implied).
_FORMER_PREFIX = {"facts": "facts_hnsw_t_", "entities": "entities_hnsw_t_"}


@dataclass(frozen=True)
class TenantIndex:
    relation: str
    dataset: str
    project_id: str

    @property
    def name(self) -> str:
        """Deterministic, so "has this tenant got one" is a catalog lookup."""
        return _PREFIX[self.relation] + self._digest

    @property
    def former_name(self) -> str:
        return _FORMER_PREFIX[self.relation] + self._digest

    @property
    def _digest(self) -> str:
        return hashlib.md5(f"{self.dataset}:{self.project_id}".encode()).hexdigest()[:16]


# The same name in SQL: md5 of "<dataset>:<project_id>", first 16 hex digits.
_NAME_SQL = "'{prefix}' || left(md5({dataset} || ':' || {project_id}), 16)"
_WANTED = """
SELECT t.dataset, t.project_id FROM (
    SELECT dataset, project_id FROM {relation} WHERE {rows}
    GROUP BY dataset, project_id HAVING count(*) > $1
) t
WHERE NOT EXISTS (
    SELECT 1 FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
    WHERE c.relname = {name} AND c.relnamespace = current_schema()::regnamespace
      AND i.indisvalid)
ORDER BY t.dataset, t.project_id
"""


async def tenants_without_index(conn: Any, relation: str, min_rows: int) -> list[TenantIndex]:
    """Tenants with more than ``min_rows`` searchable rows of ``relation`` and no valid
    index of their own yet. One grouped scan of the relation's live rows."""
    sql = _WANTED.format(
        relation=relation, rows=_LIVE_ROWS[relation],
        name=_NAME_SQL.format(
            prefix=_PREFIX[relation], dataset="t.dataset", project_id="t.project_id"
        ),
    )  # fmt: skip
    rows = await conn.fetch(sql, min_rows)
    return [TenantIndex(relation, r["dataset"], r["project_id"]) for r in rows]


def _literal(value: str) -> str:
    # Tenant ids are [A-Za-z0-9_.-] (events.TENANT_ID_PATTERN); quote anyway.
    return "'" + value.replace("'", "''") + "'"


def has_graph_sql(relation: str, dataset: str, project_id: str) -> str:
    """SQL that is true when the tenant (``dataset`` and ``project_id`` are SQL, e.g.
    "$1" and "$2") has a graph of the new kind, valid or being built, else NULL: the
    ``graph_pending`` of a row written now. A row written NULL before a build began is
    taken in by the build; a row written true after it began is left to the tail."""
    name = _NAME_SQL.format(prefix=_PREFIX[relation], dataset=dataset, project_id=project_id)
    return (
        f"(SELECT true FROM pg_class c WHERE c.relname = {name}"
        " AND c.relnamespace = current_schema()::regnamespace)"
    )


def create_sql(index: TenantIndex) -> str:
    where = (
        f"dataset = {_literal(index.dataset)} AND project_id = {_literal(index.project_id)}"
        f" AND {_LIVE_ROWS[index.relation]} AND graph_pending IS NULL"
    )
    return (
        f"CREATE INDEX CONCURRENTLY {index.name} ON {index.relation}"
        f" USING hnsw (embedding vector_cosine_ops) WHERE {where}"
    )


async def build_index(conn: Any, index: TenantIndex, maintenance_work_mem: str = "256MB") -> None:
    """Build one tenant's index; not inside a transaction (CONCURRENTLY). A build that
    failed half-way leaves an invalid index behind: it is dropped and built again."""
    await conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index.name}")
    await conn.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
    try:
        await conn.execute(create_sql(index))
    finally:
        await conn.execute("RESET maintenance_work_mem")
    await conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index.former_name}")


async def build_missing(conn: Any, min_rows: int, limit: int | None = 1) -> list[TenantIndex]:
    """Build up to ``limit`` missing tenant indexes (all when None), facts first; returns
    what was built. The sweep calls this once per pass with the default limit of one, so
    a backlog of big tenants cannot stall the sweep for long."""
    built: list[TenantIndex] = []
    for relation in ("facts", "entities"):
        for index in await tenants_without_index(conn, relation, min_rows):
            if limit is not None and len(built) >= limit:
                return built
            log.info(
                "building the %s vector index of %s:%s (%s)",
                relation, index.dataset, index.project_id, index.name,
            )  # fmt: skip
            await build_index(conn, index)
            built.append(index)
    return built
