"""Dedup stage against real Postgres: exact, in-batch and near duplicates, closures, tenants."""

from __future__ import annotations

from typing import Any

import pytest

from streams.events import Candidate, Dropped, DropStage, FactsDeduped
from streams.model.fakes.scripted import hashed_vector, scripted_models, vector_at_similarity
from streams.settings import Settings
from streams.stages.dedup import DedupStage
from streams.store import staged_vectors
from tests.support.facts import DIM, days_from_now, embedder, lit, rel, resolved
from tests.support.stages import CTX, stage_deps
from tests.support.store_rows import insert_live_fact

SETTINGS = Settings(embedding_dim=DIM)  # fact dedup threshold 0.95
LARGE = "user wants large screen"
BIG = "user prefers big display"


async def run(pool: Any, emb: Any, event: Any) -> FactsDeduped:
    stage = DedupStage(stage_deps(SETTINGS, pool, scripted_models(embedder=emb)))
    out = await stage.handle(event, CTX)
    assert len(out) == 1 and isinstance(out[0], FactsDeduped)
    return out[0]


def sentences(candidates: list[Candidate]) -> list[str]:
    return [c.fact.sentence() for c in candidates]


def reasons(dropped: list[Dropped]) -> list[tuple[str, str]]:
    return [(d.reason, f"{d.subject} {d.predicate} {d.object}") for d in dropped]


async def test_in_batch_paraphrases_leave_one_survivor_with_its_embedding(
    pool: Any, tenant: Any
) -> None:
    large = hashed_vector(LARGE, DIM)
    emb = embedder({LARGE: large, BIG: vector_at_similarity(large, 0.97)})
    event = resolved(
        tenant,
        "e1",
        [lit("user", "wants", "large screen"), lit("user", "prefers", "big display")],
    )
    out = await run(pool, emb, event)
    assert sentences(out.candidates) == [LARGE]
    # Its embedding is staged for the writer under the event's id, not sent along.
    staged = await staged_vectors.read(pool, tenant.dataset, tenant.project_id, out.event_id)
    assert out.candidates[0].vector == 0
    assert staged == {0: pytest.approx(emb.vector(LARGE), abs=1e-6)}
    assert reasons(out.dropped) == [("near_duplicate", BIG)]
    assert out.dropped[0].stage is DropStage.DEDUP and "0.97" in out.dropped[0].detail
    # One embedding batch for the survivors of the exact pass, recorded for the trace.
    assert [(r.purpose, r.texts) for r in emb.requests] == [("facts", [LARGE, BIG])]
    stages = await pool.fetch(
        "SELECT stage, kind FROM llm_calls WHERE dataset=$1 AND episode_id='e1'", tenant.dataset
    )
    assert [tuple(r) for r in stages] == [("dedup", "embed")]


async def test_a_paraphrase_of_a_live_fact_is_dropped(pool: Any, tenant: Any) -> None:
    large = hashed_vector(LARGE, DIM)
    live_id = await insert_live_fact(
        pool, tenant.dataset, tenant.project_id, lit("user", "wants", "large screen"), large
    )
    near_miss = "user likes wide monitors"
    emb = embedder(
        {BIG: vector_at_similarity(large, 0.97), near_miss: vector_at_similarity(large, 0.93)}
    )
    event = resolved(
        tenant, "e1", [lit("user", "prefers", "big display"), lit("user", "likes", "wide monitors")]
    )
    out = await run(pool, emb, event)
    assert sentences(out.candidates) == [near_miss]  # 0.93 < 0.95: kept for the judge
    assert reasons(out.dropped) == [("near_duplicate", BIG)]
    assert f"#{live_id}" in out.dropped[0].detail and LARGE in out.dropped[0].detail
    # ...with the live fact it sits in the contradiction band of, for the judge to read,
    # and the watermark of the tenant's writes it was read at.
    assert out.candidates[0].band_neighbours == [live_id]
    created = await pool.fetchval("SELECT created_at FROM facts WHERE id = $1", live_id)
    assert out.live_facts_as_of == created


