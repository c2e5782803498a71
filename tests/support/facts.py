"""Builders of facts and of the stage events that carry them, for stage and store tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.events import (
    Candidate,
    Closure,
    DedupedCandidate,
    Dropped,
    Entity,
    EntityType,
    Fact,
    FactKind,
    FactsDeduped,
    FactsExtracted,
    FactsJudged,
    FactsResolved,
    Invalidation,
)
from streams.model.fakes.book import answer_pairs
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedJudge,
    hashed_vector,
    scripted_models,
)
from streams.model.ports import JudgeInput, JudgeOutput
from streams.runtime.stage import StageDeps
from streams.settings import Settings
from streams.store import staged_vectors
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.stages import stage_deps

DIM = TEST_EMBEDDING_DIM
REL, LIT = FactKind.RELATIONSHIP, FactKind.LITERAL


def fact(
    s: str,
    p: str,
    o: str,
    kind: FactKind = REL,
    *,
    conf: float = 0.9,
    until: datetime | None = None,
    since: datetime | None = None,
    quote: str | None = None,
) -> Fact:
    """A guarded fact; its quote is its own sentence unless given."""
    return Fact(
        subject=s, predicate=p, object=o, kind=kind, confidence=conf, valid_until=until,
        valid_from=since, source_quote=f"{s} {p} {o}" if quote is None else quote,
    )  # fmt: skip


def rel(subject: str, predicate: str, obj: str, until: datetime | None = None) -> Fact:
    return fact(subject, predicate, obj, REL, until=until, quote="")


def lit(subject: str, predicate: str, obj: str, until: datetime | None = None) -> Fact:
    return fact(subject, predicate, obj, LIT, until=until, quote="")


def days_from_now(days: float) -> datetime:
    return datetime.now(UTC) + timedelta(days=days)


def embedder(table: dict[str, list[float]] | None = None, delay_s: float = 0.0) -> Any:
    return ScriptedEmbedder(DIM, table=table, delay_s=delay_s)


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


def cand(f: Fact) -> DedupedCandidate:
    """A candidate as dedup hands it over when it found no live fact in its band; no
    vector staged (the stage that needs one embeds its sentence)."""
    return DedupedCandidate(fact=f, band_neighbours=[], band_similarity=[])


async def with_staged_vectors(
    pool: Any, event: FactsDeduped, vectors: Sequence[list[float]]
) -> FactsDeduped:
    """``event`` with ``vectors`` staged for its candidates, as dedup stages them, and no
    band handed over: the judge searches it."""
    await staged_vectors.stage(pool, event.dataset, event.project_id, event.event_id, vectors)
    candidates = [
        c.model_copy(update={"vector": i, "band_neighbours": None, "band_similarity": None})
        for i, c in enumerate(event.candidates)
    ]
    return event.model_copy(update={"candidates": candidates})


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
    stated_at: datetime | None = None,
) -> FactsJudged:
    return FactsJudged(
        dataset=tenant[0], project_id=tenant[1], episode_id=episode, source_event_id="src",
        inserts=list(inserts), invalidations=list(invalidations), closures=list(closures),
        dropped=list(dropped), stated_at=stated_at,
    )  # fmt: skip


async def with_staged_inserts(pool: Any, event: FactsJudged) -> FactsJudged:
    """``event`` with its inserts' vectors staged as dedup stages them (each its sentence's
    hashed vector), so the writer needs no embedder."""
    source = f"dedup-of-{event.event_id}"
    vectors = [hashed_vector(c.fact.sentence(), DIM) for c in event.inserts]
    await staged_vectors.stage(pool, event.dataset, event.project_id, source, vectors)
    inserts = [c.model_copy(update={"vector": i}) for i, c in enumerate(event.inserts)]
    return event.model_copy(update={"inserts": inserts, "vectors_from": source})


def ends(fact_id: int, f: Fact, by: int = 0, until: datetime | None = None) -> Invalidation:
    return Invalidation(
        fact_id=fact_id, subject=f.subject, predicate=f.predicate, object=f.object,
        by_candidate=by, valid_until=until,
    )  # fmt: skip


def judge_answering(verdict: Callable[[str, str], str]) -> ScriptedJudge:
    """A judge whose verdict per pair is ``verdict(candidate_text, existing_text)``."""

    def script(request: JudgeInput) -> JudgeOutput:
        return answer_pairs(request, verdict)

    return ScriptedJudge(script)


def deps(settings: Settings, pool: Any, judge: ScriptedJudge | None = None) -> StageDeps:
    """Stage deps with a scripted judge (every pair ``neither`` unless given), and the
    test embedder's dimension."""
    settings = settings.model_copy(update={"embedding_dim": DIM})
    models = scripted_models(dim=DIM)
    if judge is not None:
        models.judge = judge
    return stage_deps(settings, pool, models)
