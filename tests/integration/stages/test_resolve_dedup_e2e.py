"""Resolve and dedup through the real runtime, on the real broker and Postgres.

FactsExtracted events are published to the tenant's facts.extracted topic; two in-process
Workers run the resolve and dedup stages (exactly-once Kafka hand-off); the test reads
facts.deduped read_committed, as the judge would.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from confluent_kafka import Consumer, Producer
from pgvector import Vector

from streams.domain.graph import RawGraph
from streams.events import EntityType, FactsDeduped
from streams.kafka.client import producer_config
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
    hashed_vector,
    vector_at_similarity,
)
from streams.model.ports import JudgeOutput, Models, SummaryOutput
from streams.runtime.config import WorkerConfig
from streams.runtime.stage import StageDeps
from streams.runtime.worker import Worker
from streams.settings import Settings
from streams.stages import dedup, resolve
from tests.support.facts import DIM, days_from_now, extracted, lit, rel
from tests.support.kafka import committed_reader
from tests.support.store_rows import insert_live_fact

ORG, PERSON, VEHICLE = EntityType.ORG, EntityType.PERSON, EntityType.VEHICLE
LARGE, BIG = "user wants large screen", "user prefers big display"


async def read_deduped(consumer: Consumer, want: int) -> list[FactsDeduped]:
    seen: list[FactsDeduped] = []
    while len(seen) < want:
        for msg in await asyncio.to_thread(consumer.consume, 10, 0.2):
            if msg.error() is None:
                seen.append(FactsDeduped.model_validate_json(msg.value() or b""))
    return seen


async def test_resolve_then_dedup_on_the_broker(
    pool: Any, kafka_bootstrap: str, tenant: Any, create_topics: Callable[..., Any]
) -> None:
    settings = Settings(
        kafka_bootstrap_servers=kafka_bootstrap,
        topic_prefix=tenant.topic_prefix,
        embedding_dim=DIM,
    )
    create_topics(settings, partitions=2)
    ds, proj = tenant.dataset, tenant.project_id
    acme, large = hashed_vector("acme", DIM), hashed_vector(LARGE, DIM)
    acme_id = await pool.fetchval(
        "INSERT INTO entities (dataset, project_id, name, type, embedding)"
        " VALUES ($1, $2, 'acme', 'ORG', $3) RETURNING id",
        ds, proj, Vector(acme),
    )  # fmt: skip
    await insert_live_fact(pool, ds, proj, lit("user", "wants", "large screen"), large)
    civic = rel("user", "drives", "honda civic")
    civic_id = await insert_live_fact(pool, ds, proj, civic, hashed_vector("civic", DIM))

    sold = days_from_now(-7)
    first = extracted(
        tenant, "ep-1",
        [("user", PERSON), ("Acme Corp", ORG), ("honda civic", VEHICLE)],
        [rel("user", "works at", "Acme Corp"), lit("user", "prefers", "big display"),
         rel("user", "drives", "honda civic", until=sold), lit("user", "drinks", "tea")],
    )  # fmt: skip
    second = extracted(
        tenant, "ep-2", [("user", PERSON)],
        [lit("user", "drinks", "tea"), lit("user", "likes", "green tea")],
    )  # fmt: skip
    producer = Producer(producer_config(settings))
    for event in (first, second):
        producer.produce(
            settings.topic("facts.extracted"), key=tenant.key, value=event.model_dump_json()
        )
    assert producer.flush(30) == 0

    embedder = ScriptedEmbedder(
        DIM,
        table={
            "acme corp": vector_at_similarity(acme, 0.93),
            BIG: vector_at_similarity(large, 0.97),
            "user likes green tea": vector_at_similarity(
                hashed_vector("user drinks tea", DIM), 0.9
            ),
        },
    )
    models = Models(
        extractor=ScriptedExtractor(lambda _: RawGraph()),
        judge=ScriptedJudge(lambda _: JudgeOutput()),
        summarizer=ScriptedSummarizer(lambda _: SummaryOutput(summary="")),
        embedder=embedder,
    )
    deps = StageDeps(settings=settings, pool=pool, models=models, worker_id="w1")
    suffix = uuid.uuid4().hex[:8]
    workers = [
        Worker(
            module.create_stage(deps),
            WorkerConfig.from_settings(settings, name, group=f"g-{name}-{suffix}", concurrency=4),
        )
        for name, module in (("resolve", resolve), ("dedup", dedup))
    ]
    running = [asyncio.create_task(w.run()) for w in workers]
    consumer = committed_reader(kafka_bootstrap, f"r-{suffix}", settings.topic("facts.deduped"))
    try:
        out = await asyncio.wait_for(read_deduped(consumer, 2), 90)
    finally:
        for w in workers:
            w.stop()
        assert [await asyncio.wait_for(r, 60) for r in running] == [0, 0]
        consumer.close()

    assert [o.episode_id for o in out] == ["ep-1", "ep-2"]  # the tenant's order holds
    one, two = out
    assert [(c.fact.sentence(), c.fact.object_entity_id) for c in one.candidates] == [
        ("user works at acme", acme_id),
        ("user drinks tea", None),
    ]
    staged = await pool.fetch(
        "SELECT ord, vector_dims(embedding) AS dims FROM staged_vectors WHERE event_id = $1"
        " ORDER BY ord", one.event_id,
    )  # fmt: skip
    assert [(r["ord"], r["dims"]) for r in staged] == [(c.vector, DIM) for c in one.candidates]
    assert [(d.reason, d.object) for d in one.dropped] == [("near_duplicate", "big display")]
    assert [(c.fact_id, c.valid_until) for c in one.closures] == [(civic_id, sold)]
    # ep-2 was resolved and deduped before anything was written: its facts are new again.
    assert [c.fact.sentence() for c in two.candidates] == [
        "user drinks tea",
        "user likes green tea",
    ]
    names = await pool.fetch(
        "SELECT name FROM entities WHERE dataset=$1 AND project_id=$2 ORDER BY name", ds, proj
    )
    assert [r["name"] for r in names] == ["acme", "honda civic", "user"]
