"""A memory to read back, made by the real pipeline: the demo's conversations (alice
changes job and sells her car, bob repeats himself, carol moves and sends an injection)
answered by the demo's scripted model, plus a tenant whose user writes markup, one whose
episode ids are path-hostile ("a/b", ".."), and a dead letter whose Kafka key is markup.
Then the read API on it, in process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import uvicorn
from starlette.applications import Starlette

from streams.api.app import create_app, url_of
from streams.demo.setup import EPISODES
from streams.domain.graph import RawGraph
from streams.events import EpisodeCompleted
from streams.kafka.publisher import RecordSender
from streams.model.fakes import demo
from streams.model.fakes.book import always, answer_pairs, claim, graph
from streams.model.fakes.scripted import KeyedEmbedder, scripted_models
from streams.model.ports import ExtractInput, JudgeInput, JudgeOutput, Models
from streams.ops import dlq
from streams.settings import Settings
from tests.support.events import episode
from tests.support.pipeline import Pipeline, pipeline_settings

# Text a user, a model and a publisher wrote; the pages must show it, never run it.
MARKUP = '<script>window.__pwned = 1</script><b>bold</b> & "quoted" <img src=x onerror=alert(1)>'
CANARY = "zebracanary"  # a word only tenant evil:mallory holds
EVIL = ("evil", "mallory")
EVIL_SAID = f"I collect {CANARY} stamps {MARKUP}"
BAD_KEY = b"<script>window.__pwned = 2</script>demo:bob"
DEMO_TENANTS = [("demo", "alice"), ("demo", "bob"), ("demo", "carol")]
# Episode ids a publisher may choose that a URL path cannot hold as they are.
ODD = ("odd", "ids")
ODD_EPISODE_IDS = ["a/b", "..", ".", "x%2Fy"]


def demo_events() -> list[EpisodeCompleted]:
    return [EpisodeCompleted.model_validate_json(line)
            for line in EPISODES.read_text().splitlines() if line.strip()]  # fmt: skip


def odd_events() -> list[EpisodeCompleted]:
    said = datetime.now(UTC).replace(microsecond=0) - timedelta(days=1)
    return [episode(*ODD, e, "Nothing new today.", completed_at=said) for e in ODD_EPISODE_IDS]


def evil_event() -> EpisodeCompleted:
    said = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    return episode(*EVIL, "evil-1", EVIL_SAID, completed_at=said)


EVIL_GRAPH = graph(  # the user's type too is markup: shown as text among the mends
    {"user": MARKUP}, claim("user", "collects", f"{CANARY} stamps {MARKUP}", quote=EVIL_SAID)
)


def _extract(request: ExtractInput) -> RawGraph:
    if request.scope.dataset == EVIL[0]:
        return EVIL_GRAPH
    return demo.ANSWERS.get(request.scope.episode_id, RawGraph())


def _judge(request: JudgeInput) -> JudgeOutput:
    return answer_pairs(request, always("old"))


def memory_models(dim: int) -> Models:
    near = {"user prefers big display tv": ("user wants large screen tv", 0.97)}
    return scripted_models(extract=_extract, judge=_judge, embedder=KeyedEmbedder(dim, near.get))


@dataclass
class Memory:
    settings: Settings
    group_prefix: str  # the pipeline's consumer groups are <prefix><stage>
    pipeline: Pipeline


@contextlib.asynccontextmanager
async def running_memory(kafka_bootstrap: str, server_url: str) -> AsyncIterator[Memory]:
    """Run the pipeline on the demo's episodes and evil's, dead-letter one record whose
    key is markup, and yield once everything is written, the pipeline still running."""
    settings = await pipeline_settings(kafka_bootstrap, server_url)
    events = [*demo_events(), evil_event(), *odd_events()]
    async with Pipeline(settings, memory_models(settings.embedding_dim)) as pipeline:
        for e in events:  # one at a time: each tenant's order, as the demo's gate gives it
            await pipeline.publish(e)
        await pipeline.wait_done(events, timeout=120)
        sender = RecordSender(settings)
        sender.send(settings.topic("episodes.completed"), BAD_KEY, b'{"not": json', [],
                    lambda _error, _at: None)  # fmt: skip
        sender.flush(10)
        await wait_dead_letter(settings, "extract")
        yield Memory(settings, pipeline.group(""), pipeline)


async def build_memory(kafka_bootstrap: str, server_url: str) -> Memory:
    """:func:`running_memory`, the pipeline stopped again."""
    async with running_memory(kafka_bootstrap, server_url) as memory:
        return memory
    raise AssertionError("unreachable")


async def wait_dead_letter(settings: Settings, stage: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while not await asyncio.to_thread(dlq.list_dead_letters, settings, stage):
        if time.monotonic() > deadline:
            raise AssertionError(f"no dead letter in {settings.dlq_topic(stage)}")
        await asyncio.sleep(0.3)


@contextlib.asynccontextmanager
async def api_client(app: Starlette) -> AsyncIterator[httpx2.AsyncClient]:
    """The app in process (its lifespan too: pool, lag sampler), on a real Postgres."""
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx2.AsyncClient(transport=transport, base_url="http://localhost") as client:
            yield client


def app_on(memory: Memory, **overrides: Any) -> Starlette:
    # Anew, not model_copy: a copy would keep the cached Kafka client config.
    settings = Settings(**{**memory.settings.model_dump(), **overrides})
    embedder = memory_models(settings.embedding_dim).embedder
    prefix = memory.group_prefix
    return create_app(settings, group_of=lambda s: f"{prefix}{s}", embedder=embedder,
                      lag_interval_s=1.0)  # fmt: skip


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@contextlib.asynccontextmanager
async def served(app: Starlette) -> AsyncIterator[str]:
    """The app on a real HTTP port of 127.0.0.1 (any free one), as `factstream console`
    serves it; yields its base URL."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # raises why it could not start
        await asyncio.sleep(0.05)
    try:
        yield url_of(server)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)
