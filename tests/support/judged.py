"""Helpers shared by the judge and writer integration tests (real Postgres, no Kafka).

Stages are driven by calling ``handle`` directly with a RecordContext; the model is a
scripted judge (streams/model/fakes/scripted.py), never a mock.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from streams.events import (
    Candidate,
    Closure,
    DedupedCandidate,
    Dropped,
    Fact,
    FactKind,
    FactsDeduped,
    FactsJudged,
    Invalidation,
)
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
    hashed_vector,
)
from streams.model.ports import JudgeInput, JudgeOutput, Models
from streams.runtime.stage import RecordContext, StageDeps
from streams.settings import Settings
from tests.support.db import TEST_EMBEDDING_DIM

DIM = TEST_EMBEDDING_DIM
REL, LIT = FactKind.RELATIONSHIP, FactKind.LITERAL


def new_tenant() -> tuple[str, str]:
    hex_id = uuid.uuid4().hex[:10]
    return f"ds-{hex_id}", f"p-{hex_id}"


def deps(settings: Settings, pool: Any, judge: ScriptedJudge | None = None) -> StageDeps:
    models = Models(
        extractor=ScriptedExtractor(lambda r: None),
        judge=judge or ScriptedJudge(lambda r: JudgeOutput()),
        summarizer=ScriptedSummarizer(lambda r: None),
        embedder=ScriptedEmbedder(DIM),
    )
    return StageDeps(settings=settings, pool=pool, models=models, worker_id="test-worker")


def judge_answering(verdict: Callable[[str, str], str]) -> ScriptedJudge:
    """A judge whose verdict per pair is ``verdict(candidate_text, existing_text)``."""

    def script(request: JudgeInput) -> JudgeOutput:
        return JudgeOutput.model_validate(
            {
                "verdicts": [
                    {"pair_id": p.pair_id, "verdict": verdict(p.candidate, p.existing)}
                    for p in request.pairs
                ]
            }
        )

    return ScriptedJudge(script)


def ctx(offset: int, partition: int = 0, topic: str = "facts.judged") -> RecordContext:
    return RecordContext(
        group="factstream-write", topic=topic, partition=partition, offset=offset, key=None,
        timestamp_ms=0,
    )  # fmt: skip


def fact(
    s: str,
    p: str,
    o: str,
    kind: FactKind = REL,
    *,
    conf: float = 0.9,
    until: datetime | None = None,
    since: datetime | None = None,
) -> Fact:
    return Fact(
        subject=s, predicate=p, object=o, kind=kind, confidence=conf, valid_until=until,
        valid_from=since, source_quote=f"{s} {p} {o}",
    )  # fmt: skip


def cand(f: Fact, embedding: list[float] | None = None) -> DedupedCandidate:
    return DedupedCandidate(fact=f, embedding=embedding or hashed_vector(f.sentence(), DIM))


def deduped(
    tenant: tuple[str, str], candidates: Sequence[DedupedCandidate], episode: str = "e1",
    closures: Sequence[Closure] = (),
) -> FactsDeduped:  # fmt: skip
    return FactsDeduped(
        dataset=tenant[0], project_id=tenant[1], episode_id=episode, source_event_id="src",
        candidates=list(candidates), closures=list(closures),
    )  # fmt: skip


def judged(
    tenant: tuple[str, str],
    inserts: Sequence[Candidate] = (),
    invalidations: Sequence[Invalidation] = (),
    closures: Sequence[Closure] = (),
    dropped: Sequence[Dropped] = (),
    episode: str = "e1",
) -> FactsJudged:
    return FactsJudged(
        dataset=tenant[0], project_id=tenant[1], episode_id=episode, source_event_id="src",
        inserts=list(inserts), invalidations=list(invalidations), closures=list(closures),
        dropped=list(dropped),
    )  # fmt: skip


def ends(fact_id: int, f: Fact, by: int = 0) -> Invalidation:
    return Invalidation(
        fact_id=fact_id, subject=f.subject, predicate=f.predicate, object=f.object, by_candidate=by
    )


async def seed_fact(
    conn: Any,
    tenant: tuple[str, str],
    f: Fact,
    *,
    embedding: list[float] | None = None,
    episode: str = "e0",
    created_at: datetime | None = None,
) -> int:
    """Insert a live fact directly, as an earlier episode's writer would have."""
    fact_id: int = await conn.fetchval(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " source_quote, episode_id, embedding, valid_from, valid_until, created_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, coalesce($13, now()))"
        " RETURNING id",
        tenant[0], tenant[1], f.subject, f.predicate, f.object, f.kind.value, f.confidence,
        f.source_quote, episode, embedding or hashed_vector(f.sentence(), DIM), f.valid_from,
        f.valid_until, created_at,
    )  # fmt: skip
    return fact_id


async def seed_episode(conn: Any, tenant: tuple[str, str], episode: str) -> None:
    """An episode row claimed by extraction, as the writer finds it."""
    await conn.execute(
        "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
        " to_seq, transcript, completed_at, semantic_status, claimed_at, claimed_by)"
        " VALUES ($1, $2, $3, 's', 'evt', 1, 1, '[]'::jsonb, now(), 'processing', now(), 'w')",
        tenant[0], tenant[1], episode,
    )  # fmt: skip


async def rows(conn: Any, tenant: tuple[str, str]) -> list[dict[str, Any]]:
    """Every fact row of the tenant, oldest first."""
    records = await conn.fetch(
        "SELECT id, subject, predicate, object, valid_until, invalid_at IS NOT NULL AS ended,"
        " invalid_reason, invalidated_by, created_at, invalid_at FROM facts"
        " WHERE dataset = $1 AND project_id = $2 ORDER BY id",
        *tenant,
    )
    return [dict(r) for r in records]


async def live_triples(conn: Any, tenant: tuple[str, str]) -> set[tuple[str, str, str]]:
    records = await conn.fetch(
        "SELECT subject, predicate, object FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND invalid_at IS NULL AND (valid_until IS NULL OR valid_until > now())",
        *tenant,
    )
    return {(r["subject"], r["predicate"], r["object"]) for r in records}


async def snapshot(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
    """Every table the writer touches, whole, for before/after comparisons."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for table in ("facts", "fact_drops", "episodes", "consumed_offsets", "llm_calls"):
        records = await conn.fetch(f"SELECT * FROM {table} ORDER BY 1, 2, 3")
        out[table] = [tuple(str(v) for v in r.values()) for r in records]
    return out
