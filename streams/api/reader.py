"""Reading a tenant's memory back: facts on both clocks, one fact's provenance, entities
and their neighbourhood, episodes as they land and one episode's trace.

The Python reader of the read API; the HTTP endpoints (streams/api/routes.py) and the
Playground pages call the same functions. Every query filters on the tenant, so an id of
another tenant's fact, entity or episode is simply not found. Search is in
streams/api/search.py. ``pool`` is an asyncpg pool (or connection) from
streams.store.db, with the jsonb codec.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from streams.api.arguments import check_episode_id, check_row_id, check_tenant
from streams.api.stage_status import stage_statuses
from streams.domain.mends import DEFAULT_CAPS, Caps
from streams.store import facts_query, traces
from streams.store.facts_query import FactRow

_TENANT = "dataset = $1 AND project_id = $2"


@dataclass(frozen=True)
class FactDetail:
    """One fact and why it is there: its lineage, what ended it, where it came from."""

    fact: FactRow
    # Every row of its lineage (copies carry a valid end, originals are retired in
    # transaction time), oldest first: the fact on both clocks.
    lineage: list[FactRow]
    # The rows that ended rows of the lineage: in transaction time (invalidated_by) or
    # in valid time (ended_by), by id.
    enders: dict[int, FactRow]
    # The episodes the lineage's rows came from, with their user messages, by episode id.
    episodes: dict[str, dict[str, Any]]
    # The model calls of those episodes, oldest first (the extraction that produced it).
    calls: list[dict[str, Any]]
    # Copy id -> the episode its statement was said in (a copy's own episode ended it).
    said_in: dict[int, str] = field(default_factory=dict)


async def facts(
    pool: Any,
    dataset: str,
    project_id: str,
    *,
    valid_at: datetime | None = None,
    as_of: datetime | None = None,
    history: bool = False,
) -> list[FactRow]:
    """Live facts; true at ``valid_at``; believed at ``as_of``; both; or every row."""
    check_tenant(dataset, project_id)
    if history:
        return await facts_query.history(pool, dataset, project_id)
    return await facts_query.facts_at(pool, dataset, project_id, valid_at=valid_at, as_of=as_of)


_LINEAGE = f"""
WITH RECURSIVE up(id, copy_of) AS (
    SELECT id, copy_of FROM facts WHERE {_TENANT} AND id = $3
    UNION
    SELECT f.id, f.copy_of FROM facts f JOIN up ON f.id = up.copy_of
    WHERE f.dataset = $1 AND f.project_id = $2
), down(id) AS (
    SELECT id FROM up
    UNION
    SELECT f.id FROM facts f JOIN down ON f.copy_of = down.id
    WHERE f.dataset = $1 AND f.project_id = $2
)
SELECT id FROM down
"""


async def fact_detail(pool: Any, dataset: str, project_id: str, fact_id: int) -> FactDetail | None:
    """One fact of the tenant with its provenance, or None when the tenant has no such id."""
    check_tenant(dataset, project_id)
    check_row_id(fact_id, "fact_id")
    ids = [r["id"] for r in await pool.fetch(_LINEAGE, dataset, project_id, fact_id)]
    lineage = await facts_query.fact_rows(pool, dataset, project_id, ids)
    fact = next((r for r in lineage if r.id == fact_id), None)
    if fact is None:
        return None
    ender_ids = {i for r in lineage for i in (r.invalidated_by, r.ended_by) if i is not None}
    enders = {
        r.id: r for r in await facts_query.fact_rows(pool, dataset, project_id, sorted(ender_ids))
    }
    episode_ids = sorted({r.episode_id for r in lineage})
    root = next((r.episode_id for r in lineage if r.copy_of is None), None)
    return FactDetail(
        fact=fact,
        lineage=lineage,
        enders=enders,
        # Every copy in one lineage continues its one original: the lineage's root.
        said_in={r.id: root for r in lineage if r.copy_of is not None and root is not None},
        episodes=await _episodes_by_id(pool, dataset, project_id, episode_ids),
        calls=await _calls(pool, dataset, project_id, episode_ids),
    )


async def _episodes_by_id(
    pool: Any, dataset: str, project_id: str, episode_ids: list[str]
) -> dict[str, dict[str, Any]]:
    records = await pool.fetch(
        "SELECT episode_id, session_id, from_seq, to_seq, completed_at, transcript, status,"
        f" semantic_status FROM episodes WHERE {_TENANT} AND episode_id = ANY($3::text[])",
        dataset, project_id, episode_ids,
    )  # fmt: skip
    return {r["episode_id"]: dict(r) for r in records}


async def _calls(
    pool: Any, dataset: str, project_id: str, episode_ids: list[str]
) -> list[dict[str, Any]]:
    records = await pool.fetch(
        "SELECT id, episode_id, stage, kind, model, request, response, input_tokens,"
        " output_tokens, latency_ms, attempts, error, created_at FROM llm_calls"
        f" WHERE {_TENANT} AND episode_id = ANY($3::text[]) ORDER BY id",
        dataset, project_id, episode_ids,
    )  # fmt: skip
    return [dict(r) for r in records]


# --- entities -------------------------------------------------------------------------


async def entities(pool: Any, dataset: str, project_id: str) -> list[dict[str, Any]]:
    """The tenant's entities, with how many believed facts name each (as subject or object)."""
    check_tenant(dataset, project_id)
    records = await pool.fetch(
        "SELECT e.id, e.name, e.type, e.created_at,"
        " (SELECT count(*) FROM facts f WHERE f.dataset = e.dataset"
        "  AND f.project_id = e.project_id AND f.invalid_at IS NULL"
        "  AND (f.subject_entity_id = e.id OR f.object_entity_id = e.id)) AS facts"
        " FROM entities e WHERE e.dataset = $1 AND e.project_id = $2 ORDER BY e.name, e.type",
        dataset, project_id,
    )  # fmt: skip
    return [dict(r) for r in records]


