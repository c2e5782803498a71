"""What a run left behind, read for reconciliation: ledger, facts, model-call errors, the
text of every tenant's rows (for canaries), dead letters and the fault log."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from chaos.poison import fingerprint
from streams.demo.report import terminal_state
from streams.ops.dlq import iter_dead_letters
from streams.pipeline import STAGES
from streams.runtime.dlq import H_EXC_CLASS, H_REASON, H_TOPIC
from streams.settings import Settings
from streams.store.db import connect

Tenant = tuple[str, str]
Episode = tuple[str, str, str]

# Transaction times (created_at, invalid_at) and row/entity ids are left out: they differ
# between any two runs. What ended a row is named by that row's triple and episode.
_FACTS = """
SELECT f.dataset, f.project_id, f.subject, f.predicate, f.object, f.kind,
       round(f.confidence::numeric, 4)::text AS confidence, f.source_quote, f.episode_id,
       f.valid_from, f.valid_until, f.invalid_at IS NULL AS live, f.invalid_reason,
       se.name AS subject_entity, oe.name AS object_entity,
       CASE WHEN b.id IS NULL THEN NULL
            ELSE concat_ws(' | ', b.subject, b.predicate, b.object, b.episode_id) END
         AS invalidated_by
FROM facts f
LEFT JOIN entities se ON se.id = f.subject_entity_id
LEFT JOIN entities oe ON oe.id = f.object_entity_id
LEFT JOIN facts b ON b.id = f.invalidated_by
"""


@dataclass
class DbState:
    ledger: dict[Episode, dict[str, Any]] = field(default_factory=dict)
    facts: dict[Tenant, Counter[tuple[Any, ...]]] = field(default_factory=dict)
    live_duplicates: list[tuple[Any, ...]] = field(default_factory=list)
    # tenant -> (episode, stage, error) of model calls that failed for good
    model_failures: dict[Tenant, list[tuple[str, str, str]]] = field(default_factory=dict)
    texts: dict[Tenant, list[str]] = field(default_factory=dict)


async def read_db(url: str) -> DbState:
    state = DbState()
    conn = await connect(url)
    try:
        for r in await conn.fetch("SELECT * FROM episodes"):
            state.ledger[(r["dataset"], r["project_id"], r["episode_id"])] = dict(r)
        for r in await conn.fetch(_FACTS):
            row = tuple(v for k, v in r.items() if k not in ("dataset", "project_id"))
            state.facts.setdefault((r["dataset"], r["project_id"]), Counter())[row] += 1
        state.live_duplicates = [
            tuple(r)
            for r in await conn.fetch(
                "SELECT dataset, project_id, subject, predicate, object, count(*) FROM facts"
                " WHERE invalid_at IS NULL AND (valid_until IS NULL OR valid_until > now())"
                " GROUP BY 1, 2, 3, 4, 5 HAVING count(*) > 1"
            )
        ]
        # Calls that failed for good (after the provider's retries, or not retryable).
        for r in await conn.fetch(
            "SELECT dataset, project_id, episode_id, stage, kind, error FROM llm_calls"
            " WHERE error IS NOT NULL AND stage <> 'summarize' ORDER BY id"
        ):
            failure = (r["episode_id"], r["stage"], r["error"][:60])
            state.model_failures.setdefault((r["dataset"], r["project_id"]), []).append(failure)
        for sql in (
            "SELECT dataset, project_id, concat_ws(' ', subject, predicate, object,"
            " source_quote) AS t FROM facts",
            "SELECT dataset, project_id, name AS t FROM entities",
            "SELECT dataset, project_id, coalesce(summary, '') AS t FROM episodes",
            "SELECT dataset, project_id, concat_ws(' ', subject, object, detail) AS t"
            " FROM fact_drops",
        ):
            for r in await conn.fetch(sql):
                state.texts.setdefault((r["dataset"], r["project_id"]), []).append(r["t"])
    finally:
        await conn.close()
    return state


@dataclass(frozen=True)
class DeadLetterSeen:
    stage: str
    fingerprint: str
    reason: str
    original_topic: str
    original: str  # topic/partition/offset
    exception: str  # class name
    episode: str | None  # the episode id, when the value is a readable event


def _episode_of(value: bytes | None) -> str | None:
    try:
        episode = json.loads(value or b"").get("episode_id")
    except (ValueError, AttributeError, RecursionError):  # the corpus nests past the limit
        return None
    return episode if isinstance(episode, str) else None


def read_dead_letters(settings: Settings) -> list[DeadLetterSeen]:
    out = []
    for stage in STAGES:
        for d in iter_dead_letters(settings, stage):
            out.append(DeadLetterSeen(
                stage, fingerprint(d.record.key, d.value), d.errors.get(H_REASON, "?"),
                d.errors.get(H_TOPIC, "?"), d.original,
                d.errors.get(H_EXC_CLASS, "?").rsplit(".", 1)[-1], _episode_of(d.value),
            ))  # fmt: skip
    return out


def read_fault_log(path: Path) -> Counter[str]:
    """Attempts per model-call kind and injected faults per fault kind."""
    counts: Counter[str] = Counter()
    if not path.is_file():
        return counts
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line cut by kill -9
        counts["attempts"] += 1
        counts[f"attempts:{entry['kind']}"] += 1
        if entry.get("fault"):
            counts["faults"] += 1
            counts[f"fault:{entry['fault']}"] += 1
    return counts


async def terminal_episodes(url: str, cap: int) -> set[tuple[str, str, str]]:
    try:
        conn = await asyncpg.connect(url, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return set()
    try:
        rows = await conn.fetch(
            "SELECT dataset, project_id, episode_id, status, retry_count,"
            " semantic_status, semantic_retry_count FROM episodes"
        )
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return set()
    finally:
        await conn.close()
    return {
        (r["dataset"], r["project_id"], r["episode_id"]) for r in rows if terminal_state(r, cap)
    }


def dead_letter_count(settings: Settings) -> int:
    total = 0
    for stage in STAGES:
        try:
            total += sum(1 for _ in iter_dead_letters(settings, stage))
        except Exception:
            return -1
    return total
