"""The vector of a fact row that keeps none, read up its copy chain.

A copy whose valid end had passed when it was written keeps no vector of its own
(streams/store/valid_ends.py): it is history, searched by no one as live. Every row of a
chain has the same triple, hence the same vector, so the nearest row up the chain that
keeps one gives it: to a search of the past, and to a copy that is current again (an end
moved from the past into the future, or taken back).
"""

from __future__ import annotations


def vector_up_chain(start: str, dataset: str, project_id: str) -> str:
    """A scalar subquery: the vector of the row ``start`` (an SQL expression of its id) or
    of the nearest row up its chain that keeps one; NULL when none does. Put it last in a
    ``coalesce``, so that the walk runs only when nothing nearer holds a vector."""
    tenant = f"x.dataset = {dataset} AND x.project_id = {project_id}"
    return (
        "(WITH RECURSIVE up(copy_of, embedding, depth) AS ("
        f" SELECT x.copy_of, x.embedding, 0 FROM facts x WHERE x.id = {start} AND {tenant}"
        " UNION ALL SELECT x.copy_of, x.embedding, up.depth + 1 FROM up JOIN facts x"
        f" ON x.id = up.copy_of AND {tenant} WHERE up.embedding IS NULL)"
        " SELECT embedding FROM up WHERE embedding IS NOT NULL ORDER BY depth LIMIT 1)"
    )
