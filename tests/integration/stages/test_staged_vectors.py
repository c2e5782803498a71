"""Embeddings between dedup and the writer: staged in Postgres, never on a topic.

Dedup stages a survivor's vector, the judge hands the writer only where it is, the
writer's insert consumes it; a record that comes again after the vectors are gone (a
replay, a purge) is embedded again rather than stored without one.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from streams.events import FactsDeduped, FactsJudged
from streams.model.fakes.scripted import ScriptedEmbedder, scripted_models
from streams.runtime.codec import DecodeError, decode
from streams.settings import Settings
from streams.stages import dedup, judge, write
from streams.store import staged_vectors
from tests.support.events import new_tenant
from tests.support.facts import DIM, lit, resolved
from tests.support.stages import ctx, stage_deps
from tests.support.store_rows import seed_episode

SETTINGS = Settings(embedding_dim=DIM)


class Tenant:
    def __init__(self, t: tuple[str, str]) -> None:
        self.dataset, self.project_id = t


async def calls(pool: Any, t: tuple[str, str]) -> list[tuple[str, str]]:
    rows = await pool.fetch(
        "SELECT stage, kind FROM llm_calls WHERE dataset = $1 AND project_id = $2 ORDER BY id", *t
    )
    return [(r["stage"], r["kind"]) for r in rows]


async def staged_rows(pool: Any, t: tuple[str, str]) -> int:
    return int(
        await pool.fetchval(
            "SELECT count(*) FROM staged_vectors WHERE dataset = $1 AND project_id = $2", *t
        )
    )


async def test_dedup_stages_the_vectors_and_the_writer_stores_them(pool: Any) -> None:
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    embedder = ScriptedEmbedder(DIM)
    deps = stage_deps(SETTINGS, pool, scripted_models(embedder=embedder))
    facts = [lit("user", "likes", "tea"), lit("user", "likes", "jazz")]
    [deduped] = await dedup.create_stage(deps).handle(resolved(Tenant(t), "e1", facts), ctx(1))
    assert isinstance(deduped, FactsDeduped)
    assert [c.vector for c in deduped.candidates] == [0, 1]
    assert b"embedding" not in deduped.model_dump_json().encode()  # nothing on the topic
    assert await staged_rows(pool, t) == 2

    [judged] = await judge.create_stage(deps).handle(deduped, ctx(1, topic="facts.deduped"))
    assert isinstance(judged, FactsJudged) and judged.vectors_from == deduped.event_id
    await write.create_stage(deps).handle(judged, ctx(1))

    stored = await pool.fetch(
        "SELECT object, embedding FROM facts WHERE dataset = $1 AND project_id = $2"
        " ORDER BY object", *t,
    )  # fmt: skip
    assert [r["object"] for r in stored] == ["jazz", "tea"]
    for r in stored:
        expected = embedder.vector(f"user likes {r['object']}")
        assert r["embedding"].to_list() == pytest.approx(expected, abs=1e-6)
    assert await staged_rows(pool, t) == 0  # consumed by the insert
    assert await calls(pool, t) == [("dedup", "embed")]  # the writer embedded nothing


async def test_a_record_replayed_after_its_write_is_embedded_again(pool: Any) -> None:
    """The judge must search the band again (facts were written since dedup read it) but
    the vectors were consumed: it embeds the candidates and stages them anew for the
    writer; a judged record whose vectors are gone makes the writer embed them."""
    t = new_tenant()
    await seed_episode(pool, t, "e1")
    deps = stage_deps(SETTINGS, pool, scripted_models(embedder=ScriptedEmbedder(DIM)))
    event = resolved(Tenant(t), "e1", [lit("user", "likes", "tea")])
    [deduped] = await dedup.create_stage(deps).handle(event, ctx(1))
    [judged] = await judge.create_stage(deps).handle(deduped, ctx(1, topic="facts.deduped"))
    await write.create_stage(deps).handle(judged, ctx(1))
    assert await staged_rows(pool, t) == 0

    replayed = deduped.model_copy(update={"live_facts_as_of": None})  # written since
    [again] = await judge.create_stage(deps).handle(replayed, ctx(2, topic="facts.deduped"))
    assert await staged_rows(pool, t) == 1  # staged anew
    assert ("judge", "embed") in await calls(pool, t)

    await pool.execute("DELETE FROM staged_vectors WHERE dataset = $1", t[0])  # purged
    other = again.model_copy(update={"inserts": [again.inserts[0].model_copy(update={
        "fact": again.inserts[0].fact.model_copy(update={"object": "green tea"})})]})  # fmt: skip
    await write.create_stage(deps).handle(other, ctx(2))
    missing = await pool.fetchval(
        "SELECT count(*) FROM facts WHERE dataset = $1 AND embedding IS NULL", t[0]
    )
    assert missing == 0 and ("write", "embed") in await calls(pool, t)


async def test_the_sweep_purges_vectors_no_writer_consumed(pool: Any) -> None:
    t = new_tenant()
    await staged_vectors.stage(pool, *t, "ev-old", [[1.0] * DIM])
    await staged_vectors.stage(pool, *t, "ev-new", [[1.0] * DIM])
    await pool.execute(
        "UPDATE staged_vectors SET created_at = now() - $2::interval"
        " WHERE dataset = $1 AND event_id = 'ev-old'",
        t[0], staged_vectors.STAGED_VECTORS_TTL + timedelta(minutes=1),
    )  # fmt: skip
    assert await staged_vectors.purge_stale(pool) >= 1
    left = await pool.fetch("SELECT event_id FROM staged_vectors WHERE dataset = $1", t[0])
    assert [r["event_id"] for r in left] == ["ev-new"]


def test_a_record_of_the_previous_revision_is_refused_with_a_clear_reason() -> None:
    """Revision 1 carried the vectors inline; a reader of revision 2 refuses it (and a
    revision-1 reader refuses revision 2) on schema_version, not on some other field."""
    old = (
        '{"schema_version": 1, "dataset": "d", "project_id": "p", "episode_id": "e",'
        ' "source_event_id": "s", "candidates": [{"fact": {"subject": "user",'
        ' "predicate": "likes", "object": "tea", "kind": "literal", "confidence": 0.9},'
        ' "embedding": [0.1, 0.2]}]}'
    )
    with pytest.raises(DecodeError) as refused:
        decode(old.encode(), FactsDeduped, 1_000_000)
    assert refused.value.reason == "invalid_schema" and "schema_version" in str(refused.value)
