"""The extract handler and the episode ledger: done, skipped, failed, claimed, parked."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from typing import Any

import pytest
from pydantic import BaseModel

from streams.domain.graph import RawClaim, RawGraph
from streams.errors import TransientError
from streams.model.ports import ExtractInput
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import error_headers
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import Record
from streams.stages.extract import create_stage
from streams.stages.release import CLAIM_HEADER
from streams.store.episodes import enqueue_episode
from streams.store.gate import claim_next, mark_semantic_done, next_to_release
from tests.support.episodes import episode, make_deps, new_tenant
from tests.support.stages import CTX
from tests.support.store_rows import ledger, llm_calls

# Retries in place wait milliseconds, not the model backoff of production.
FAST_RETRIES = {"llm_backoff_base_s": 0.01, "llm_backoff_max_s": 0.02}


def rec(offset: int) -> Any:
    """The context of the consumed record at ``offset`` (each record its own offset: a
    worker handling the same record again takes its own claim back)."""
    return replace(CTX, offset=offset)


def lives_in(city: str) -> Any:
    def script(_: ExtractInput) -> RawGraph:
        return RawGraph(literalFacts=[RawClaim(subject="user", predicate="lives in", object=city)])

    return script


async def test_a_done_episode_is_skipped_unless_reprocess(pool: Any) -> None:
    deps = make_deps(pool, extract=lives_in("berlin"))
    stage = create_stage(deps)
    ev = episode(new_tenant())
    assert len(await stage.handle(ev, rec(1))) == 1
    async with pool.acquire() as conn:
        await mark_semantic_done(conn, ev.dataset, ev.project_id, ev.episode_id)

    assert await stage.handle(ev, rec(2)) == []  # published again: nothing again, no model call
    assert len(deps.models.extractor.requests) == 1
    assert (await ledger(pool, ev))["semantic_status"] == "done"

    again = await stage.handle(ev.model_copy(update={"reprocess": True}), rec(3))
    assert len(again) == 1 and len(deps.models.extractor.requests) == 2


async def test_an_empty_window_is_skipped_without_a_model_call(pool: Any) -> None:
    deps = make_deps(pool)
    ev = episode(new_tenant(), [])
    assert await create_stage(deps).handle(ev, CTX) == []
    assert deps.models.extractor.requests == []
    row = await ledger(pool, ev)
    assert row["semantic_status"] == "skipped" and "no messages" in row["semantic_last_error"]


async def test_a_model_failure_is_counted_traced_and_retried_in_place(pool: Any) -> None:
    answers: list[Any] = [RuntimeError("503 after 4 attempts"), RuntimeError("429 quota")]
    seen: list[tuple[str, int]] = []

    async def flaky(req: ExtractInput) -> RawGraph:
        row = await ledger(pool, ev)  # what the ledger says while the model is called
        seen.append((row["semantic_status"], row["semantic_retry_count"]))
        if answers:
            raise answers.pop(0)
        return lives_in("berlin")(req)

    stage = create_stage(make_deps(pool, extract=flaky, **FAST_RETRIES))
    ev = episode(new_tenant())
    out = await stage.handle(ev, CTX)  # two failures under the cap, retried in the call
    assert [f.triple for f in out[0].facts] == [("user", "lives in", "berlin")]  # type: ignore[attr-defined]
    # The claim is kept through the retries, each failure counted.
    assert seen == [("processing", 0), ("processing", 1), ("processing", 2)]
    row = await ledger(pool, ev)
    assert row["semantic_status"] == "processing" and row["semantic_retry_count"] == 2
    assert "429" in row["semantic_last_error"]
    errors = [r for r in await llm_calls(pool, ev) if r["stage"] == "extract"]
    assert [("503" in (e or ""), "429" in (e or "")) for e in [r["error"] for r in errors]] == [
        (True, False), (False, True), (False, False),
    ]  # fmt: skip


async def test_a_fresh_claim_by_another_worker_is_left_alone(pool: Any) -> None:
    ev = episode(new_tenant())
    first = make_deps(pool, extract=lives_in("berlin"), worker_id="worker-a")
    second = make_deps(pool, extract=lives_in("paris"), worker_id="worker-b")
    assert len(await create_stage(first).handle(ev, CTX)) == 1
    assert await create_stage(second).handle(ev, CTX) == []
    assert second.models.extractor.requests == []
    assert (await ledger(pool, ev))["claimed_by"] == "worker-a"


async def test_the_gate_parks_a_tenants_next_episode_and_the_writer_wakes_it(
    pool: Any,
) -> None:
    tenant = new_tenant()
    deps = make_deps(pool, extract=lives_in("berlin"))
    stage = create_stage(deps)
    first, second = episode(tenant), episode(tenant)
    assert len(await stage.handle(first, rec(1))) == 1  # in flight until the writer is done

    # The next episode is parked at once: no waiting, no model call, nothing published.
    assert await asyncio.wait_for(stage.handle(second, rec(2)), 5) == []
    assert len(deps.models.extractor.requests) == 1
    assert (await ledger(pool, second))["semantic_status"] == "queued"
    other = await asyncio.wait_for(stage.handle(episode(new_tenant()), rec(3)), 5)
    assert len(other) == 1  # another tenant flows meanwhile

    async with pool.acquire() as conn, conn.transaction():  # what the writer does
        await conn.execute(
            "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
            " confidence, episode_id) VALUES ($1, $2, 'user', 'lives in', 'berlin', 'literal',"
            " 0.9, $3)",
            *tenant, first.episode_id,
        )  # fmt: skip
        await mark_semantic_done(conn, first.dataset, first.project_id, first.episode_id)
    async with pool.acquire() as conn:  # ... and, after its commit, the wake-up it sends
        wake_up = await next_to_release(conn, *tenant, deps.settings.claim_timeout_s)
    assert wake_up is not None and wake_up.event_id == second.event_id
    out = await stage.handle(wake_up, rec(4))
    assert [(o.episode_id, o.source_event_id) for o in out] == [  # type: ignore[attr-defined]
        (second.episode_id, second.event_id)
    ]
    # The second extraction saw what the first one wrote: one-at-a-time semantics.
    assert "user lives in berlin" in deps.models.extractor.requests[2].recent_facts
    # A duplicate wake-up finds the episode in flight and changes nothing.
    assert await stage.handle(wake_up, rec(5)) == [] and len(deps.models.extractor.requests) == 3


async def test_a_record_starts_its_tenants_oldest_queued_episode(pool: Any) -> None:
    tenant = new_tenant()
    deps = make_deps(pool, extract=lives_in("oslo"))
    parked, arriving = episode(tenant), episode(tenant)
    async with pool.acquire() as conn:  # parked earlier; its wake-up was lost
        await enqueue_episode(conn, parked)
    out = await create_stage(deps).handle(arriving, CTX)
    assert [(o.episode_id, o.source_event_id) for o in out] == [  # type: ignore[attr-defined]
        (parked.episode_id, parked.event_id)
    ]
    assert (await ledger(pool, parked))["semantic_status"] == "processing"
    assert (await ledger(pool, arriving))["semantic_status"] == "queued"


async def test_skipped_and_failed_episodes_let_the_next_one_start_in_the_same_call(
    pool: Any,
) -> None:
    tenant = new_tenant()
    empty, failing, good = episode(tenant, []), episode(tenant, ["boom"]), episode(tenant)

    def model(req: ExtractInput) -> RawGraph:
        if req.scope.episode_id == failing.episode_id:
            raise RuntimeError("503 after 4 attempts")
        return lives_in("rome")(req)

    deps = make_deps(pool, extract=model, **FAST_RETRIES)
    async with pool.acquire() as conn:
        for ev in (empty, failing):
            await enqueue_episode(conn, ev)
    out = await create_stage(deps).handle(good, CTX)
    assert [o.episode_id for o in out] == [good.episode_id]  # type: ignore[attr-defined]
    # The failing episode is retried in place up to the cap (3) before the next one starts.
    assert [r.scope.episode_id for r in deps.models.extractor.requests] == [
        *[failing.episode_id] * 3, good.episode_id,
    ]  # fmt: skip
    assert (await ledger(pool, empty))["semantic_status"] == "skipped"
    row = await ledger(pool, failing)
    assert row["semantic_status"] == "failed" and row["semantic_retry_count"] == 3


class BlipGraph(BaseModel):
    """A model answer whose use hits a transient error (as a dropped connection would)."""

    @property
    def entities(self) -> Any:
        raise TransientError("connection reset while guarding")


async def test_a_transient_error_hands_the_claim_back_until_the_last_attempt(
    pool: Any,
) -> None:
    deps = make_deps(pool, extract=lambda _: BlipGraph())
    stage = create_stage(deps)
    ev = episode(new_tenant())
    for attempt in (1, 2):
        with pytest.raises(TransientError):
            await stage.handle(ev, replace(CTX, attempt=attempt))
        row = await ledger(pool, ev)  # the runtime retries; that retry claims it first
        assert row["semantic_status"] == "queued" and row["semantic_retry_count"] == 0
    assert len(deps.models.extractor.requests) == 2
    with pytest.raises(TransientError):
        # The runtime says which attempt is the last (attempts and time budget spent).
        await stage.handle(ev, replace(CTX, attempt=3, final_attempt=True))
    # Dead-lettered next: the claim is held for the dead letter's release (which counts
    # it and runs the episode again in its place), not opened for the tenant's next one.
    assert (await ledger(pool, ev))["semantic_status"] == "processing"
    [release] = await stage.on_dead_letter(ev, CTX, "handler_error", "connection reset")
    assert release.event == ev and dict(release.headers)[CLAIM_HEADER]


async def test_a_bug_after_the_claim_is_retried_in_its_place_then_fails(pool: Any) -> None:
    deps = make_deps(pool, extract=lambda _: "not a graph", **FAST_RETRIES)
    extractor = RecordProcessor(
        create_stage(deps),
        WorkerConfig(stage="extract", group="g-extract", dlq_topic="dlq.extract"),
        WorkerMetrics("extract-bug"),
    )
    tenant = new_tenant()
    ev, later = episode(tenant), episode(tenant)
    topic = deps.settings.topic("episodes.completed")
    outs = await extractor(Record(topic, 0, 1, ev.tenant.encode(), ev.model_dump_json().encode()))
    async with pool.acquire() as conn:
        await enqueue_episode(conn, later)
    for offset in range(2, 2 + deps.settings.max_retries):
        [dead] = [o for o in outs if o.topic == "dlq.extract"]
        assert error_headers(dead.headers)["x-reason"] == "handler_error"
        [release] = [o for o in outs if o.topic == topic]
        assert json.loads(release.value)["episode_id"] == ev.episode_id
        outs = await extractor(Record(topic, 0, offset, release.key, release.value,
                                      release.headers))  # fmt: skip
        if offset < 1 + deps.settings.max_retries:
            row = await ledger(pool, ev)  # retried in place, before the later episode
            assert row["semantic_status"] == "processing", row
            assert (await ledger(pool, later))["semantic_status"] == "queued"
    row = await ledger(pool, ev)
    assert (row["semantic_status"], row["semantic_retry_count"]) == (
        "failed", deps.settings.max_retries
    )  # fmt: skip
    assert "AttributeError" in row["semantic_last_error"]
    # At the cap the tenant goes on: the later episode was started (and hit the same bug).
    assert len(deps.models.extractor.requests) == deps.settings.max_retries + 1
    assert deps.models.extractor.requests[-1].scope.episode_id == later.episode_id


async def test_a_record_redelivered_after_a_crash_takes_its_claim_back(pool: Any) -> None:
    """kill -9 mid-extraction leaves the claim and no committed output; the restarted
    worker (its stable instance id) is handed the same record again and carries on."""
    deps = make_deps(pool, extract=lives_in("berlin"), worker_id="extract-0")
    tenant = new_tenant()
    ev, nxt = episode(tenant), episode(tenant)
    timeout = deps.settings.claim_timeout_s
    async with pool.acquire() as conn:  # what the killed handler of CTX's record did
        await enqueue_episode(conn, ev)
        record = f"{CTX.topic}/{CTX.partition}/{CTX.offset}"
        assert await claim_next(conn, *tenant, "extract-0", timeout, record=record) == ev
    stage = create_stage(deps)
    assert await stage.handle(nxt, replace(CTX, offset=CTX.offset + 1)) == []  # gated
    out = await asyncio.wait_for(stage.handle(ev, CTX), 5)
    assert [o.episode_id for o in out] == [ev.episode_id]  # type: ignore[attr-defined]
    assert len(deps.models.extractor.requests) == 1


async def test_cancellation_mid_extraction_hands_the_claim_back(pool: Any) -> None:
    deps = make_deps(pool, extract=lives_in("berlin"), worker_id="leaving")
    deps.models.extractor.delay_s = 30
    ev = episode(new_tenant())
    task = asyncio.create_task(create_stage(deps).handle(ev, CTX))
    for _ in range(100):
        if deps.models.extractor.requests:
            break
        await asyncio.sleep(0.05)
    assert (await ledger(pool, ev))["semantic_status"] == "processing"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    row = await ledger(pool, ev)
    assert row["semantic_status"] == "queued" and row["semantic_retry_count"] == 0
    # The next owner of the partition takes it at once, not after the claim timeout.
    other = make_deps(pool, extract=lives_in("berlin"), worker_id="next-owner")
    assert len(await asyncio.wait_for(create_stage(other).handle(ev, CTX), 5)) == 1
