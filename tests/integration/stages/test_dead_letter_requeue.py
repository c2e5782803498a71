"""A record dead-lettered after extraction gives its tenant's gate back at once
(streams/stages/after_dead_letter.py): the episode is queued again in its place with a
retry counted, or ends failed at the cap, and a wake-up goes out with the dead letter."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from streams.events import EpisodeCompleted, Fact, FactKind, FactsResolved
from streams.model.ports import EmbedInput
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import error_headers
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import OutRecord, Record
from streams.stages.dedup import create_stage
from streams.store import episodes
from streams.store.db import create_pool
from tests.db_support import create_fresh_database
from tests.integration.stages.helpers import episode, make_deps, new_tenant

TIMEOUT = 600.0


@pytest.fixture(scope="module")
async def rq_pool(database_url: str) -> AsyncIterator[Any]:
    p = await create_pool(await create_fresh_database(database_url), max_size=4)
    yield p
    await p.close()


def broken_embedder(_: EmbedInput) -> Exception:
    return ValueError("embedding service returned garbage")  # not transient: dead at once


def processor(pool: Any) -> tuple[RecordProcessor, str]:
    deps = make_deps(pool, embed_fail=broken_embedder, max_retries=2)
    stage = create_stage(deps)
    cfg = WorkerConfig(stage="dedup", group="g-dedup", dlq_topic="dlq.dedup")
    return RecordProcessor(stage, cfg, WorkerMetrics("dedup-rq")), deps.settings.topic(
        "episodes.completed"
    )


def resolved(ev: EpisodeCompleted) -> Record:
    fact = Fact(subject="user", predicate="lives in", object="berlin", kind=FactKind.LITERAL,
                confidence=0.9, source_quote="I moved to Berlin")  # fmt: skip
    out = FactsResolved(dataset=ev.dataset, project_id=ev.project_id, episode_id=ev.episode_id,
                        source_event_id=ev.event_id, entities=[], facts=[fact])  # fmt: skip
    key = ev.tenant.encode()
    return Record("t.facts.resolved", 0, 7, key, out.model_dump_json().encode())


async def claim_first(pool: Any, *evs: EpisodeCompleted) -> EpisodeCompleted | None:
    async with pool.acquire() as conn:
        for ev in evs:
            await episodes.enqueue_episode(conn, ev)
        return await episodes.claim_next(conn, evs[0].dataset, evs[0].project_id, "w", TIMEOUT)


async def ledger(pool: Any, ev: EpisodeCompleted) -> Any:
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            "SELECT semantic_status, semantic_retry_count, semantic_last_error FROM episodes"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


def split(outs: tuple[OutRecord, ...], wake_topic: str) -> tuple[OutRecord, list[OutRecord]]:
    [dead] = [o for o in outs if o.topic == "dlq.dedup"]
    return dead, [o for o in outs if o.topic == wake_topic]


async def test_dead_letter_requeues_the_episode_and_wakes_it(rq_pool: Any) -> None:
    tenant = new_tenant()
    e1, e2 = episode(tenant), episode(tenant)
    claimed = await claim_first(rq_pool, e1, e2)
    assert claimed is not None and claimed.episode_id == e1.episode_id
    proc, wake_topic = processor(rq_pool)

    dead, wakes = split(await proc(resolved(e1)), wake_topic)

    assert error_headers(dead.headers)["x-reason"] == "handler_error"
    row = await ledger(rq_pool, e1)
    assert row["semantic_status"] == "queued" and row["semantic_retry_count"] == 1
    assert "dedup: handler_error" in row["semantic_last_error"]
    assert "embedding service returned garbage" in row["semantic_last_error"]
    # The wake-up restarts e1 itself, still ahead of e2, keyed by the tenant.
    [wake] = wakes
    assert wake.key == f"{tenant[0]}:{tenant[1]}".encode()
    assert json.loads(wake.value)["episode_id"] == e1.episode_id
    assert (await ledger(rq_pool, e2))["semantic_status"] == "queued"


async def test_at_the_cap_the_episode_fails_and_the_next_one_is_woken(rq_pool: Any) -> None:
    tenant = new_tenant()
    e1, e2 = episode(tenant), episode(tenant)
    proc, wake_topic = processor(rq_pool)  # max_retries=2
    await claim_first(rq_pool, e1, e2)
    await proc(resolved(e1))  # retry 1: queued again, and claimed again below
    assert await claim_first(rq_pool, e1) is not None

    _, wakes = split(await proc(resolved(e1)), wake_topic)

    row = await ledger(rq_pool, e1)
    assert row["semantic_status"] == "failed" and row["semantic_retry_count"] == 2
    [wake] = wakes
    assert json.loads(wake.value)["episode_id"] == e2.episode_id


async def test_a_dead_letter_of_a_claim_that_is_gone_changes_nothing(rq_pool: Any) -> None:
    tenant = new_tenant()
    e1 = episode(tenant)
    await claim_first(rq_pool, e1)
    stale = e1.model_copy(update={"event_id": "an-older-event"})  # an earlier claim's record
    proc, wake_topic = processor(rq_pool)

    dead, wakes = split(await proc(resolved(stale)), wake_topic)

    assert wakes == [] and error_headers(dead.headers)["x-reason"] == "handler_error"
    row = await ledger(rq_pool, e1)
    assert row["semantic_status"] == "processing" and row["semantic_retry_count"] == 0
