"""The poison corpus (chaos/poison.py, chaos/oddities.py) through all six workers and the sweeper.

Fifty-odd kinds of bad records, interleaved with good episodes on the same keys and
partitions, plus good episodes written oddly (no key, a forged release header, no
event_id, unsorted messages, a reversed window) and two ledger rows the sweeper cannot
republish (a copy over the record limit, a transcript an older version stored). What a
user checks: every good episode done, every bad record in its stage's DLQ with its
reason and its original value whole (one is over 1 MB), no worker or sweeper stopped,
every consumer group drained, and no row of one tenant in another.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from confluent_kafka import Producer

from chaos.oddities import oddities
from chaos.poison import Poison, corpus, fingerprint
from streams.cli.sweep import make_publish
from streams.events import EpisodeCompleted, decode_episode
from streams.kafka.admin import admin_client
from streams.kafka.client import producer_config
from streams.kafka.publisher import Publisher
from streams.model.fakes.drill import create_models, say
from streams.ops.dlq import iter_dead_letters
from streams.ops.lag import collect_lag
from streams.ops.sweep import run_sweeper
from streams.pipeline import STAGES
from streams.runtime.dlq import H_REASON
from streams.settings import Settings
from tests.support.events import BASE_TIME
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

pytestmark = pytest.mark.timeout(170)
ORGS = ("acme", "globex", "initech")
WHEN = "2026-01-01T00:00:00Z"
NAIVE = "2026-01-01T00:00:00"


def good_episodes(dataset: str) -> list[EpisodeCompleted]:
    out = []
    for t, org in enumerate(ORGS):
        for n, line in enumerate([say("work", org=org), say("live", place=f"city{t}")]):
            out.append(EpisodeCompleted.model_validate({
                "event_id": f"good-{t}-{n}", "dataset": dataset, "project_id": f"good{t}",
                "episode_id": f"good-{t}-{n}", "session_id": "s",
                "window": {"from_seq": 0, "to_seq": 0},
                "messages": [{"seq": 0, "role": "user", "content": line,
                              "created_at": BASE_TIME + timedelta(days=n)}],
                "completed_at": BASE_TIME + timedelta(days=n, seconds=60),
            }))  # fmt: skip
    return out


async def seed_unpublishable(pool: Any, dataset: str) -> list[tuple[str, str, str]]:
    """Two failed episodes under the cap that no copy can be made of."""
    rows = {
        "too-large": [
            {"seq": i, "role": "user", "content": "z" * 19_000, "created_at": WHEN}
            for i in range(60)
        ],
        # An older version kept naive times: no valid event can be rebuilt from it.
        "old-rules": [{"seq": 0, "role": "user", "content": "hi", "created_at": NAIVE}],
    }  # fmt: skip
    keys = []
    for episode_id, transcript in rows.items():
        await pool.execute(
            "INSERT INTO episodes (dataset, project_id, episode_id, session_id, event_id, from_seq,"
            " to_seq, transcript, completed_at, status, semantic_status, semantic_retry_count,"
            " updated_at) VALUES ($1, 'swept', $2, 's', $2, 0, 100, $3::jsonb, now(), 'done',"
            " 'failed', 1, now() - interval '1 hour')",
            dataset, episode_id, transcript,
        )  # fmt: skip
        keys.append((dataset, "swept", episode_id))
    return keys


def publish_raw(settings: Settings, records: list[tuple[str, Poison | Any]]) -> None:
    producer = Producer(producer_config(settings))
    for topic, r in records:
        producer.produce(settings.topic(topic), key=r.key, value=r.value,
                         headers=list(r.headers) or None)  # fmt: skip
        producer.poll(0)
    assert producer.flush(60) == 0


def dead_letters(settings: Settings) -> Counter[tuple[str, str, str]]:
    found: Counter[tuple[str, str, str]] = Counter()
    for stage in STAGES:
        for d in iter_dead_letters(settings, stage):
            found[(stage, fingerprint(d.record.key, d.value), d.errors.get(H_REASON, "?"))] += 1
    return found


async def eventually(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = await asyncio.to_thread(check)
        if result[0]:
            return result[1]
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: {result[1]}")
        await asyncio.sleep(0.5)


async def test_the_poison_corpus_loses_nothing_and_stops_nothing(
    kafka_bootstrap: str, database_url: str
) -> None:
    settings = await pipeline_settings(kafka_bootstrap, database_url, sweep_interval_s=1.0)
    dataset = f"pc{uuid.uuid4().hex[:8]}"
    good = good_episodes(dataset)
    poison = corpus(settings, dataset, sorted({e.tenant for e in good}))
    kinds = oddities(dataset, "odd", say("work", org="umbrella"))
    odd_events = [decode_episode(o.value) for o in kinds]
    odd = list(kinds)
    pipeline = Pipeline(settings, create_models(settings))
    publisher = Publisher(settings)
    stopped: list[BaseException] = []
    try:
        await pipeline.start()
        swept = await seed_unpublishable(pipeline.pool, dataset)
        sweeper = asyncio.create_task(
            run_sweeper(settings.require_database_url(), settings, make_publish(publisher))
        )
        sweeper.add_done_callback(lambda t: stopped.append(t.exception() or RuntimeError()))
        # Interleaved: a good episode, some poison, an oddity, ... on the same partitions.
        records: list[tuple[str, Any]] = []
        for i, p in enumerate(poison):
            if i % 8 == 0 and good:
                await pipeline.publish(good.pop(0))
            records.append((p.topic, p))
            if i % 8 == 4 and odd:
                records.append(("episodes.completed", odd.pop(0)))
        records += [("episodes.completed", o) for o in odd]
        await asyncio.to_thread(publish_raw, settings, records)
        await pipeline.publish(*good)
        good = good_episodes(dataset)
        await pipeline.wait_done([*good, *odd_events], timeout=90)

        # Every bad record in its stage's DLQ, once, with its reason and its value whole.
        wanted = Counter((stage, p.fingerprint, p.reason) for p in poison for stage in p.stages())

        def dlq_complete() -> tuple[bool, Any]:
            found = dead_letters(settings)
            missing = wanted - found
            return not missing, [(s, r, fp) for s, fp, r in missing][:8] or found

        found = await eventually(dlq_complete, 60, "dead letters missing")
        assert found == wanted, f"unexpected dead letters: {found - wanted}"
        assert len({p.name for p in poison}) >= 40

        # Every episode ended as a user expects.
        ledger = {
            r["episode_id"]: r
            for r in await pipeline.pool.fetch("SELECT * FROM episodes WHERE dataset = $1", dataset)
        }
        for e in good:
            row = ledger[e.episode_id]
            assert (row["status"], row["semantic_status"]) == ("done", "done"), e.episode_id
        for o, event in zip(kinds, odd_events, strict=True):
            assert ledger[event.episode_id]["semantic_status"] == o.status, o.name
        for key in swept:  # ended failed, with the reason, past the cap: not sent again
            row = ledger[key[2]]
            assert row["semantic_status"] == "failed", key
            assert row["semantic_retry_count"] >= settings.max_retries, key
            assert "cannot be" in row["semantic_last_error"], row["semantic_last_error"]
        expected_ids = {e.episode_id for e in good} | {e.episode_id for e in odd_events}
        assert set(ledger) == expected_ids | {k[2] for k in swept}

        # No row of one tenant names another's facts; no poison tenant got any row.
        facts = await pipeline.pool.fetch(
            "SELECT f.project_id, f.object, e.project_id AS episode_project FROM facts f"
            " LEFT JOIN episodes e ON e.dataset = f.dataset AND e.project_id = f.project_id"
            " AND e.episode_id = f.episode_id WHERE f.dataset = $1",
            dataset,
        )
        assert facts and all(f["episode_project"] == f["project_id"] for f in facts)
        for t, org in enumerate(ORGS):
            objects = {f["object"] for f in facts if f["project_id"] == f"good{t}"}
            assert objects == {org, f"city{t}"}, objects
        tenants = {
            r["project_id"]
            for table in ("episodes", "facts", "entities", "fact_drops", "llm_calls")
            for r in await pipeline.pool.fetch(
                f"SELECT DISTINCT project_id FROM {table} WHERE dataset = $1", dataset
            )
        }
        assert tenants <= {"good0", "good1", "good2", "odd", "swept"}, tenants

        # Nothing stopped, and every group drained.
        assert not sweeper.done(), f"the sweeper stopped: {stopped}"
        admin = admin_client(settings)

        def drained() -> tuple[bool, Any]:
            lag = collect_lag(settings, admin, group_of=pipeline.group)
            return all(s.lag == 0 for s in lag), {s.stage: s.lag for s in lag}

        await eventually(drained, 30, "consumer lag left")
        pipeline._check_workers()
        sweeper.cancel()
    finally:
        await pipeline.stop()
        await asyncio.to_thread(publisher.close, 10)
        delete_pipeline_topics(settings)