async def entity(
    pool: Any,
    dataset: str,
    project_id: str,
    entity_id: int,
    *,
    valid_at: datetime | None = None,
    as_of: datetime | None = None,
    history: bool = False,
) -> tuple[dict[str, Any], list[FactRow]] | None:
    """One entity and its neighbourhood: the facts it is the subject or the object of
    (on the same clocks as :func:`facts`), or None when the tenant has no such entity."""
    check_tenant(dataset, project_id)
    check_row_id(entity_id, "entity_id")
    record = await pool.fetchrow(
        f"SELECT id, name, type, created_at FROM entities WHERE {_TENANT} AND id = $3",
        dataset, project_id, entity_id,
    )  # fmt: skip
    if record is None:
        return None
    if history:
        rows = await facts_query.history(pool, dataset, project_id, entity_id=entity_id)
    else:
        rows = await facts_query.facts_at(
            pool, dataset, project_id, valid_at=valid_at, as_of=as_of, entity_id=entity_id
        )
    return dict(record), rows


# --- episodes ------------------------------------------------------------------------

_EPISODES = """
SELECT e.dataset, e.project_id, e.episode_id, e.session_id, e.completed_at, e.status,
    e.retry_count, e.last_error, e.semantic_status, e.semantic_retry_count,
    e.semantic_last_error, e.created_at, e.updated_at,
    (SELECT array_agg(DISTINCT c.stage) FROM llm_calls c WHERE c.dataset = e.dataset
        AND c.project_id = e.project_id AND c.episode_id = e.episode_id) AS call_stages,
    (SELECT array_agg(DISTINCT c.stage) FROM llm_calls c WHERE c.dataset = e.dataset
        AND c.project_id = e.project_id AND c.episode_id = e.episode_id
        AND c.error IS NOT NULL) AS failed_stages,
    (SELECT count(*) FROM facts f WHERE f.dataset = e.dataset AND f.project_id = e.project_id
        AND f.episode_id = e.episode_id AND f.copy_of IS NULL) AS facts_added,
    (SELECT count(*) FROM fact_drops d WHERE d.dataset = e.dataset
        AND d.project_id = e.project_id AND d.episode_id = e.episode_id) AS drops
FROM episodes e
WHERE ($1::text IS NULL OR (e.dataset = $1 AND e.project_id = $2))
  AND ($3::timestamptz IS NULL OR e.updated_at > $3)
ORDER BY e.updated_at DESC, e.dataset, e.project_id, e.episode_id
LIMIT $4
"""


async def episodes(
    pool: Any,
    tenant: tuple[str, str] | None = None,
    *,
    changed_after: datetime | None = None,
    limit: int = 100,
) -> list[dict[str, Any]]:
    """Episodes by last change, newest first: one tenant's, or every tenant's (the
    Playground's feed); ``changed_after`` returns only what changed since a poll."""
    dataset, project_id = tenant if tenant is not None else (None, None)
    if tenant is not None:
        check_tenant(dataset, project_id)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 10_000:
        raise ValueError(f"limit: a whole number from 1 to 10000, not {limit!r}")
    records = await pool.fetch(_EPISODES, dataset, project_id, changed_after, limit)
    return [dict(r) | {"stages": stage_statuses(r)} for r in records]


async def tenants(pool: Any) -> list[dict[str, Any]]:
    """Every tenant with episodes or facts, for the Playground's navigation."""
    records = await pool.fetch(
        "SELECT dataset, project_id, sum(episodes)::int AS episodes, sum(facts)::int AS facts"
        " FROM (SELECT dataset, project_id, 1 AS episodes, 0 AS facts FROM episodes"
        "  UNION ALL SELECT dataset, project_id, 0, 1 FROM facts WHERE invalid_at IS NULL) t"
        " GROUP BY dataset, project_id ORDER BY dataset, project_id"
    )
    return [dict(r) for r in records]


async def episode_trace(
    pool: Any, dataset: str, project_id: str, episode_id: str, caps: Caps = DEFAULT_CAPS
) -> tuple[traces.EpisodeTrace, list[dict[str, Any]]] | None:
    """One episode's trace (streams/store/traces.py) and its transcript, or None; ``caps``:
    the deployment's length caps, for the guards' mends."""
    check_tenant(dataset, project_id)
    check_episode_id(episode_id)
    async with pool.acquire() as conn:
        trace = await traces.load_trace(conn, dataset, project_id, episode_id, caps)
        if trace is None:
            return None
        transcript = await conn.fetchval(
            f"SELECT transcript FROM episodes WHERE {_TENANT} AND episode_id = $3",
            dataset, project_id, episode_id,
        )  # fmt: skip
    return trace, list(transcript or [])
