"""The whole pipeline in one process, on the real broker and Postgres, for scenario and
e2e tests.

:class:`Pipeline` runs the six stages of ``streams.pipeline`` as in-process
Workers (the real runtime: key-ordered lanes, Kafka transactions, dead letters), each in
its own consumer group, concurrently on the test's event loop, with scripted models
(streams/model/fakes/book.py). :meth:`Pipeline.publish` sends EpisodeCompleted
events with streams.kafka.publisher; :meth:`Pipeline.wait_done` returns once every given
episode's ledger row is terminal (``status`` and ``semantic_status`` each done, skipped or
failed) AND the pipeline has finished that very event (its summary is stored, and the
writer committed its FactsJudged or extraction ended it without output). The second
condition matters when an episode is published again (replay, redrive): its row is still
``done`` from the first time until the new event is claimed.

Use :func:`pipeline_settings` for Settings with their own topics and a fresh database,
and tests/support/fact_table.py to read the result.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from streams.events import EpisodeCompleted
from streams.kafka import topics as topic_ops
from streams.kafka.publisher import Publisher
from streams.model.ports import Models
from streams.pipeline import STAGES, factory_of
from streams.runtime.config import WorkerConfig
from streams.runtime.stage import RecordContext, Routed, Stage, StageDeps
from streams.runtime.worker import Worker
from streams.settings import Settings
from streams.store.db import create_pool
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database

log = logging.getLogger("tests.pipeline")
TERMINAL = ("done", "skipped", "failed")


async def pipeline_settings(kafka_bootstrap: str, server_url: str, **overrides: Any) -> Settings:
    """Settings on a fresh migrated database and their own (created) topics, tuned for
    tests: small concurrency, 50 ms commits, short shutdown."""
    values: dict[str, Any] = {
        "kafka_bootstrap_servers": kafka_bootstrap,
        "database_url": await create_fresh_database(server_url),
        "topic_prefix": f"t{uuid.uuid4().hex[:12]}.",
        "topic_partitions": 3,
        "embedding_dim": TEST_EMBEDDING_DIM,
        "worker_concurrency": 4,
        "commit_interval_ms": 50,
        "shutdown_deadline_s": 3.0,
        **overrides,
    }
    settings = Settings(**values)
    await asyncio.to_thread(topic_ops.create_topics, settings)
    return settings


def delete_pipeline_topics(settings: Settings) -> None:
    names = [s.name for s in topic_ops.all_topics(settings)]
    try:
        topic_ops.delete_topics(settings, names)
    except Exception as exc:  # cleanup must not hide the test's result
        log.warning("could not delete topics %s...: %s", names[:2], exc)


@dataclass
class Progress:
    """What the pipeline finished, by event id, with monotonic times."""

    published: dict[str, float] = field(default_factory=dict)
    # stage -> episode event id (the source_event_id of derived events) -> when its handler
    # returned; a sink's handler returns after its database commit.
    handled: dict[str, dict[str, float]] = field(default_factory=dict)
    extract_ended: dict[str, float] = field(default_factory=dict)  # no output: skip/fail
    errors: dict[str, list[str]] = field(default_factory=dict)  # event id -> "stage: error"

    def seen(self, stage: str) -> dict[str, float]:
        return self.handled.setdefault(stage, {})

    def finished_at(self, event_id: str) -> float | None:
        summary = self.seen("summarize").get(event_id)
        facts = self.seen("write").get(event_id, self.extract_ended.get(event_id))
        return None if summary is None or facts is None else max(summary, facts)


class _Observed(Stage[Any]):
    """A stage as the runtime sees it, reporting to Progress when a handler returns."""

    def __init__(self, inner: Stage[Any], progress: Progress) -> None:
        self._inner, self._progress = inner, progress
        self.name = inner.name
        self.input_topic = inner.input_topic
        self.input_model = inner.input_model
        self.output_topic = inner.output_topic
        self.lane_by = inner.lane_by
        self.delivery_headers = inner.delivery_headers

    def key_of(self, event: BaseModel) -> str | None:
        return self._inner.key_of(event)

    async def on_dead_letter(
        self, event: Any, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[BaseModel | Routed]:
        return await self._inner.on_dead_letter(event, ctx, reason, error)

    async def handle(self, event: BaseModel, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        source = str(getattr(event, "source_event_id", getattr(event, "event_id", "?")))
        try:
            out = await self._inner.handle(event, ctx)
        except Exception as exc:
            self._progress.errors.setdefault(source, []).append(f"{self.name}: {exc!r}"[:300])
            raise
        now = time.monotonic()
        self._progress.seen(self.name)[source] = now
        if self.name == "extract" and not out:
            self._progress.extract_ended[source] = now
        return out


class Pipeline:
    """Six stage workers on one event loop; ``async with Pipeline(settings, models):``."""

    def __init__(
        self, settings: Settings, models: Models, *, concurrency: int = 4, pool_size: int = 12,
        **worker_overrides: Any,
    ) -> None:  # fmt: skip
        self.settings, self.models = settings, models
        self.concurrency, self.pool_size = concurrency, pool_size
        self.worker_overrides = {"retry_base_s": 0.05, "retry_max_s": 0.5, **worker_overrides}
        self.progress = Progress()
        self.pool: Any = None
        self.workers: dict[str, tuple[Worker, asyncio.Task[int]]] = {}
        self._publisher: Publisher | None = None

    def group(self, stage: str) -> str:
        return f"{self.settings.topic_prefix}factstream-{stage}"

    async def __aenter__(self) -> Pipeline:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self, stages: Iterable[str] = STAGES) -> None:
        if self.pool is None:
            url = self.settings.require_database_url()
            self.pool = await create_pool(url, min_size=2, max_size=self.pool_size)
        await asyncio.gather(*(self.start_stage(name) for name in stages))

    async def start_stage(self, name: str) -> None:
        deps = StageDeps(
            settings=self.settings, pool=self.pool, models=self.models,
            worker_id=f"{self.settings.topic_prefix}{name}-{uuid.uuid4().hex[:6]}",
        )  # fmt: skip
        stage = _Observed(factory_of(name)(deps), self.progress)
        cfg = WorkerConfig.from_settings(
            self.settings, name, group=self.group(name), concurrency=self.concurrency,
            **self.worker_overrides,
        )  # fmt: skip
        worker = Worker(stage, cfg, poll_timeout_s=0.05)
        task = asyncio.create_task(worker.run(), name=f"worker-{name}")
        self.workers[name] = (worker, task)
        started = asyncio.create_task(worker.started.wait())
        await asyncio.wait([started, task], timeout=30, return_when=asyncio.FIRST_COMPLETED)
        started.cancel()
        if not worker.started.is_set():
            raise RuntimeError(f"the {name} worker did not start: {_task_state(task)}")

    async def stop_stage(self, name: str) -> int:
        worker, task = self.workers.pop(name)
        worker.stop()
        try:
            grace = self.settings.shutdown_deadline_s + 20
            return await asyncio.wait_for(asyncio.shield(task), grace)
        except TimeoutError:
            worker.stop()  # a second stop skips the drain
            return await asyncio.wait_for(task, 20)

    async def stop(self) -> None:
        codes = await asyncio.gather(
            *(self.stop_stage(n) for n in list(self.workers)), return_exceptions=True
        )
        if self._publisher is not None:
            await asyncio.to_thread(self._publisher.close)
            self._publisher = None
        if self.pool is not None:
            await self.pool.close()
            self.pool = None
        bad = [c for c in codes if c != 0]
        if bad:
            log.warning("workers stopped with %s", bad)

    # --- publishing and waiting --------------------------------------------------------

    async def publish(self, *events: EpisodeCompleted) -> None:
        """Publish in order (one tenant's events keep their order) and wait for the acks."""
        if self._publisher is None:
            self._publisher = Publisher(self.settings)
        publisher = self._publisher
        now = time.monotonic()
        for event in events:
            self.progress.published[event.event_id] = now
            publisher.publish(event)
        await asyncio.to_thread(publisher.flush)

    async def wait_done(self, events: Sequence[EpisodeCompleted], timeout: float = 60.0) -> None:
        """Until every event is finished (see the module doc); else fail, saying what is stuck."""
        deadline = time.monotonic() + timeout
        while True:
            self._check_workers()
            open_events = [e for e in events if self.progress.finished_at(e.event_id) is None]
            rows = await self._ledger(events)
            stuck = [e for e in events if e in open_events or not _terminal(rows.get(_key(e)))]
            if not stuck:
                return
            if time.monotonic() > deadline:
                lines = [self._describe(e, rows.get(_key(e))) for e in stuck]
                raise AssertionError(
                    f"{len(stuck)} of {len(events)} episodes not finished after {timeout:.0f}s:\n"
                    + "\n".join(lines)
                )
            await asyncio.sleep(0.1)

    async def wait_handled(
        self, stage: str, events: Sequence[EpisodeCompleted], timeout: float = 60.0
    ) -> None:
        """Until ``stage`` has handled (what derives from) every one of ``events``."""
        deadline = time.monotonic() + timeout
        seen = self.progress.seen(stage)
        while missing := [e.episode_id for e in events if e.event_id not in seen]:
            self._check_workers()
            if time.monotonic() > deadline:
                raise AssertionError(f"{stage} did not handle {missing} within {timeout:.0f}s")
            await asyncio.sleep(0.05)

    def _check_workers(self) -> None:
        for name, (_, task) in self.workers.items():
            if task.done():
                raise AssertionError(f"the {name} worker stopped: {_task_state(task)}")

    async def _ledger(self, events: Sequence[EpisodeCompleted]) -> dict[tuple[str, ...], Any]:
        records = await self.pool.fetch(
            "SELECT e.* FROM episodes e JOIN unnest($1::text[], $2::text[], $3::text[])"
            " AS k(d, p, i) ON e.dataset = k.d AND e.project_id = k.p AND e.episode_id = k.i",
            [e.dataset for e in events], [e.project_id for e in events],
            [e.episode_id for e in events],
        )  # fmt: skip
        return {(r["dataset"], r["project_id"], r["episode_id"]): r for r in records}

    def _describe(self, event: EpisodeCompleted, row: Any) -> str:
        p = self.progress
        reached = [stage for stage in STAGES if event.event_id in p.seen(stage)]
        if event.event_id in p.extract_ended:
            reached.append("extraction ended it without output")
        ledger = "no ledger row"
        if row is not None:
            ledger = (
                f"status={row['status']} ({row['last_error']}) semantic_status="
                f"{row['semantic_status']} ({row['semantic_last_error']}) claimed_by="
                f"{row['claimed_by']}"
            )
        errors = "; ".join(p.errors.get(event.event_id, [])) or "none"
        return (
            f"  {event.tenant} {event.episode_id} (event {event.event_id[:8]}): {ledger};"
            f" reached: {', '.join(reached) or 'nothing'}; handler errors: {errors}"
        )


def _key(event: EpisodeCompleted) -> tuple[str, ...]:
    return (event.dataset, event.project_id, event.episode_id)


def _terminal(row: Any) -> bool:
    return row is not None and row["status"] in TERMINAL and row["semantic_status"] in TERMINAL


def _task_state(task: asyncio.Task[int]) -> str:
    if not task.done():
        return "still running"
    if task.cancelled():
        return "cancelled"
    exc = task.exception()
    return f"raised {exc!r}" if exc is not None else f"exited with {task.result()}"
