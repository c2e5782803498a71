"""The per-tenant queue follows the order extraction sees a tenant's episodes, whatever
order the summary stage happened to insert their rows in.

The chaos drill caught it: during a Postgres restart summarize dead-lettered episode e2
(its insert failed) but inserted e3 a moment later; extraction then enqueued e2 behind
e3, and e3's facts were applied before e2's (an old job left live).
"""

from __future__ import annotations

from typing import Any

from streams.store import episodes, gate
from tests.support.episodes import episode, new_tenant

TIMEOUT = 600.0


async def test_extraction_order_wins_over_the_summary_stage_inserts(pool: Any) -> None:
    tenant = new_tenant()
    e1, e2, e3 = (episode(tenant, [f"I moved to city {i}."], episode_id=f"e{i}")
                  for i in (1, 2, 3))  # fmt: skip
    async with pool.acquire() as conn:
        # The summary stage got to e1 and e3 first; its insert of e2 failed.
        await episodes.upsert_episode(conn, e1)
        await episodes.upsert_episode(conn, e3)
        # Extraction sees the tenant's records in their published order.
        for ev in (e1, e2, e3):
            assert (await episodes.enqueue_episode(conn, ev)).status == "queued"
        started = []
        for _ in range(3):
            claimed = await gate.claim_next(conn, *tenant, "w1", TIMEOUT)
            assert claimed is not None
            started.append(claimed.episode_id)
            await gate.mark_semantic_done(conn, *tenant, claimed.episode_id)
    assert started == ["e1", "e2", "e3"]


async def test_a_queued_episode_keeps_its_place_when_it_arrives_again(pool: Any) -> None:
    tenant = new_tenant()
    e1, e2 = (episode(tenant, [f"I moved to city {i}."], episode_id=f"e{i}") for i in (1, 2))
    async with pool.acquire() as conn:
        for ev in (e1, e2, e1):  # e1 again: a duplicate or a sweep republish
            await episodes.enqueue_episode(conn, ev)
        claimed = await gate.claim_next(conn, *tenant, "w1", TIMEOUT)
    assert claimed is not None and claimed.episode_id == "e1"
