"""`factstream trace EPISODE`: the path of one episode, for answering "why (not) this fact?".

Shows the ledger row (status per stage), every model request and response, what each
guard, dedup, judge and write step dropped and why, the facts the episode added and the
facts those ended, and what the guards silently mended in the extract answer (derived on
read by streams/domain/mends.py). Read-only; every query filters on the episode's own tenant.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from streams.domain.mends import DEFAULT_CAPS, Caps, derive_mends, read_stored_answer
from streams.store.db import connect


@dataclass
class EpisodeTrace:
    dataset: str
    project_id: str
    episode_id: str
    ledger: dict[str, Any]
    calls: list[dict[str, Any]] = field(default_factory=list)
    drops: list[dict[str, Any]] = field(default_factory=list)
    facts_added: list[dict[str, Any]] = field(default_factory=list)
    facts_ended: list[dict[str, Any]] = field(default_factory=list)
    # What the guards changed silently (what, item, given, stored, why), derived on read.
    mends: list[dict[str, str]] = field(default_factory=list)


def extract_mends(
    calls: list[dict[str, Any]], facts_added: list[dict[str, Any]], caps: Caps = DEFAULT_CAPS
) -> list[Any]:
    """The mends of the episode's last answered extract call, under the deployment's length
    caps; objects of relationships it added count as known entities (a literal naming one
    was promoted)."""
    answered = [c for c in calls if c.get("kind") == "extract" and not c.get("error")]
    raw = read_stored_answer(answered[-1].get("response")) if answered else None
    if raw is None:
        return []
    known = [f["object"] for f in facts_added if f.get("kind") == "relationship"]
    return [asdict(m) for m in derive_mends(raw, known, caps)]


_LEDGER = (
    "SELECT dataset, project_id, episode_id, session_id, from_seq, to_seq, status, retry_count,"
    " last_error, semantic_status, semantic_retry_count, semantic_last_error, claimed_at,"
    " claimed_by, summary, created_at, updated_at FROM episodes WHERE episode_id = $1"
)
_TENANT = " AND dataset = $2 AND project_id = $3"


async def load_traces(
    database_url: str, episode_id: str, dataset: str | None = None, project_id: str | None = None,
    caps: Caps = DEFAULT_CAPS,
) -> list[EpisodeTrace]:  # fmt: skip
    """One trace per tenant holding this episode id (usually one); ``caps``: the
    deployment's length caps, for the guards' mends."""
    conn = await connect(database_url)
    try:
        if dataset is not None and project_id is not None:
            rows = await conn.fetch(_LEDGER + _TENANT, episode_id, dataset, project_id)
        else:
            rows = await conn.fetch(_LEDGER, episode_id)
        return [await _load_one(conn, dict(row), caps) for row in rows]
    finally:
        await conn.close()


async def load_trace(
    conn: Any, dataset: str, project_id: str, episode_id: str, caps: Caps = DEFAULT_CAPS
) -> EpisodeTrace | None:
    """The trace of one tenant's episode on an open connection (the read API's pool);
    None when that tenant has no such episode."""
    row = await conn.fetchrow(_LEDGER + _TENANT, episode_id, dataset, project_id)
    return None if row is None else await _load_one(conn, dict(row), caps)


async def _load_one(conn: Any, ledger: dict[str, Any], caps: Caps) -> EpisodeTrace:
    key = (ledger["episode_id"], ledger["dataset"], ledger["project_id"])
    trace = EpisodeTrace(ledger["dataset"], ledger["project_id"], ledger["episode_id"], ledger)
    trace.calls = [
        dict(r)
        for r in await conn.fetch(
            "SELECT stage, kind, model, request, response, input_tokens, output_tokens,"
            " latency_ms, attempts, error, created_at FROM llm_calls"
            " WHERE episode_id = $1" + _TENANT + " ORDER BY id",
            *key,
        )
    ]
    trace.drops = [
        dict(r)
        for r in await conn.fetch(
            "SELECT stage, reason, detail, subject, predicate, object FROM fact_drops"
            " WHERE episode_id = $1" + _TENANT + " ORDER BY id",
            *key,
        )
    ]
    trace.facts_added = [
        dict(r)
        for r in await conn.fetch(
            "SELECT id, subject, predicate, object, kind, confidence, stated_at, valid_from,"
            " valid_until, invalid_at, invalid_reason, copy_of, end_reason, ended_by,"
            " source_quote, untrusted_reason"
            " FROM facts WHERE episode_id = $1" + _TENANT + " ORDER BY id",
            *key,
        )
    ]
    trace.facts_ended = [
        dict(r)
        for r in await conn.fetch(
            "SELECT old.id, old.subject, old.predicate, old.object, old.invalid_reason,"
            " old.invalid_at, old.invalidated_by FROM facts old JOIN facts new"
            " ON new.id = old.invalidated_by AND new.dataset = old.dataset"
            " AND new.project_id = old.project_id"
            " WHERE new.episode_id = $1 AND new.dataset = $2 AND new.project_id = $3"
            " ORDER BY old.id",
            *key,
        )
    ]
    trace.mends = extract_mends(trace.calls, trace.facts_added, caps)
    return trace


def trace_to_json(trace: EpisodeTrace) -> str:
    return json.dumps(trace.__dict__, default=str, indent=2)


# --- a whole database at once (the demo's own database) ------------------------------------


async def ledger_rows(conn: Any) -> list[Any]:
    """Every episode's statuses, by tenant and episode."""
    rows: list[Any] = await conn.fetch(
        "SELECT dataset, project_id, episode_id, status, retry_count, semantic_status,"
        " semantic_retry_count, last_error, semantic_last_error FROM episodes"
        " ORDER BY dataset, project_id, episode_id"
    )
    return rows


async def drop_rows(conn: Any) -> list[Any]:
    """Every drop of every episode, by tenant, episode and order."""
    rows: list[Any] = await conn.fetch(
        "SELECT dataset, project_id, episode_id, stage, reason, subject, predicate, object"
        " FROM fact_drops ORDER BY dataset, project_id, episode_id, id"
    )
    return rows
