"""The extract stage's handler on a real database: one call, guarded graph, trace, ledger."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.events import EntityType, FactKind, FactsExtracted
from streams.model.ports import ExtractInput
from streams.stages.extract import create_stage
from streams.stages.release import CLAIM_HEADER, REASON_HEADER
from tests.support.episodes import COMPLETED_AT, episode, make_deps, new_tenant
from tests.support.stages import CTX
from tests.support.store_rows import seed_store


async def test_extract_produces_the_guarded_graph_and_records_the_call(pool: Any) -> None:
    tenant = new_tenant()
    await seed_store(pool, tenant)

    def model(req: ExtractInput) -> RawGraph:
        return RawGraph(
            entities=[RawEntity(name="Berlin", type="CITY")],
            relationships=[
                RawClaim(subject="user", predicate="Lives In", object="Berlin",
                         confidence=0.95, sourceQuote="I moved to Berlin", validFrom="2026-01-10"),
                RawClaim(subject="user", predicate="has movie nights on", object="fridays"),
            ],
            literalFacts=[
                RawClaim(subject="honda civic", predicate="has mileage of", object="80000 km"),
                RawClaim(subject="user", predicate="bought", object="honda civic", confidence=3),
            ],
        )  # fmt: skip

    deps = make_deps(pool, extract=model)
    event = episode(tenant, ["I moved to Berlin last month.", "Nice!", "My civic is at 80k km."])
    out = await create_stage(deps).handle(event, CTX)

    assert len(out) == 1 and isinstance(out[0], FactsExtracted)
    result = out[0]
    assert result.source_event_id == event.event_id and result.episode_id == event.episode_id
    facts = {(f.subject, f.predicate, f.object): f for f in result.facts}
    assert set(facts) == {
        ("user", "lives in", "berlin"),
        ("user", "has movie nights on", "fridays"),
        ("honda civic", "has mileage of", "80000 km"),  # civic is linked by a stored fact
        ("user", "bought", "honda civic"),
    }
    assert facts[("user", "has movie nights on", "fridays")].kind is FactKind.LITERAL
    assert facts[("user", "bought", "honda civic")].kind is FactKind.RELATIONSHIP
    bought = facts[("user", "bought", "honda civic")]  # a confidence of 3: another scale
    assert bought.confidence == 0.0 and "confidence 3 is not between 0 and 1" in (
        bought.untrusted or ""
    )
    assert facts[("user", "lives in", "berlin")].valid_from is not None
    assert {(e.name, e.type) for e in result.entities} == {
        ("user", EntityType.PERSON),
        ("berlin", EntityType.PLACE),
        ("honda civic", EntityType.VEHICLE),  # the stored type, not a new THING
    }

    # What the model was shown: the raw window, the tenant's live context, the time.
    request = deps.models.extractor.requests[0]
    assert [m.content for m in request.messages] == [m.content for m in event.messages]
    assert set(request.known_entities) == {"user", "acme", "honda civic"}
    assert set(request.recent_facts) == {
        "user works at acme", "user drives honda civic", "user lives in oslo",
    }  # fmt: skip
    assert request.reference_time == COMPLETED_AT

    async with pool.acquire() as conn:
        calls = await conn.fetch(
            "SELECT stage, kind, request, response, error FROM llm_calls"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            *tenant, event.episode_id,
        )  # fmt: skip
        row = await conn.fetchrow(
            "SELECT semantic_status, claimed_by, transcript, from_seq, to_seq FROM episodes"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            *tenant, event.episode_id,
        )  # fmt: skip
    assert [(c["stage"], c["kind"], c["error"]) for c in calls] == [("extract", "extract", None)]
    assert calls[0]["response"]["relationships"][0]["object"] == "Berlin"
    # Still in flight until the writer marks it done; the transcript is the ledger's copy.
    assert row["semantic_status"] == "processing" and row["claimed_by"] == "worker-1"
    assert [m["content"] for m in row["transcript"]] == [m.content for m in event.messages]
    assert (row["from_seq"], row["to_seq"]) == (1, 3)


async def test_context_is_capped_by_settings(pool: Any) -> None:
    tenant = new_tenant()
    await seed_store(pool, tenant)
    deps = make_deps(pool, context_entity_names=1, context_recent_facts=2)
    await create_stage(deps).handle(episode(tenant), CTX)
    request = deps.models.extractor.requests[0]
    assert len(request.known_entities) == 1 and len(request.recent_facts) == 2


async def test_an_extraction_with_no_facts_is_still_published(pool: Any) -> None:
    # The writer must see it to mark the episode done and open the tenant's gate.
    out = await create_stage(make_deps(pool)).handle(episode(new_tenant()), CTX)
    assert len(out) == 1 and out[0].facts == [] and out[0].entities == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("claim", "reason"),
    [
        (b"no-such-claim", b"dead-lettered by dedup"),
        # A NUL (Postgres cannot store it) neither fails the episode nor names a claim.
        (b"claim\x00token", b"dead\x00lettered"),
    ],
)
async def test_a_release_header_naming_no_live_claim_is_an_ordinary_episode(
    pool: Any, claim: bytes, reason: bytes
) -> None:
    """A client's record, or a redriven copy, carrying the internal release header: it
    names no live claim of this episode, so it is queued and extracted at once instead of
    waiting a claim timeout."""
    deps = make_deps(pool)
    event = episode(new_tenant(), ["I moved to Berlin last month."])
    forged = dataclasses.replace(CTX, headers=((CLAIM_HEADER, claim), (REASON_HEADER, reason)))
    out = await create_stage(deps).handle(event, forged)
    assert len(out) == 1 and isinstance(out[0], FactsExtracted)
    assert out[0].episode_id == event.episode_id
