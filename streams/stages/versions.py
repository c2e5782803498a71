"""The extract stage's first step for a newer version of an episode: take back what the
earlier version stated and this one no longer does (streams/domain/versions.py), before
the model is asked, so the prompt and the later stages see the memory without it."""

from __future__ import annotations

import logging

from streams.domain.versions import withdrawn
from streams.events import EpisodeCompleted
from streams.runtime.stage import StageDeps
from streams.store.context import PromptContext, load_prompt_context
from streams.store.retraction import retract

log = logging.getLogger(__name__)


async def prompt_context(deps: StageDeps, event: EpisodeCompleted) -> PromptContext:
    """What the tenant holds, for the extraction prompt, once what ``event`` (a newer
    version of a stored episode, or a first one) takes back is taken back."""
    settings = deps.settings
    limits = (settings.context_entity_names, settings.context_recent_facts)
    tenant, episode = (event.dataset, event.project_id), (event.episode_id, event.completed_at)
    async with deps.pool.acquire() as conn:
        context = await load_prompt_context(conn, *tenant, *limits, episode=episode)
        gone = withdrawn(context.earlier_statements, event.window_messages())
        if not gone:
            return context
        done = await retract(
            conn, *tenant, event.episode_id, gone,
            lock_timeout_ms=settings.writer_lock_timeout_ms,
            statement_timeout_ms=settings.writer_statement_timeout_ms,
        )  # fmt: skip
        log.info(
            "extract: episode %s of %s: the newer version no longer states %d fact(s) of"
            " the earlier one: taken back, %d fact(s) they had ended believed again",
            event.episode_id, event.tenant, done.facts, done.reopened,
        )  # fmt: skip
        return await load_prompt_context(conn, *tenant, *limits)
