"""What the bench publishes and what it loads first: tenants, episodes, history.

Episodes follow :mod:`streams.model.fakes.bench` (the model answers from the episode
number). Tenants get the state of their "episode 0" in bulk (COPY, embeddings NULL) so
every published episode meets a live job, city and preferences: one judge call each.
The scale scenario adds N live facts per tenant with random vectors (generate_series) and
then builds the per-tenant HNSW indexes the sweep would build (streams/store/
tenant_indexes.py), at once rather than one per sweep pass.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from streams.events import EpisodeCompleted, Message, Role, Window
from streams.model.fakes.bench import episode_text, history_state
from streams.store.tenant_indexes import TenantIndex, build_missing
from streams.store.vector_search import DEFAULT_TUNING

HISTORY_EPISODE = "history"


@dataclass(frozen=True)
class Tenant:
    dataset: str
    project_id: str = "p"

    @property
    def key(self) -> str:
        return f"{self.dataset}:{self.project_id}"


def tenants(prefix: str, n: int) -> list[Tenant]:
    return [Tenant(f"{prefix}{i:05d}") for i in range(n)]


def episode(tenant: Tenant, k: int) -> EpisodeCompleted:
    # Ten minutes apart from a fixed past start, so even a long-reused bench database
    # never reaches an episode completed in the future (refused beyond the clock skew).
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=10 * k)
    messages = [
        Message(seq=i, role=Role(role), content=text, created_at=start + timedelta(minutes=i))
        for i, (role, text) in enumerate(episode_text(k))
    ]
    return EpisodeCompleted(
        dataset=tenant.dataset, project_id=tenant.project_id, episode_id=f"ep-{k}",
        session_id=f"s-{k}", window=Window(from_seq=0, to_seq=len(messages) - 1),
        messages=messages, completed_at=messages[-1].created_at,
    )  # fmt: skip


def round_robin(ts: Sequence[Tenant], per_tenant: int, first_k: int = 1) -> list[EpisodeCompleted]:
    """Episode k of every tenant before episode k+1 of any: tenants interleave, and one
    tenant's episodes arrive far apart (no tenant bursts)."""
    return [episode(t, k) for k in range(first_k, first_k + per_tenant) for t in ts]


async def load_history(url: str, ts: Sequence[Tenant]) -> float:
    """Each tenant's episode-0 state (entities user, org 0, city 0 and its live facts)."""
    started = time.perf_counter()
    conn = await asyncpg.connect(url)
    try:
        entities = [
            (t.dataset, t.project_id, name, kind)
            for t in ts
            for name, kind in (("user", "PERSON"), ("org 0", "ORG"), ("city 0", "PLACE"))
        ]
        await conn.copy_records_to_table(
            "entities", records=entities, columns=["dataset", "project_id", "name", "type"]
        )
        facts = [
            (t.dataset, t.project_id, s, p, o, kind, 0.9, HISTORY_EPISODE)
            for t in ts
            for s, p, o, kind in history_state()
        ]
        await conn.copy_records_to_table(
            "facts", records=facts,
            columns=["dataset", "project_id", "subject", "predicate", "object", "kind",
                     "confidence", "episode_id"],
        )  # fmt: skip
        await conn.execute("ANALYZE entities; ANALYZE facts")
    finally:
        await conn.close()
    return time.perf_counter() - started


async def load_live_facts(url: str, tenant: Tenant, n: int, dim: int) -> None:
    """n - |history| more live facts for the tenant (90% literal, 10% relationships to
    n/10 entities), each with its own random vector; all about the user, as most are.
    Like a real history: a vocabulary of a few hundred predicates (each with many
    objects), one creation time per fact (spread over the past), subject_entity_id set,
    and five facts per past episode (one episode id for all would tell the planner that
    any episode's facts are the whole table)."""
    conn = await asyncpg.connect(url)
    try:
        # The inner series references g, so each row gets its own random vector.
        vec = f"(SELECT array_agg(random() - 0.5) FROM generate_series(1, {dim}) WHERE g > 0)"
        n_entities = max(1, n // 10)
        await conn.execute(
            "INSERT INTO entities (dataset, project_id, name, type, embedding)"
            f" SELECT $1, $2, 'entity ' || g, 'THING', {vec}::vector"
            " FROM generate_series(1, $3) g",
            tenant.dataset, tenant.project_id, n_entities,
        )  # fmt: skip
        user_id = await conn.fetchval(
            "SELECT id FROM entities WHERE dataset = $1 AND project_id = $2 AND name = 'user'",
            tenant.dataset, tenant.project_id,
        )  # fmt: skip
        when = "now() - interval '1 day' - g * interval '1 second'"
        past_episode = "$4::text || '-' || (g / 5)"
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " subject_entity_id, object_entity_id, confidence, episode_id, embedding,"
            " created_at)"
            " SELECT $1, $2, 'user', 'is linked to ' || (g % 50), 'entity ' || g,"
            f" 'relationship', $5, e.id, 0.9, {past_episode}, {vec}::vector, {when}"
            " FROM generate_series(1, $3) g JOIN entities e ON e.dataset = $1"
            " AND e.project_id = $2 AND e.name = 'entity ' || g",
            tenant.dataset, tenant.project_id, n_entities, HISTORY_EPISODE, user_id,
        )  # fmt: skip
        literals = n - n_entities - len(history_state())
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " subject_entity_id, confidence, episode_id, embedding, created_at)"
            " SELECT $1, $2, 'user', 'has detail ' || (g % 500), 'value ' || g, 'literal',"
            f" $5, 0.9, {past_episode} || '-l', {vec}::vector, {when} - interval '1 hour'"
            " FROM generate_series(1, $3) g",
            tenant.dataset, tenant.project_id, max(0, literals), HISTORY_EPISODE, user_id,
        )  # fmt: skip
    finally:
        await conn.close()


