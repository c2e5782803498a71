"""Tenant isolation: many tenants judged and written concurrently, two of them sharing a
32-bit ``hashtext`` (the lock key of earlier versions). No row, query or trace of one
tenant may ever show another's data."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.events import FactsJudged
from streams.model.fakes.scripted import hashed_vector
from streams.settings import Settings
from streams.stages.judge import create_stage as create_judge
from streams.stages.write import create_stage as create_writer
from streams.store.facts_query import as_of, history, live_facts
from streams.store.judge_reads import conflicting_live_facts, search_bands
from tests.support.facts import DIM, LIT, cand, deduped, deps, fact, judge_answering
from tests.support.stages import ctx
from tests.support.store_rows import seed_fact

Tenant = tuple[str, str]


async def colliding_tenants(pool: Any) -> tuple[Tenant, Tenant]:
    """Two tenants whose '<dataset>:<project_id>' keys have the same hashtext.

    A bounded search: 400k names give ~18 colliding pairs in a 32-bit hash on average.
    """
    prefix = f"iso{uuid.uuid4().hex[:6]}"
    pair = await pool.fetchrow(
        "SELECT min(n) AS a, max(n) AS b FROM generate_series(1, 400000) AS n"
        " GROUP BY hashtext($1 || '-' || n || ':p') HAVING count(*) > 1 LIMIT 1",
        prefix,
    )
    assert pair is not None, "no hashtext collision among 400k names"
    return (f"{prefix}-{pair['a']}", "p"), (f"{prefix}-{pair['b']}", "p")


def canary(t: Tenant) -> str:
    return f"canary {t[0]}"


async def seed(pool: Any, t: Tenant) -> None:
    await seed_fact(pool, t, fact("user", "works at", f"google {canary(t)}"))
    await seed_fact(pool, t, fact("user", "drives", "honda civic"))
    await seed_fact(pool, t, fact("honda civic", "has mileage of", canary(t), LIT))


async def pipeline(pool: Any, t: Tenant, sells: bool, judge: Any, partition: int) -> None:
    """Two episodes of one tenant, judged then written, one after the other."""
    judge_stage = create_judge(deps(Settings(), pool, judge))
    writer = create_writer(deps(Settings(), pool))
    episodes = [[cand(fact("user", "works at", f"acme {canary(t)}"))]]
    if sells:
        yesterday = datetime.now(UTC) - timedelta(days=1)
        episodes.append([cand(fact("user", "sold", "honda civic", until=yesterday))])
    for offset, candidates in enumerate(episodes):
        (out,) = await judge_stage.handle(deduped(t, candidates, f"e{offset}"), ctx(offset))
        assert isinstance(out, FactsJudged)
        await writer.handle(out, ctx(offset, partition))


async def test_concurrent_tenants_never_see_each_other(pool: Any) -> None:
    a, b = await colliding_tenants(pool)
    assert await pool.fetchval(
        "SELECT hashtext($1) = hashtext($2)", f"{a[0]}:{a[1]}", f"{b[0]}:{b[1]}"
    )
    others = [(f"iso-{uuid.uuid4().hex[:8]}", "p") for _ in range(8)]
    tenants = [a, b, *others]
    for t in tenants:
        await seed(pool, t)
    judge = judge_answering(lambda new, old: "old")
    # Every tenant sells its civic but b and every second other one; same partition for
    # the colliding pair, as a real key collision on the lock would not care.
    sells = {t: t != b and i % 2 == 0 for i, t in enumerate(tenants)}
    await asyncio.gather(
        *(pipeline(pool, t, sells[t], judge, partition=i % 3) for i, t in enumerate(tenants))
    )

    canaries = {canary(t) for t in tenants}
    for t in tenants:
        foreign = canaries - {canary(t)}
        live = await live_facts(pool, *t)
        seen = [
            *live,
            *await history(pool, *t),
            *await as_of(pool, *t, datetime.now(UTC)),
        ]
        texts = " | ".join(f"{r.subject} {r.predicate} {r.object}" for r in seen)
        assert not any(c in texts for c in foreign), t
        expected = {("user", "works at", f"acme {canary(t)}")}
        if not sells[t]:
            expected |= {
                ("user", "drives", "honda civic"),
                ("honda civic", "has mileage of", canary(t)),
            }
        assert {r.triple for r in live} == expected, t
        async with pool.acquire() as conn:
            probe = cand(fact("user", "works at", "x"))
            banded = await search_bands(
                conn, *t, [probe], [hashed_vector("user works at x", DIM)], band_min=0.0,
                now=datetime.now(UTC),
            )  # fmt: skip
            near, _ = await conflicting_live_facts(conn, *t, banded, now=datetime.now(UTC))
        assert not any(c in f.object for f in near for c in foreign), t
        drops_and_calls = await pool.fetch(
            "SELECT detail || subject || predicate || object AS text FROM fact_drops"
            " WHERE dataset = $1 AND project_id = $2"
            " UNION ALL SELECT request::text FROM llm_calls WHERE dataset = $1 AND project_id = $2",
            *t,
        )
        assert not any(c in r["text"] for r in drops_and_calls for c in foreign), t

    # Every judge call carried only its own tenant's facts.
    for request in judge.requests:
        own = canary((request.scope.dataset, request.scope.project_id))
        texts = " ".join(p.candidate + p.existing for p in request.pairs)
        assert not any(c in texts for c in canaries - {own})
    offsets = await pool.fetch("SELECT tenant, last_offset FROM consumed_offsets")
    assert {r["tenant"] for r in offsets} == {f"{t[0]}:{t[1]}" for t in tenants}


async def test_ids_of_another_tenant_or_of_no_row_are_not_stored(pool: Any) -> None:
    """A forged judged record naming another tenant's entity and fact, or ids no row has:
    the fact lands without those links (no cross-tenant reference, no foreign-key error)."""
    mine, theirs = (f"iso-{uuid.uuid4().hex[:8]}", "p"), (f"iso-{uuid.uuid4().hex[:8]}", "p")
    foreign_fact = await seed_fact(pool, theirs, fact("user", "works at", "secret corp"))
    foreign_entity = await pool.fetchval(
        "INSERT INTO entities (dataset, project_id, name, type) VALUES ($1, $2, 'secret corp',"
        " 'ORG') RETURNING id", *theirs,
    )  # fmt: skip
    linked = fact("user", "works at", "acme").model_copy(
        update={"subject_entity_id": foreign_entity, "object_entity_id": 9_000_000_000}
    )
    candidate = cand(linked).model_copy(update={"ended_by": foreign_fact})
    judged_event = FactsJudged(
        dataset=mine[0], project_id=mine[1], episode_id="e1", source_event_id="e1",
        inserts=[candidate],
    )  # fmt: skip
    await create_writer(deps(Settings(), pool)).handle(judged_event, ctx(1))
    row = await pool.fetchrow(
        "SELECT subject_entity_id, object_entity_id, invalidated_by, invalid_reason FROM facts"
        " WHERE dataset = $1 AND project_id = $2", *mine,
    )  # fmt: skip
    assert dict(row) == {
        "subject_entity_id": None, "object_entity_id": None, "invalidated_by": None,
        "invalid_reason": None,
    }  # fmt: skip
