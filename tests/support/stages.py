"""Tiny stages for tests and the bench; loadable with ``--stage-factory``.

``create_passthrough``: ``<prefix>runtime.in`` -> ``<prefix>runtime.out``; each output
echoes the input with where and when it was handled. Knobs: the event's ``delay_ms``,
``fail_transient`` (fail that many first attempts with TransientError) and ``fail``
("error" or "poison"); env ``FACTSTREAM_TEST_DELAY_MS`` / ``FACTSTREAM_TEST_JITTER_MS``
add a delay to every record.

``create_model_sink``: a sink over the same input that embeds each record's payload through
``deps.models`` (the worker's configured provider) and reads the database: what a stage
does, for the worker-metrics tests.

``create_sink``: a Postgres sink over the same input that inserts one row per record into
``runtime_sink_effects`` inside the transaction that claims the offset. With
``FACTSTREAM_TEST_CRASH_AFTER_COMMIT_SEQ=<seq>`` and ``FACTSTREAM_TEST_CRASH_MARKER=<path>``
the process ``os._exit(17)``s right after the DB commit of that seq, once (the marker
file remembers it), i.e. before the Kafka offset commit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from streams.errors import PoisonError, TransientError
from streams.model.fakes.scripted import scripted_models
from streams.model.ports import CallScope, EmbedInput, Models
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.settings import Settings
from streams.store.consumed_offsets import ConsumedOffsets

log = logging.getLogger("tests.support.stages")

# Where a record handed straight to a stage came from (tests that call ``handle``).
CTX = RecordContext(group="g", topic="t", partition=0, offset=0, key=None, timestamp_ms=0)

SINK_TABLE = """
CREATE TABLE IF NOT EXISTS runtime_sink_effects (
    run        text    NOT NULL,
    tenant     text    NOT NULL,
    seq        integer NOT NULL,
    src_offset bigint  NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


class PassIn(BaseModel):
    dataset: str
    project_id: str
    seq: int
    episode_id: str | None = None
    delay_ms: float = 0.0
    fail_transient: int = 0
    fail: str | None = None
    payload: str = ""


class PassOut(BaseModel):
    dataset: str
    project_id: str
    seq: int
    episode_id: str | None = None
    src_partition: int
    src_offset: int
    attempt: int
    started: float
    finished: float
    pid: int


def _env_float(name: str) -> float:
    return float(os.environ.get(name, "0") or 0)


class PassthroughStage(Stage[PassIn]):
    name = "passthrough"
    input_model = PassIn

    def __init__(
        self, input_topic: str, output_topic: str, delay_ms: float = 0.0, jitter_ms: float = 0.0
    ) -> None:
        self.input_topic = input_topic
        self.output_topic: str | None = output_topic
        self.delay_ms = delay_ms
        self.jitter_ms = jitter_ms

    async def handle(self, event: PassIn, ctx: RecordContext) -> Sequence[BaseModel]:
        started = time.time()
        if ctx.attempt <= event.fail_transient:
            raise TransientError(f"scripted transient failure {ctx.attempt}/{event.fail_transient}")
        if event.fail == "poison":
            raise PoisonError("scripted poison")
        if event.fail == "error":
            raise ValueError("scripted handler bug")
        delay = event.delay_ms + self.delay_ms + random.random() * self.jitter_ms
        if delay > 0:
            await asyncio.sleep(delay / 1000)
        out = PassOut(
            dataset=event.dataset, project_id=event.project_id, seq=event.seq,
            episode_id=event.episode_id, src_partition=ctx.partition, src_offset=ctx.offset,
            attempt=ctx.attempt, started=started, finished=time.time(), pid=os.getpid(),
        )  # fmt: skip
        return [out]


def create_passthrough(deps: StageDeps) -> PassthroughStage:
    s = deps.settings
    return PassthroughStage(
        s.topic("runtime.in"),
        s.topic("runtime.out"),
        delay_ms=_env_float("FACTSTREAM_TEST_DELAY_MS"),
        jitter_ms=_env_float("FACTSTREAM_TEST_JITTER_MS"),
    )


class SinkStage(Stage[PassIn]):
    name = "sink"
    input_model = PassIn
    output_topic: str | None = None
    lane_by = "key"  # sound: the consumed offset is recorded per tenant (the record key)

    def __init__(self, input_topic: str, pool: Any, run: str) -> None:
        self.input_topic = input_topic
        self.pool = pool
        self.run = run
        self.offsets = ConsumedOffsets()
        self.crash_seq = os.environ.get("FACTSTREAM_TEST_CRASH_AFTER_COMMIT_SEQ")
        self.crash_marker = os.environ.get("FACTSTREAM_TEST_CRASH_MARKER")

    async def handle(self, event: PassIn, ctx: RecordContext) -> Sequence[BaseModel]:
        if event.delay_ms:
            await asyncio.sleep(event.delay_ms / 1000)
        async with self.pool.acquire() as conn, conn.transaction():
            if not await self.offsets.claim(
                conn, ctx.group, ctx.topic, ctx.partition, ctx.offset, tenant=ctx.key
            ):
                log.info(
                    "already applied, skipping",
                    extra={
                        "stage": self.name,
                        "tenant": ctx.key,
                        "topic": ctx.topic,
                        "partition": ctx.partition,
                        "offset": ctx.offset,
                    },
                )
                return []
            await conn.execute(
                "INSERT INTO runtime_sink_effects (run, tenant, seq, src_offset)"
                " VALUES ($1, $2, $3, $4)",
                self.run,
                f"{event.dataset}:{event.project_id}",
                event.seq,
                ctx.offset,
            )
        self._maybe_crash(event.seq)
        return []

    def _maybe_crash(self, seq: int) -> None:
        if self.crash_seq is None or self.crash_marker is None or str(seq) != self.crash_seq:
            return
        marker = Path(self.crash_marker)
        if marker.exists():
            return
        marker.write_text(str(os.getpid()))
        sys.stderr.flush()
        os._exit(17)


def create_sink(deps: StageDeps) -> SinkStage:
    if deps.pool is None:
        raise RuntimeError("the sink test stage needs FACTSTREAM_DATABASE_URL")
    s = deps.settings
    return SinkStage(s.topic("runtime.in"), deps.pool, run=s.topic_prefix)


class ModelSink(Stage[PassIn]):
    name = "model-sink"
    input_model = PassIn
    output_topic: str | None = None

    def __init__(self, input_topic: str, pool: Any, models: Any) -> None:
        self.input_topic, self.pool, self.embedder = input_topic, pool, models.embedder

    async def handle(self, event: PassIn, ctx: RecordContext) -> Sequence[BaseModel]:
        scope = CallScope(dataset=event.dataset, project_id=event.project_id, episode_id="e")
        await self.embedder.embed(EmbedInput(scope=scope, purpose="facts", texts=[event.payload]))
        await self.pool.fetchval("SELECT 1")
        return []


def create_model_sink(deps: StageDeps) -> ModelSink:
    if deps.pool is None:
        raise RuntimeError("the model sink needs FACTSTREAM_DATABASE_URL")
    return ModelSink(deps.settings.topic("runtime.in"), deps.pool, deps.models)


def stage_deps(
    settings: Settings, pool: Any, models: Models | None = None, worker_id: str = "test-worker"
) -> StageDeps:
    """What a worker hands a stage factory; scripted models with defaults unless given."""
    models = models or scripted_models(dim=settings.embedding_dim)
    return StageDeps(settings=settings, pool=pool, models=models, worker_id=worker_id)


def ctx(offset: int, partition: int = 0, topic: str = "facts.judged") -> RecordContext:
    """A writer's record context at ``offset`` (the consumed offset the writer records)."""
    return RecordContext(
        group="factstream-write", topic=topic, partition=partition, offset=offset, key=None,
        timestamp_ms=0,
    )  # fmt: skip
