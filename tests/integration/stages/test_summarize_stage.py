"""The summarize handler and the seed's summary failure rows, on a real database."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from streams.model.fakes.scripted import hashed_vector
from streams.model.ports import EmbedInput, SummarizeInput, SummaryOutput
from streams.stages.summarize import create_stage
from streams.store.episodes import enqueue_episode
from streams.store.gate import next_to_release
from tests.support.db import TEST_EMBEDDING_DIM
from tests.support.episodes import episode, make_deps, new_tenant
from tests.support.stages import CTX
from tests.support.store_rows import llm_calls

SUMMARY = "The user moved to Berlin last month."


async def episode_row(pool: Any, ev: Any) -> Any:
    async with pool.acquire() as conn:
        return await conn.fetchrow(
            "SELECT status, retry_count, last_error, summary, summary_embedding,"
            " semantic_status FROM episodes"
            " WHERE dataset = $1 AND project_id = $2 AND episode_id = $3",
            ev.dataset, ev.project_id, ev.episode_id,
        )  # fmt: skip


async def calls(pool: Any, ev: Any) -> list[tuple[str, str, bool]]:
    rows = await llm_calls(pool, ev, "stage, kind, error IS NOT NULL AS failed")
    return [(r["stage"], r["kind"], r["failed"]) for r in rows]


async def test_summary_and_embedding_are_stored_once(pool: Any) -> None:
    deps = make_deps(pool, summarize=lambda _: SummaryOutput(summary=f"  {SUMMARY} "))
    stage = create_stage(deps)
    assert stage.output_topic is None
    ev = episode(new_tenant())
    assert await stage.handle(ev, CTX) == []

    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"], row["summary"]) == ("done", 0, SUMMARY)
    stored = row["summary_embedding"].to_list()
    assert stored == pytest.approx(hashed_vector(SUMMARY, TEST_EMBEDDING_DIM), abs=1e-6)
    assert row["semantic_status"] == "pending"  # extraction's ledger is not touched
    embed_request = deps.models.embedder.requests[0]
    assert (embed_request.purpose, embed_request.texts) == ("summary", [SUMMARY])
    request = deps.models.summarizer.requests[0]
    assert [m.content for m in request.messages] == [m.content for m in ev.messages]
    assert await calls(pool, ev) == [
        ("summarize", "summarize", False), ("summarize", "embed", False),
    ]  # fmt: skip

    assert await stage.handle(ev, CTX) == []  # redelivered: a done summary is not redone
    assert len(deps.models.summarizer.requests) == 1 and len(deps.models.embedder.requests) == 1


async def test_a_gate_wake_up_does_not_redo_a_done_summary(pool: Any) -> None:
    """The writer's wake-up of a queued episode (and the sweep's) is a copy rebuilt from
    the ledger row on episodes.completed, which this stage consumes too."""
    deps = make_deps(pool)
    stage = create_stage(deps)
    ev = episode(new_tenant())
    assert await stage.handle(ev, CTX) == []
    async with pool.acquire() as conn:
        await enqueue_episode(conn, ev)
        wake_up = await next_to_release(conn, ev.dataset, ev.project_id, 600.0)
    assert wake_up is not None and wake_up.event_id == ev.event_id and not wake_up.reprocess
    assert await stage.handle(wake_up, CTX) == []
    assert len(deps.models.summarizer.requests) == 1 and len(deps.models.embedder.requests) == 1
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"], row["semantic_status"]) == ("done", 0, "queued")


async def test_summarisation_failure_is_counted_then_retried(pool: Any) -> None:
    failures = [RuntimeError("500 from the model")]

    def flaky(_: SummarizeInput) -> SummaryOutput:
        if failures:
            raise failures.pop()
        return SummaryOutput(summary=SUMMARY)

    deps = make_deps(pool, summarize=flaky)
    ev = episode(new_tenant())
    await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"], row["summary"]) == ("failed", 1, None)
    assert "summarisation failed" in row["last_error"] and "500" in row["last_error"]
    assert deps.models.embedder.requests == []  # nothing to embed

    await create_stage(deps).handle(ev, CTX)  # the sweep's retry
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"], row["summary"]) == ("done", 1, SUMMARY)
    assert row["last_error"] is None


async def test_a_summary_is_retried_up_to_max_retries_only(pool: Any) -> None:
    """Seed: a failed summarisation is retried up to maxRetries. Wake-ups and the sweep's
    republishing for extraction bring the event back; past the cap the model is not
    called again, unless the event asks to reprocess."""

    def down(_: SummarizeInput) -> SummaryOutput:
        raise RuntimeError("500 from the model")

    deps = make_deps(pool, summarize=down, max_retries=2)
    ev = episode(new_tenant())
    for _ in range(4):
        await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"]) == ("failed", 2)
    assert len(deps.models.summarizer.requests) == 2

    await create_stage(deps).handle(ev.model_copy(update={"reprocess": True}), CTX)
    assert len(deps.models.summarizer.requests) == 3


async def test_embedding_failure_saves_the_summary_and_the_retry_only_reembeds(
    pool: Any,
) -> None:
    failures = [RuntimeError("embedding 503")]

    def fail_once(_: EmbedInput) -> Exception | None:
        return failures.pop() if failures else None

    deps = make_deps(pool, summarize=lambda _: SummaryOutput(summary=SUMMARY),
                     embed_fail=fail_once)  # fmt: skip
    ev = episode(new_tenant())
    await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"], row["summary"]) == ("failed", 1, SUMMARY)
    assert row["summary_embedding"] is None and "embedding failed" in row["last_error"]

    await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["summary"]) == ("done", SUMMARY)
    assert row["summary_embedding"] is not None
    assert len(deps.models.summarizer.requests) == 1  # the summary was not asked again
    assert len(deps.models.embedder.requests) == 2
    assert await calls(pool, ev) == [
        ("summarize", "summarize", False),
        ("summarize", "embed", True),
        ("summarize", "embed", False),
    ]


class _ProviderOutage(ConnectionError):
    """What a provider of the user's own may raise instead of a ModelError."""


