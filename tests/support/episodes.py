"""Builders for the extract/summarize stage tests: episodes and stage dependencies
around scripted models."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.domain.graph import RawGraph
from streams.events import EpisodeCompleted, Message, Role, Window
from streams.model.fakes.scripted import (
    ScriptedEmbedder,
    ScriptedExtractor,
    ScriptedJudge,
    ScriptedSummarizer,
)
from streams.model.ports import Models, SummaryOutput
from streams.runtime.stage import RecordContext, StageDeps
from streams.settings import Settings
from tests.support.db import TEST_EMBEDDING_DIM

COMPLETED_AT = datetime(2026, 2, 10, 18, 0, tzinfo=UTC)
CTX = RecordContext(
    group="g", topic="t", partition=0, offset=0, key=None, timestamp_ms=0, attempt=1
)


def new_tenant() -> tuple[str, str]:
    hex_id = uuid.uuid4().hex[:10]
    return f"ds-{hex_id}", f"p-{hex_id}"


def episode(
    tenant: tuple[str, str],
    texts: list[str] | None = None,
    *,
    episode_id: str | None = None,
    reprocess: bool = False,
    event_id: str | None = None,
) -> EpisodeCompleted:
    """An episode of user/assistant turns (alternating, user first) in window 1..n."""
    texts = ["I moved to Berlin last month."] if texts is None else texts
    messages = [
        Message(
            seq=i + 1,
            role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
            content=t,
            created_at=COMPLETED_AT - timedelta(minutes=len(texts) - i),
        )
        for i, t in enumerate(texts)
    ]
    extra = {"event_id": event_id} if event_id else {}
    return EpisodeCompleted(
        dataset=tenant[0],
        project_id=tenant[1],
        episode_id=episode_id or f"ep-{uuid.uuid4().hex[:8]}",
        session_id="s-1",
        window=Window(from_seq=1, to_seq=max(1, len(messages))),
        messages=messages,
        completed_at=COMPLETED_AT,
        reprocess=reprocess,
        **extra,
    )


def empty_graph(_: object) -> RawGraph:
    return RawGraph()


def make_deps(
    pool: Any,
    *,
    extract: Callable[[Any], Any] = empty_graph,
    summarize: Callable[[Any], Any] = lambda _: SummaryOutput(summary="The user moved."),
    embed_fail: Callable[[Any], Exception | None] | None = None,
    worker_id: str = "worker-1",
    **settings: Any,
) -> StageDeps:
    models = Models(
        extractor=ScriptedExtractor(extract),
        judge=ScriptedJudge(lambda _: None),
        summarizer=ScriptedSummarizer(summarize),
        embedder=ScriptedEmbedder(TEST_EMBEDDING_DIM, fail=embed_fail),
    )
    cfg = Settings(embedding_dim=TEST_EMBEDDING_DIM, **settings)
    return StageDeps(settings=cfg, pool=pool, models=models, worker_id=worker_id)


async def seed_store(pool: Any, tenant: tuple[str, str], canary: str = "") -> None:
    """Entities and live facts for a tenant, plus one ended fact that must not show."""
    ds, p = tenant
    async with pool.acquire() as conn:
        entities = [("user", "PERSON"), (f"acme{canary}", "ORG"), ("honda civic", "VEHICLE")]
        for name, etype in entities:
            await conn.execute(
                "INSERT INTO entities (dataset, project_id, name, type) VALUES ($1,$2,$3,$4)",
                ds, p, name, etype,
            )  # fmt: skip
        rows = [
            ("user", "works at", f"acme{canary}", "relationship", None),
            ("user", "drives", "honda civic", "relationship", None),
            ("user", f"lives in{canary}", "oslo", "literal", None),
            ("user", "likes", f"old hobby{canary}", "literal", "ended"),
        ]
        for s, pr, o, kind, ended in rows:
            await conn.execute(
                "INSERT INTO facts (dataset, project_id, subject, predicate, object, kind,"
                " confidence, episode_id, valid_until) VALUES ($1,$2,$3,$4,$5,$6,0.9,'old',"
                " CASE WHEN $7::text IS NULL THEN NULL ELSE now() - interval '1 day' END)",
                ds, p, s, pr, o, kind, ended,
            )  # fmt: skip


async def ledger(pool: Any, ev: EpisodeCompleted) -> Any:
    """The episode's extraction side of the ledger."""
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            "SELECT semantic_status, semantic_retry_count, semantic_last_error, claimed_by"
            " FROM episodes WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip
