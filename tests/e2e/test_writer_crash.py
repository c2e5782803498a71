"""kill -9 of a real write worker between its database commit and its Kafka commit.

The worker process runs the real write stage, wrapped so that right after the handler's
transaction committed episode e2 (and before the runtime could commit the Kafka offset)
the process SIGKILLs itself, once. A second worker of the same group gets e2 redelivered:
the database must be exactly what it was after the crash, plus episode e3.
"""

from __future__ import annotations

import asyncio
import os
import signal
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from streams.events import FactsJudged
from streams.runtime.stage import RecordContext, StageDeps
from streams.stages.write import create_stage
from streams.store.db import create_pool
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database
from tests.support.events import new_tenant
from tests.support.facts import cand, ends, fact, judged, with_staged_inserts
from tests.support.runtime import (
    WorkerProc,
    create_topics,
    delete_topics,
    new_prefix,
    produce,
    worker_env,
)
from tests.support.store_rows import seed_episode, seed_fact, snapshot

FACTORY = "tests.e2e.test_writer_crash:create_crashing_writer"


class CrashingWriter:
    """The real write stage; SIGKILLs its own process after committing one episode."""

    def __init__(self, deps: StageDeps) -> None:
        self.inner = create_stage(deps)
        self.name = self.inner.name
        self.input_topic = self.inner.input_topic
        self.input_model = self.inner.input_model
        self.output_topic = self.inner.output_topic
        self.lane_by = "key"
        self.episode = os.environ["FACTSTREAM_TEST_CRASH_EPISODE"]
        self.marker = Path(os.environ["FACTSTREAM_TEST_CRASH_MARKER"])

    async def handle(self, event: FactsJudged, ctx: RecordContext) -> Sequence[BaseModel]:
        out = await self.inner.handle(event, ctx)  # the database transaction has committed
        if event.episode_id == self.episode and not self.marker.exists():
            self.marker.write_text(str(ctx.offset))
            os.kill(os.getpid(), signal.SIGKILL)
        return out


def create_crashing_writer(deps: StageDeps) -> CrashingWriter:
    return CrashingWriter(deps)


@pytest.fixture
async def pool_and_url(database_url: str) -> AsyncIterator[tuple[Any, str]]:
    url = await create_fresh_database(database_url)
    pool = await create_pool(url)
    yield pool, url
    await pool.close()


async def applied(pool: Any, t: tuple[str, str], episode: str) -> bool:
    status = await pool.fetchval(
        "SELECT semantic_status FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND episode_id = $3",
        *t,
        episode,
    )
    return bool(status == "done")


async def wait_applied(pool: Any, t: tuple[str, str], episode: str, proc: WorkerProc) -> None:
    for _ in range(600):
        if await applied(pool, t, episode):
            return
        assert proc.proc is not None and proc.proc.poll() is None, proc.log()[-3000:]
        await asyncio.sleep(0.1)
    raise AssertionError(f"{episode} not applied:\n{proc.log()[-3000:]}")


async def test_kill_9_between_db_commit_and_kafka_commit(
    kafka_bootstrap: str, pool_and_url: tuple[Any, str], tmp_path: Path
) -> None:
    pool, url = pool_and_url
    t = new_tenant()
    prefix = new_prefix()
    topic = f"{prefix}facts.judged"
    create_topics(kafka_bootstrap, [topic], partitions=2)
    procs: list[WorkerProc] = []
    try:
        google = await seed_fact(pool, t, fact("user", "works at", "google"))
        for episode in ("e1", "e2", "e3"):
            await seed_episode(pool, t, episode)
        events = [
            await with_staged_inserts(pool, e)  # as dedup stages them: no embedder needed
            for e in (
                judged(
                    t,
                    [cand(fact("user", "works at", "anthropic"))],
                    [ends(google, fact("user", "works at", "google"))],
                    episode="e1",
                ),
                judged(t, [cand(fact("user", "likes", "jazz"))], episode="e2"),
                judged(t, [cand(fact("user", "lives in", "oslo"))], episode="e3"),
            )
        ]
        key = f"{t[0]}:{t[1]}".encode()
        produce(kafka_bootstrap, topic, [(key, e.model_dump_json().encode()) for e in events[:2]])

        group = f"factstream-write-{uuid.uuid4().hex[:8]}"
        env = worker_env(
            kafka_bootstrap,
            prefix,
            FACTSTREAM_DATABASE_URL=url,
            FACTSTREAM_EMBEDDING_DIM=TEST_EMBEDDING_DIM,  # the database's: others are refused
            FACTSTREAM_TEST_CRASH_EPISODE="e2",
            FACTSTREAM_TEST_CRASH_MARKER=str(tmp_path / "crashed"),
        )
        log = tmp_path / "worker.log"
        first = WorkerProc(env, log, group=group, factory=FACTORY, stage="write").start()
        procs.append(first)
        assert first.wait(120) == -signal.SIGKILL, first.log()[-3000:]
        assert (tmp_path / "crashed").exists()
        assert await applied(pool, t, "e2")  # the database committed before the kill
        after_crash = await snapshot(pool)

        produce(kafka_bootstrap, topic, [(key, events[2].model_dump_json().encode())])
        second = WorkerProc(env, log, group=group, factory=FACTORY, stage="write").start()
        procs.append(second)
        await wait_applied(pool, t, "e3", second)
        second.wait_log("redelivered record skipped", timeout=30)
        assert second.stop() == 0

        final = await snapshot(pool)
        # e2 was redelivered and changed nothing; only e3's effects were added.
        for table in ("fact_drops", "llm_calls"):
            assert final[table] == after_crash[table]
        new_rows = [r for r in final["facts"] if r not in after_crash["facts"]]
        assert [r[3:6] for r in new_rows] == [("user", "lives in", "oslo")]
        live = await pool.fetch(
            "SELECT subject, predicate, object FROM facts WHERE dataset = $1"
            " AND project_id = $2 AND invalid_at IS NULL"
            " AND (valid_until IS NULL OR valid_until > now()) ORDER BY id",
            *t,
        )
        assert [tuple(r.values()) for r in live] == [
            ("user", "works at", "anthropic"),
            ("user", "likes", "jazz"),
            ("user", "lives in", "oslo"),
        ]
    finally:
        for proc in procs:
            proc.stop(10)
        delete_topics(kafka_bootstrap, [topic])
