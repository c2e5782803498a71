"""A big tenant's newest vectors, kept out of its HNSW graph until the sweep grafts them.

Inserting a row into a tenant's HNSW graph (streams/store/tenant_indexes.py) walks the
graph to link it: several milliseconds a row at 100k rows, paid inside the writer's
transaction, under the tenant's lock. So a row written while its tenant has a graph
carries ``graph_pending = true`` (migration 018), which the graph's predicate leaves
out; the row costs a plain insert. Until it is grafted it sits in the tenant's *tail*,
the rows of a small partial btree (``facts_graph_tail``, ``entities_graph_tail``), and
every search of the tenant's graph also scans the tail exactly
(streams/store/vector_search.py), so nothing is missed and nothing is approximate there.

The sweep grafts the tails: it sets ``graph_pending`` to NULL in batches, which inserts
those rows into their graphs then, off the episode's path. The tail stays as small as
one sweep interval of a tenant's writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# relation -> what a pending row of it must also be to be searched (the tail index's WHERE)
_TAIL_ROWS = {"facts": "graph_pending AND invalid_at IS NULL", "entities": "graph_pending"}
RELATIONS = tuple(_TAIL_ROWS)


def in_graph(alias: str = "t") -> str:
    """The rows a tenant's graph may hold, spelled as the graph's predicate spells it."""
    return f"{alias}.graph_pending IS NULL"


def in_tail(alias: str = "t") -> str:
    return f"{alias}.graph_pending"


@dataclass
class Grafted:
    facts: int = 0
    entities: int = 0

    @property
    def total(self) -> int:
        return self.facts + self.entities


async def graft(
    conn: Any, batch: int = 500, limit: int = 5_000, tenant: tuple[str, str] | None = None
) -> Grafted:
    """Graft pending rows into their tenants' graphs (only ``tenant``'s when given),
    ``batch`` rows per statement (each its own short transaction, so no lock is held for
    long), at most ``limit`` rows of each relation per call: a tail bigger than that is
    finished by later passes, and the sweep's other work never waits for one tenant's
    backlog."""
    done = Grafted()
    for relation in RELATIONS:
        moved = 0
        while moved < limit:
            n = await _graft_batch(conn, relation, min(batch, limit - moved), tenant)
            moved += n
            if n < batch:
                break
        setattr(done, relation, moved)
    return done


async def _graft_batch(conn: Any, relation: str, n: int, tenant: tuple[str, str] | None) -> int:
    status = await conn.execute(
        f"UPDATE {relation} SET graph_pending = NULL WHERE id IN ("
        f" SELECT id FROM {relation} WHERE {_TAIL_ROWS[relation]}"
        " AND ($2::text IS NULL OR (dataset = $2 AND project_id = $3))"
        " ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)",
        n, *(tenant or (None, None)),
    )  # fmt: skip
    return int(status.split()[-1])


async def pending(conn: Any, relation: str, dataset: str, project_id: str) -> int:
    """How many of the tenant's searchable rows wait outside its graph."""
    return int(
        await conn.fetchval(
            f"SELECT count(*) FROM {relation} WHERE dataset = $1 AND project_id = $2"
            f" AND {_TAIL_ROWS[relation]}",
            dataset,
            project_id,
        )
    )
