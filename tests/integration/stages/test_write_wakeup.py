"""The writer wakes the tenant's next queued episode after its commit (the per-tenant gate
releases, streams/store/episodes.py), also when the record is redelivered."""

from __future__ import annotations

from typing import Any

from streams.runtime.stage import Routed
from streams.settings import Settings
from streams.stages.write import create_stage
from streams.store.episodes import enqueue_episode
from streams.store.gate import claim_next
from tests.support.episodes import episode
from tests.support.events import new_tenant
from tests.support.facts import cand, deps, fact, judged
from tests.support.stages import ctx
from tests.support.store_rows import seed_episode


async def test_the_writer_wakes_the_next_queued_episode_even_on_redelivery(pool: Any) -> None:
    settings = Settings(topic_prefix="t-wake.")
    writer = create_stage(deps(settings, pool))
    t = new_tenant()
    await seed_episode(pool, t, "e1")  # in flight: claimed by extraction
    parked = [episode(t, [f"I moved to {c}."], episode_id=f"e{i}") for i, c in
              [(2, "Oslo"), (3, "Rome")]]  # fmt: skip
    async with pool.acquire() as conn:
        for ev in parked:
            await enqueue_episode(conn, ev)
    event = judged(t, [cand(fact("user", "lives in", "berlin"))], episode="e1")

    out = await writer.handle(event, ctx(7))
    wake_up = Routed(settings.topic("episodes.completed"), parked[0], f"{t[0]}:{t[1]}")
    assert out == [wake_up]  # the oldest queued one, rebuilt from its row (same event id)
    # Redelivered (the crash came between the commit and the produce): a no-op for the
    # facts, but the wake-up is returned again.
    assert await writer.handle(event, ctx(7)) == [wake_up]
    async with pool.acquire() as conn:
        assert await claim_next(conn, *t, "w", settings.claim_timeout_s) == parked[0]
    assert await writer.handle(event, ctx(7)) == []  # e2 in flight: nothing to wake


async def test_a_queued_episode_that_cannot_be_copied_ends_failed_and_the_next_wakes(
    pool: Any,
) -> None:
    """Its copy is over the record limit (stored before the limit was lowered): waking it
    would fail this already committed record as output_too_large and leave the tenant's
    later episodes queued. It ends failed, with why, and the one after it is woken."""
    settings = Settings(topic_prefix="t-wake.", max_record_bytes=20_000)
    writer = create_stage(deps(settings, pool))
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    big = episode(t, ["x" * 15_000, "y" * 10_000], episode_id="e2")
    small = episode(t, ["I moved to Rome."], episode_id="e3")
    async with pool.acquire() as conn:
        await enqueue_episode(conn, big)
        await enqueue_episode(conn, small)

    out = await writer.handle(judged(t, [cand(fact("user", "likes", "tea"))], episode="e1"), ctx(9))

    assert out == [Routed(settings.topic("episodes.completed"), small, f"{t[0]}:{t[1]}")]
    row = await pool.fetchrow(
        "SELECT semantic_status, semantic_last_error FROM episodes WHERE dataset = $1"
        " AND project_id = $2 AND episode_id = 'e2'", *t,
    )  # fmt: skip
    assert row["semantic_status"] == "failed"
    assert "over the record limit" in row["semantic_last_error"]
