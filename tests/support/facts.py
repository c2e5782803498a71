"""Fixtures and helpers shared by the resolve and dedup integration tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.events import Entity, EntityType, Fact, FactKind, FactsExtracted, FactsResolved
from streams.model.fakes.scripted import ScriptedEmbedder
from streams.runtime.stage import RecordContext
from tests.support.db import TEST_EMBEDDING_DIM

CTX = RecordContext(group="g", topic="t", partition=0, offset=0, key=None, timestamp_ms=0)
DIM = TEST_EMBEDDING_DIM


def embedder(table: dict[str, list[float]] | None = None, delay_s: float = 0.0) -> Any:
    return ScriptedEmbedder(DIM, table=table, delay_s=delay_s)


def rel(subject: str, predicate: str, obj: str, until: datetime | None = None) -> Fact:
    return Fact(
        subject=subject,
        predicate=predicate,
        object=obj,
        kind=FactKind.RELATIONSHIP,
        confidence=0.9,
        valid_until=until,
    )


def lit(subject: str, predicate: str, obj: str, until: datetime | None = None) -> Fact:
    return Fact(
        subject=subject,
        predicate=predicate,
        object=obj,
        kind=FactKind.LITERAL,
        confidence=0.9,
        valid_until=until,
    )


def extracted(
    tenant: Any, episode: str, entities: Sequence[tuple[str, EntityType]], facts: Sequence[Fact]
) -> FactsExtracted:
    return FactsExtracted(
        dataset=tenant.dataset,
        project_id=tenant.project_id,
        episode_id=episode,
        source_event_id=f"src-{episode}",
        entities=[Entity(name=n, type=t) for n, t in entities],
        facts=list(facts),
    )


def resolved(tenant: Any, episode: str, facts: Sequence[Fact]) -> FactsResolved:
    return FactsResolved(
        dataset=tenant.dataset,
        project_id=tenant.project_id,
        episode_id=episode,
        source_event_id=f"src-{episode}",
        entities=[],
        facts=list(facts),
    )


async def insert_live_fact(
    pool: Any,
    dataset: str,
    project_id: str,
    fact: Fact,
    embedding: Sequence[float] | None,
    *,
    valid_until: datetime | None = None,
) -> int:
    """A stored live fact, written with SQL as the writer would have."""
    fact_id: int = await pool.fetchval(
        "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind, confidence,"
        " episode_id, embedding, valid_until) VALUES ($1, $2, $3, $4, $5, $6, $7, 'e0', $8, $9)"
        " RETURNING id",
        dataset,
        project_id,
        fact.subject,
        fact.predicate,
        fact.object,
        fact.kind.value,
        fact.confidence,
        None if embedding is None else list(embedding),
        valid_until,
    )
    return fact_id


def days_from_now(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)
