"""Resolve stage against real Postgres: aliases converge, types stay apart, upserts race."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from streams.events import EntityType, FactsResolved
from streams.model.fakes.scripted import hashed_vector, scripted_models, vector_at_similarity
from streams.model.ports import ModelCallFailed
from streams.settings import Settings
from streams.stages.resolve import ResolveStage
from tests.support.facts import DIM, embedder, extracted, lit, rel
from tests.support.stages import CTX, stage_deps

ORG, FOOD, PERSON = EntityType.ORG, EntityType.FOOD, EntityType.PERSON

SETTINGS = Settings(embedding_dim=DIM)  # thresholds: entity 0.88


async def run(pool: Any, emb: Any, event: Any) -> FactsResolved:
    stage = ResolveStage(stage_deps(SETTINGS, pool, scripted_models(embedder=emb)))
    out = await stage.handle(event, CTX)
    assert len(out) == 1 and isinstance(out[0], FactsResolved)
    return out[0]


def about(tenant: Any, episode: str, name: str, etype: EntityType) -> Any:
    """An episode naming one entity the user is linked to (an unlinked one is not stored)."""
    return extracted(
        tenant, episode, [("user", PERSON), (name, etype)], [rel("user", "knows of", name)]
    )


def named(out: FactsResolved) -> Any:
    """The one entity besides "user" an episode resolved."""
    [entity] = [e for e in out.entities if e.name != "user"]
    return entity


async def stored(pool: Any, tenant: Any) -> list[tuple[str, str]]:
    rows = await pool.fetch(
        "SELECT name, type FROM entities WHERE dataset=$1 AND project_id=$2 ORDER BY name, type",
        tenant.dataset,
        tenant.project_id,
    )
    return [(r["name"], r["type"]) for r in rows]


async def test_aliases_converge_on_the_canonical_entity_and_facts_are_rewritten(
    pool: Any, tenant: Any
) -> None:
    acme = hashed_vector("acme", DIM)
    emb = embedder({"acme": acme, "acme corp": vector_at_similarity(acme, 0.93)})
    first = await run(
        pool,
        emb,
        extracted(
            tenant, "e1", [("user", PERSON), ("acme", ORG)], [rel("user", "works at", "acme")]
        ),
    )
    acme_id = first.entities[1].entity_id
    assert acme_id is not None

    event = extracted(
        tenant,
        "e2",
        [("user", PERSON), ("Acme Corp", ORG), ("acme corp.", ORG)],
        [
            rel("user", "works at", "Acme Corp"),
            rel("user", "owns shares of", "acme corp."),
            lit("Acme Corp", "has headcount of", "500"),
        ],
    )
    out = await run(pool, emb, event)

    user_id = first.entities[0].entity_id
    assert [(e.name, e.entity_id, e.raw_name) for e in out.entities] == [
        ("user", user_id, "user"),
        ("acme", acme_id, "Acme Corp"),
        ("acme", acme_id, "acme corp."),
    ]
    assert [(f.subject, f.object, f.subject_entity_id, f.object_entity_id) for f in out.facts] == [
        ("user", "acme", user_id, acme_id),
        ("user", "acme", user_id, acme_id),
        ("acme", "500", acme_id, None),
    ]
    assert await stored(pool, tenant) == [("acme", "ORG"), ("user", "PERSON")]
    # One embedding batch per episode; the exact matches of e2 ("user") are not embedded.
    assert [r.texts for r in emb.requests] == [["acme"], ["acme corp"]]
    assert {r.purpose for r in emb.requests} == {"entities"}
    calls = await pool.fetch(
        "SELECT episode_id, stage, kind FROM llm_calls WHERE dataset=$1 ORDER BY id",
        tenant.dataset,
    )
    assert [tuple(c) for c in calls] == [("e1", "resolve", "embed"), ("e2", "resolve", "embed")]


async def test_apple_the_org_never_merges_into_apple_the_food(pool: Any, tenant: Any) -> None:
    emb = embedder({"apple": hashed_vector("apple", DIM)})  # the very same vector for both
    org = named(await run(pool, emb, about(tenant, "e1", "apple", ORG)))
    food = named(await run(pool, emb, about(tenant, "e2", "apple", FOOD)))
    assert org.entity_id != food.entity_id
    assert await stored(pool, tenant) == [("apple", "FOOD"), ("apple", "ORG"), ("user", "PERSON")]
    # An entity of unknown type (THING) reuses the exact name instead of adding a third row.
    thing = named(await run(pool, emb, about(tenant, "e3", "Apple", EntityType.THING)))
    assert thing.entity_id == org.entity_id
    assert len(await stored(pool, tenant)) == 3


async def test_same_type_neighbour_merges_at_089_but_not_at_087(pool: Any, tenant: Any) -> None:
    acme = hashed_vector("acme", DIM)
    emb = embedder(
        {
            "acme": acme,
            "acme inc": vector_at_similarity(acme, 0.87, seed="inc"),
            "acme co": vector_at_similarity(acme, 0.89, seed="co"),
            "acme cafe": vector_at_similarity(acme, 0.99, seed="cafe"),
        }
    )
    base = named(await run(pool, emb, about(tenant, "e1", "acme", ORG)))
    below = named(await run(pool, emb, about(tenant, "e2", "acme inc", ORG)))
    above = named(await run(pool, emb, about(tenant, "e3", "acme co", ORG)))
    other_type = named(await run(pool, emb, about(tenant, "e4", "acme cafe", FOOD)))
    assert below.name == "acme inc" and below.entity_id != base.entity_id
    assert (above.name, above.entity_id) == ("acme", base.entity_id)
    assert other_type.name == "acme cafe"
    assert await stored(pool, tenant) == [
        ("acme", "ORG"),
        ("acme cafe", "FOOD"),
        ("acme inc", "ORG"),
        ("user", "PERSON"),
    ]


async def test_two_workers_inserting_the_same_new_entity_end_with_one_row(
    pool: Any, tenant: Any
) -> None:
    # The delay holds both handlers between their exact lookup and their insert.
    emb = embedder(delay_s=0.3)
    events = [about(tenant, f"e{i}", "zephyr labs", ORG) for i in (1, 2)]
    one, two = await asyncio.gather(*(run(pool, emb, e) for e in events))
    assert {one.entities[1].entity_id, two.entities[1].entity_id} == {one.entities[1].entity_id}
    assert one.entities[0].entity_id == two.entities[0].entity_id
    assert await stored(pool, tenant) == [("user", "PERSON"), ("zephyr labs", "ORG")]


async def test_an_embedding_with_nan_fails_the_call_and_stores_nothing(
    pool: Any, tenant: Any
) -> None:
    broken = [1.0] * (DIM - 1) + [float("nan")]
    emb = embedder({"acme": broken})
    with pytest.raises(ModelCallFailed, match="not finite numbers"):
        await run(pool, emb, about(tenant, "e1", "acme", ORG))
    assert await stored(pool, tenant) == []