async def test_a_live_fact_of_another_subject_is_neither_a_duplicate_nor_in_the_band(
    pool: Any, tenant: Any
) -> None:
    hiking = hashed_vector("user likes hiking", DIM)
    await insert_live_fact(
        pool, tenant.dataset, tenant.project_id, lit("user", "likes", "hiking"), hiking
    )
    emb = embedder({"sister likes hiking": vector_at_similarity(hiking, 0.99)})
    out = await run(pool, emb, resolved(tenant, "e1", [lit("sister", "likes", "hiking")]))
    assert sentences(out.candidates) == ["sister likes hiking"] and out.dropped == []
    assert out.candidates[0].band_neighbours == []


async def test_an_ended_fact_is_a_closure_not_a_drop(pool: Any, tenant: Any) -> None:
    civic = rel("user", "drives", "honda civic")
    live_id = await insert_live_fact(
        pool, tenant.dataset, tenant.project_id, civic, hashed_vector(civic.sentence(), DIM)
    )
    ended = days_from_now(-30)
    emb = embedder()
    out = await run(
        pool, emb, resolved(tenant, "e1", [rel("user", "drives", "honda civic", until=ended)])
    )
    assert out.dropped == [] and out.candidates == []
    assert [(c.fact_id, c.subject, c.predicate, c.object) for c in out.closures] == [
        (live_id, "user", "drives", "honda civic")
    ]
    assert out.closures[0].valid_until == ended
    assert emb.requests == []  # nothing left to embed


async def test_exact_live_duplicate_and_in_batch_repeat_are_dropped(pool: Any, tenant: Any) -> None:
    city = lit("user", "lives in", "chennai")
    live_id = await insert_live_fact(
        pool, tenant.dataset, tenant.project_id, city, hashed_vector(city.sentence(), DIM)
    )
    # An expired row is history, not live: restating it is not a duplicate.
    await insert_live_fact(
        pool,
        tenant.dataset,
        tenant.project_id,
        lit("user", "owns", "a bike"),
        hashed_vector("user owns a bike", DIM),
        valid_until=days_from_now(-1),
    )
    event = resolved(
        tenant,
        "e1",
        [
            city,
            lit("user", "drinks", "tea"),
            lit("user", "drinks", "tea"),
            lit("user", "owns", "a bike"),
        ],
    )
    emb = embedder()
    out = await run(pool, emb, event)
    assert sentences(out.candidates) == ["user drinks tea", "user owns a bike"]
    assert reasons(out.dropped) == [
        ("exact_duplicate", "user lives in chennai"),
        ("in_batch_duplicate", "user drinks tea"),
    ]
    assert f"#{live_id}" in out.dropped[0].detail
    assert [r.texts for r in emb.requests] == [["user drinks tea", "user owns a bike"]]


async def test_another_tenants_identical_live_fact_does_not_drop(pool: Any, tenant: Any) -> None:
    tea = lit("user", "drinks", "tea")
    vec = hashed_vector(tea.sentence(), DIM)
    await insert_live_fact(pool, "someone-else", tenant.project_id, tea, vec)
    await insert_live_fact(pool, tenant.dataset, "other-project", tea, vec)
    out = await run(pool, embedder(), resolved(tenant, "e1", [tea]))
    assert sentences(out.candidates) == ["user drinks tea"] and out.dropped == []


async def test_no_candidates_still_emits_the_event_without_an_embed_call(
    pool: Any, tenant: Any
) -> None:
    guard_drop = Dropped(stage=DropStage.GUARD, reason="subject_not_allowed", subject="bob")
    event = resolved(tenant, "e1", []).model_copy(update={"dropped": [guard_drop]})
    emb = embedder()
    out = await run(pool, emb, event)
    assert (out.candidates, out.closures, out.dropped) == ([], [], [guard_drop])
    assert (out.episode_id, out.source_event_id) == ("e1", "src-e1")
    assert emb.requests == []