async def build_tenant_indexes(url: str) -> list[TenantIndex]:
    """Every tenant past the exact-search limit gets its index, as the sweep would give it."""
    conn = await asyncpg.connect(url)
    try:
        built = await build_missing(conn, DEFAULT_TUNING.exact_below, limit=None)
        await conn.execute("VACUUM ANALYZE entities")
        await conn.execute("VACUUM ANALYZE facts")
    finally:
        await conn.close()
    return built


async def loaded_tenants(pool: Any, sizes: Sequence[int]) -> tuple[dict[int, Tenant], int]:
    """The scale tenants of a kept database, by size, and the next free episode number."""
    rows = await pool.fetch(
        "SELECT dataset, project_id, count(*) AS n FROM facts WHERE episode_id = $1"
        " OR episode_id LIKE $1 || '-%' GROUP BY 1, 2", HISTORY_EPISODE,
    )  # fmt: skip
    sized = {s: Tenant(r["dataset"], r["project_id"]) for s in sizes for r in rows
             if abs(int(r["n"]) - s) <= len(history_state())}  # fmt: skip
    last = await pool.fetchval(
        "SELECT max(split_part(episode_id, '-', 2)::int) FROM episodes WHERE episode_id LIKE 'ep-%'"
    )
    return sized, int(last or 0) + 1


# --- reading the outcome ------------------------------------------------------------------


async def progress(pool: Any, datasets: Sequence[str]) -> tuple[int, int]:
    """(episodes the writer finished, episodes whose summary finished) of these tenants."""
    row = await pool.fetchrow(
        "SELECT count(*) FILTER (WHERE semantic_status IN ('done', 'skipped', 'failed')) AS w,"
        " count(*) FILTER (WHERE status IN ('done', 'skipped', 'failed')) AS s"
        " FROM episodes WHERE dataset = ANY($1::text[])",
        list(datasets),
    )
    return int(row["w"]), int(row["s"])


async def committed_at(pool: Any, datasets: Sequence[str]) -> dict[tuple[str, str], float]:
    """(dataset, episode_id) -> epoch seconds of the writer's transaction that inserted the
    episode's facts (``created_at`` = clock_timestamp() right after the tenant lock)."""
    rows = await pool.fetch(
        "SELECT dataset, episode_id, extract(epoch FROM min(created_at))::float8 AS t"
        " FROM facts WHERE dataset = ANY($1::text[]) AND episode_id <> $2"
        " GROUP BY dataset, episode_id",
        list(datasets), HISTORY_EPISODE,
    )  # fmt: skip
    return {(r["dataset"], r["episode_id"]): float(r["t"]) for r in rows}


async def episode_states(pool: Any, datasets: Sequence[str]) -> dict[str, int]:
    rows = await pool.fetch(
        "SELECT semantic_status || '/' || status AS s, count(*) AS n FROM episodes"
        " WHERE dataset = ANY($1::text[]) GROUP BY 1",
        list(datasets),
    )
    return {r["s"]: int(r["n"]) for r in rows}


async def calls_per_episode(pool: Any, datasets: Sequence[str]) -> dict[str, Any]:
    """Model calls and tokens per episode by kind, from llm_calls, with the per-episode
    minimum and maximum so "exactly one" can be checked, not just averaged."""
    rows = await pool.fetch(
        "WITH e AS (SELECT dataset, project_id, episode_id FROM episodes"
        "  WHERE dataset = ANY($1::text[])),"
        " k(kind) AS (VALUES ('summarize'), ('extract'), ('judge'), ('embed')),"
        " per AS (SELECT e.dataset, e.episode_id, k.kind, count(c.id) AS calls,"
        "  coalesce(sum(c.input_tokens), 0) AS tin, coalesce(sum(c.output_tokens), 0) AS tout"
        "  FROM e CROSS JOIN k LEFT JOIN llm_calls c ON c.dataset = e.dataset"
        "  AND c.project_id = e.project_id AND c.episode_id = e.episode_id AND c.kind = k.kind"
        "  GROUP BY 1, 2, 3)"
        " SELECT kind, count(*) AS episodes, avg(calls)::float8 AS mean, min(calls) AS min,"
        " max(calls) AS max, avg(tin)::float8 AS tokens_in, avg(tout)::float8 AS tokens_out"
        " FROM per GROUP BY kind",
        list(datasets),
    )
    return {
        r["kind"]: {
            "episodes": int(r["episodes"]), "calls_mean": round(r["mean"], 3),
            "calls_min": int(r["min"]), "calls_max": int(r["max"]),
            "tokens_in_mean": round(r["tokens_in"], 1),
            "tokens_out_mean": round(r["tokens_out"], 1),
        }
        for r in rows
    }  # fmt: skip
