"""What a stage after extraction does when the runtime dead-letters one of its records.

The episode holds its tenant's gate (``processing``) from extraction to the writer. A
record dead-lettered on the way would hold it until the claim goes stale (10 minutes),
with the tenant's later episodes waiting behind it. Instead the runtime calls the stage's
``on_dead_letter`` and produces what it returns in the same Kafka transaction as the dead
letter: the episode goes back to its place in the queue with one more retry counted (or
ends ``failed`` when ``max_retries`` are spent, as the sweep would end it), and a wake-up
for the tenant's oldest queued episode, usually that same one, so it runs again at once
and still before the tenant's later episodes.

The ledger update is guarded by the claim's event id: a dead letter of an old claim, or
one the writer already applied, changes nothing. If this runs but the Kafka transaction
does not commit, the record comes again and the wake-up's claim finds the episode either
queued (it is simply started) or already re-claimed (the repeat is a no-op).
"""

from __future__ import annotations

import logging
from typing import Any

from streams.events import TenantEvent
from streams.runtime.stage import Routed, tenant_key
from streams.settings import Settings
from streams.store import episodes

log = logging.getLogger(__name__)


async def requeue_episode(
    pool: Any, settings: Settings, event: TenantEvent, stage: str, reason: str, error: str
) -> list[Routed]:
    claim_event_id = getattr(event, "source_event_id", None)
    if claim_event_id is None:
        return []
    detail = f"{stage}: {reason}: {error}"
    async with pool.acquire() as conn:
        status = await episodes.requeue_after_failure(
            conn, event.dataset, event.project_id, event.episode_id, claim_event_id,
            detail, settings.max_retries,
        )  # fmt: skip
        nxt = None
        if status is not None:
            nxt = await episodes.next_to_release(
                conn, event.dataset, event.project_id, settings.claim_timeout_s
            )
    log.warning(
        "episode %s after a dead letter in %s: %s", event.episode_id, stage,
        status or "claim no longer this record's, left alone",
        extra={"tenant": event.tenant, "episode_id": event.episode_id},
    )  # fmt: skip
    if nxt is None:
        return []
    key = tenant_key(event.dataset, event.project_id)
    return [Routed(settings.topic("episodes.completed"), nxt, key)]
