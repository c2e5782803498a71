"""Builders for the extract/summarize stage tests: episodes and stage dependencies
around scripted models."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from streams.domain.graph import RawGraph
from streams.events import EpisodeCompleted, Message, Role, Window
from streams.model.fakes.scripted import ScriptedEmbedder, scripted_models
from streams.model.ports import SummaryOutput
from streams.runtime.stage import StageDeps
from streams.settings import Settings
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.events import new_tenant
from tests.support.stages import stage_deps

__all__ = ["new_tenant"]

COMPLETED_AT = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0)


def episode(
    tenant: tuple[str, str],
    texts: list[str] | None = None,
    *,
    episode_id: str | None = None,
    reprocess: bool = False,
    event_id: str | None = None,
    completed_at: datetime = COMPLETED_AT,
) -> EpisodeCompleted:
    """An episode of user/assistant turns (alternating, user first) in window 1..n."""
    texts = ["I moved to Berlin last month."] if texts is None else texts
    messages = [
        Message(
            seq=i + 1,
            role=Role.USER if i % 2 == 0 else Role.ASSISTANT,
            content=t,
            created_at=completed_at - timedelta(minutes=len(texts) - i),
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
        completed_at=completed_at,
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
    embedder = ScriptedEmbedder(TEST_EMBEDDING_DIM, fail=embed_fail)
    models = scripted_models(extract=extract, summarize=summarize, embedder=embedder)
    cfg = Settings(embedding_dim=TEST_EMBEDDING_DIM, **settings)
    return stage_deps(cfg, pool, models, worker_id)
