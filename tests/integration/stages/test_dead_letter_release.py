"""A record dead-lettered after extraction gives its tenant's gate back
(streams/stages/release.py): the release goes out with the dead letter, and extraction,
consuming it, ends exactly that claim as a failed extraction. Under the retry cap the
episode runs again in its place, before the tenant's later episodes; at the cap it ends
failed and the next one starts. Real Postgres; the stages run inside RecordProcessor, as
in a worker."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from streams.domain.graph import RawClaim, RawGraph
from streams.events import EpisodeCompleted, FactsExtracted, FactsResolved
from streams.model.ports import EmbedInput, ExtractInput
from streams.runtime.config import WorkerConfig
from streams.runtime.dlq import error_headers
from streams.runtime.metrics import WorkerMetrics
from streams.runtime.processor import RecordProcessor
from streams.runtime.records import OutRecord, Record
from streams.runtime.stage import StageDeps
from streams.stages import dedup, extract, judge, resolve, write
from streams.stages.release import CLAIM_HEADER
from streams.store import episodes, gate
from tests.support.episodes import episode, make_deps, new_tenant
from tests.support.store_rows import ledger


def broken_embedder(_: EmbedInput) -> Exception:
    return ValueError("embedding service returned garbage")  # not transient: dead at once


def lives_in(city: str, facts: int = 1) -> Any:
    def script(_: ExtractInput) -> RawGraph:
        return RawGraph(literalFacts=[
            RawClaim(subject="user", predicate=f"lives in {i}", object=city, sourceQuote=city)
            for i in range(facts)
        ])  # fmt: skip

    return script


def worker(stage: Any, name: str, **cfg: Any) -> RecordProcessor:
    config = WorkerConfig(stage=name, group=f"g-{name}", dlq_topic=f"dlq.{name}", **cfg)
    return RecordProcessor(stage, config, WorkerMetrics(f"{name}-release"))


def record(deps: StageDeps, topic: str, offset: int, out: OutRecord | Any) -> Record:
    """A consumed record: a produced OutRecord as read back, or an event as published."""
    if isinstance(out, OutRecord):
        return Record(out.topic, 0, offset, out.key, out.value, out.headers)
    key = out.tenant.encode()
    return Record(deps.settings.topic(topic), 0, offset, key, out.model_dump_json().encode())


async def episodes_enqueue(pool: Any, *evs: EpisodeCompleted) -> None:
    async with pool.acquire() as conn:
        for ev in evs:
            await episodes.enqueue_episode(conn, ev)


def extracted(outs: tuple[OutRecord, ...]) -> list[FactsExtracted]:
    return [FactsExtracted.model_validate_json(o.value) for o in outs
            if o.topic.endswith("facts.extracted")]  # fmt: skip


async def dead_letter_in_dedup(deps: StageDeps, extracted_out: FactsExtracted,
                               offset: int) -> tuple[OutRecord, ...]:  # fmt: skip
    """``extracted_out`` through resolve, then through a dedup whose embedder is broken."""
    [resolved] = await worker(resolve.create_stage(deps), "resolve")(
        record(deps, "facts.extracted", offset, extracted_out)
    )
    assert json.loads(resolved.value)["claim_token"] == extracted_out.claim_token
    broken = make_deps(deps.pool, embed_fail=broken_embedder)
    return await worker(dedup.create_stage(broken), "dedup")(record(deps, "", offset, resolved))


async def through_the_writer(deps: StageDeps, extracted_out: FactsExtracted) -> OutRecord:
    """``extracted_out`` through resolve, dedup, judge and the writer; the writer's wake-up."""
    out: OutRecord | FactsExtracted = extracted_out
    stages = [(resolve, "facts.extracted"), (dedup, ""), (judge, ""), (write, "")]
    for offset, (stage, topic) in enumerate(stages, 10):
        name = stage.__name__.rsplit(".", 1)[-1]
        [out] = await worker(stage.create_stage(deps), name)(record(deps, topic, offset, out))
    assert isinstance(out, OutRecord)
    return out


async def test_a_dead_letter_in_dedup_retries_the_episode_in_its_place_up_to_the_cap(
    pool: Any,
) -> None:
    tenant = new_tenant()
    e1, e2 = episode(tenant), episode(tenant)
    deps = make_deps(pool, extract=lives_in("berlin"), llm_backoff_base_s=0.01)
    extractor = worker(extract.create_stage(deps), "extract")
    [out1] = extracted(await extractor(record(deps, "episodes.completed", 1, e1)))
    assert extracted(await extractor(record(deps, "episodes.completed", 2, e2))) == []  # parked

    outs = await dead_letter_in_dedup(deps, out1, 1)

    [dead] = [o for o in outs if o.topic == "dlq.dedup"]
    assert error_headers(dead.headers)["x-reason"] == "handler_error"
    [release] = [o for o in outs if o.topic == deps.settings.topic("episodes.completed")]
    assert release.key == f"{tenant[0]}:{tenant[1]}".encode()
    assert json.loads(release.value)["episode_id"] == e1.episode_id
    assert dict(release.headers)[CLAIM_HEADER] == str(out1.claim_token).encode()
    # Nothing changes before the dead letter commits: the release is only a record so far.
    assert (await ledger(pool, e1))["semantic_status"] == "processing"

    # Under the cap the same episode is extracted again, under a new claim; e2 waits.
    [retry] = extracted(await extractor(record(deps, "", 3, release)))

    assert retry.episode_id == e1.episode_id and retry.claim_token != out1.claim_token
    row = await ledger(pool, e1)
    assert (row["semantic_status"], row["semantic_retry_count"]) == ("processing", 1)
    assert (await ledger(pool, e2))["semantic_status"] == "queued"
    # The release delivered again (a redelivery) ends nothing more and starts nothing.
    assert extracted(await extractor(record(deps, "", 4, release))) == []
    assert (await ledger(pool, e1))["semantic_retry_count"] == 1
    assert (await ledger(pool, e2))["semantic_status"] == "queued"

    # Dead-lettered again on every retry: at the cap e1 ends failed and e2 starts.
    offset, current = 5, retry
    for _ in range(deps.settings.max_retries - 1):
        outs = await dead_letter_in_dedup(deps, current, offset)
        [release] = [o for o in outs if o.topic == deps.settings.topic("episodes.completed")]
        [current] = extracted(await extractor(record(deps, "", offset, release)))
        offset += 1
    assert current.episode_id == e2.episode_id
    row = await ledger(pool, e1)
    assert (row["semantic_status"], row["semantic_retry_count"]) == (
        "failed", deps.settings.max_retries
    )  # fmt: skip
    assert "dead-lettered by dedup (handler_error)" in row["semantic_last_error"]
    assert "embedding service returned garbage" in row["semantic_last_error"]
    assert (await ledger(pool, e2))["semantic_status"] == "processing"


async def test_an_episode_retried_after_a_dead_letter_is_written_before_the_later_one(
    pool: Any,
) -> None:
    """The embedding fails once past retries: e1 runs again and its facts are written
    before e2 is even extracted, as one-at-a-time processing would have it."""
    tenant = new_tenant()
    e1, e2 = episode(tenant), episode(tenant)
    deps = make_deps(pool, extract=lives_in("berlin"), llm_backoff_base_s=0.01)
    extractor = worker(extract.create_stage(deps), "extract")
    [out1] = extracted(await extractor(record(deps, "episodes.completed", 1, e1)))
    assert extracted(await extractor(record(deps, "episodes.completed", 2, e2))) == []
    outs = await dead_letter_in_dedup(deps, out1, 1)
    [release] = [o for o in outs if o.topic == deps.settings.topic("episodes.completed")]
    [retry] = extracted(await extractor(record(deps, "", 3, release)))

    wake = await through_the_writer(deps, retry)

    row = await ledger(pool, e1)
    assert (row["semantic_status"], row["semantic_retry_count"]) == ("done", 1)
    [started] = extracted(await extractor(record(deps, "", 4, wake)))
    assert started.episode_id == e2.episode_id


async def test_a_dead_letter_of_a_claim_taken_over_releases_nothing(pool: Any) -> None:
    tenant = new_tenant()
    e1 = episode(tenant)
    deps = make_deps(pool, extract=lives_in("berlin"))
    [out1] = extracted(
        await worker(extract.create_stage(deps), "extract")(
            record(deps, "episodes.completed", 1, e1)
        )
    )
    stale = FactsResolved.model_validate(
        {**out1.model_dump(exclude={"event_id"}), "claim_token": "an-earlier-claim"}
    )
    broken = make_deps(pool, embed_fail=broken_embedder)

    outs = await worker(dedup.create_stage(broken), "dedup")(
        record(deps, "facts.resolved", 1, stale)
    )

    assert [o.topic for o in outs] == ["dlq.dedup"]
    row = await ledger(pool, e1)
    assert (row["semantic_status"], row["semantic_retry_count"]) == ("processing", 0)


async def test_extractions_own_output_refused_as_too_large_releases_its_claim(
    pool: Any,
) -> None:
    tenant = new_tenant()
    e1, e2 = episode(tenant), episode(tenant)
    deps = make_deps(pool, extract=lives_in("a" * 400, facts=12))
    # The episode fits; its graph of 12 long facts does not.
    extractor = worker(extract.create_stage(deps), "extract", max_record_bytes=4000)
    await episodes_enqueue(pool, e1, e2)  # e2 queued behind e1

    outs = await extractor(record(deps, "episodes.completed", 1, e1))

    [dead] = [o for o in outs if o.topic == "dlq.extract"]
    assert error_headers(dead.headers)["x-reason"] == "output_too_large"
    [release] = [o for o in outs if o.topic == deps.settings.topic("episodes.completed")]
    assert json.loads(release.value)["episode_id"] == e1.episode_id
    deps_small = replace(deps, models=make_deps(pool, extract=lives_in("berlin")).models)
    small = worker(extract.create_stage(deps_small), "extract")
    # The same episode runs again in its place (the model may answer smaller); e2 waits.
    [retry] = extracted(await small(record(deps, "episodes.completed", 2, release)))
    assert retry.episode_id == e1.episode_id
    row = await ledger(pool, e1)
    assert (row["semantic_status"], row["semantic_retry_count"]) == ("processing", 1)
    assert (await ledger(pool, e2))["semantic_status"] == "queued"


async def test_the_writer_ends_only_the_claim_its_record_belongs_to(pool: Any) -> None:
    tenant = new_tenant()
    e1 = episode(tenant)
    key = (e1.dataset, e1.project_id, e1.episode_id)
    async with pool.acquire() as conn:
        await episodes.enqueue_episode(conn, e1)
        await gate.claim_next(conn, *tenant, "w", 600.0, token="current")
        # The late output of a claim that went stale and was taken over: the gate stays shut.
        await gate.mark_semantic_done(conn, *key, "taken-over")
        assert (await ledger(pool, e1))["semantic_status"] == "processing"
        await gate.mark_semantic_done(conn, *key, "current")
        assert (await ledger(pool, e1))["semantic_status"] == "done"