async def test_a_transient_embedding_error_keeps_the_fresh_summary_for_the_retry(
    pool: Any,
) -> None:
    failures: list[Exception] = [_ProviderOutage("embedding endpoint reset the connection")]

    def fail_once(_: EmbedInput) -> Exception | None:
        return failures.pop() if failures else None

    deps = make_deps(pool, summarize=lambda _: SummaryOutput(summary=SUMMARY))
    raw_embed = deps.models.embedder.embed

    async def unwrapped(request: EmbedInput) -> Any:
        # The scripted embedder wraps its failures in ModelCallFailed; a provider of the
        # user's own may let a connection error through, which the runtime retries.
        if (error := fail_once(request)) is not None:
            raise error
        return await raw_embed(request)

    deps.models.embedder.embed = unwrapped  # type: ignore[method-assign]
    ev = episode(new_tenant())
    with pytest.raises(_ProviderOutage):
        await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert row["summary"] == SUMMARY and row["summary_embedding"] is None
    assert await calls(pool, ev) == [("summarize", "summarize", False)]

    await create_stage(deps).handle(ev, CTX)  # the runtime's retry of the same record
    row = await episode_row(pool, ev)
    assert (row["status"], row["summary"]) == ("done", SUMMARY)
    assert len(deps.models.summarizer.requests) == 1  # the summary was not asked again

    # Reprocessing the done episode into the same error leaves its summary and embedding.
    done = await episode_row(pool, ev)
    deps.models.summarizer.script = lambda _: SummaryOutput(summary="A new summary.")
    failures.append(_ProviderOutage("reset again"))
    with pytest.raises(_ProviderOutage):
        await create_stage(deps).handle(ev.model_copy(update={"reprocess": True}), CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["summary"]) == ("done", SUMMARY)
    assert row["summary_embedding"].to_list() == done["summary_embedding"].to_list()


async def test_a_vector_of_the_wrong_size_is_an_embedding_failure(pool: Any) -> None:
    deps = make_deps(pool)
    deps.models.embedder.dim = TEST_EMBEDDING_DIM + 1
    ev = episode(new_tenant())
    await create_stage(deps).handle(ev, CTX)
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"]) == ("failed", 1)
    assert "of another dimension than 16" in row["last_error"]


async def test_an_empty_window_is_skipped(pool: Any) -> None:
    deps = make_deps(pool)
    ev = episode(new_tenant(), [])
    await create_stage(deps).handle(ev, CTX)
    assert (await episode_row(pool, ev))["status"] == "skipped"
    assert deps.models.summarizer.requests == []


async def test_a_nul_in_the_summary_is_dropped_and_the_summary_stored(pool: Any) -> None:
    stage = create_stage(
        make_deps(pool, summarize=lambda _: SummaryOutput(summary="Moved\x00 out"))
    )
    ev = episode(new_tenant())
    assert await stage.handle(ev, CTX) == []
    row = await episode_row(pool, ev)
    assert (row["status"], row["summary"]) == ("done", "Moved out")


async def test_every_dead_lettered_summary_counts_toward_the_cap(pool: Any) -> None:
    """A failure outside the model (a database error, a bug, transient errors past the
    runtime's budget) dead-letters the record; the hook counts it, so the sweep retries
    the episode under max_retries and then stops, instead of republishing it as pending
    every claim timeout forever."""

    class BrokenEmbedder:  # a provider of the user's own with a bug in it
        async def embed(self, request: EmbedInput) -> Any:
            raise ValueError("not a model error")

    deps = make_deps(pool)
    models = dataclasses.replace(deps.models, embedder=BrokenEmbedder())
    stage = create_stage(dataclasses.replace(deps, models=models))
    ev = episode(new_tenant())
    for attempt in range(1, 4):
        with pytest.raises(ValueError):
            await stage.handle(ev, CTX)
        await stage.on_dead_letter(ev, CTX, "handler_error", "ValueError: not a model error")
        row = await episode_row(pool, ev)
        assert (row["status"], row["retry_count"]) == ("failed", attempt)
    assert "dead-lettered (handler_error)" in row["last_error"]
    async with pool.acquire() as conn:
        due = await conn.fetchval(
            "SELECT count(*) FROM episodes WHERE dataset = $1 AND project_id = $2"
            " AND status = 'failed' AND retry_count < $3", ev.dataset, ev.project_id, 3,
        )  # fmt: skip
    assert due == 0  # at the cap: the sweep leaves it


async def test_a_dead_letter_leaves_a_done_summary_done(pool: Any) -> None:
    stage = create_stage(make_deps(pool))
    ev = episode(new_tenant())
    await stage.handle(ev, CTX)
    await stage.on_dead_letter(ev, CTX, "handler_error", "a reprocess failed")
    row = await episode_row(pool, ev)
    assert (row["status"], row["retry_count"]) == ("done", 0)
