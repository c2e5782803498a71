"""A newer version of an episode takes back what it no longer says (DESIGN "Time", rule 4).

Real broker, real Postgres, all six stages, a scripted model that answers `old` to every
pair; every case is its own tenant, every date relative to now. Each case's episodes are
published one at a time; a version is the same episode id re-sent with a later
completed_at and the user's message as it reads now (edited, cut or grown), and the
scripted model extracts from that version what it says.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

import pytest

from streams.domain.graph import RawGraph
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph
from streams.model.fakes.scripted import hashed_vector, vector_at_similarity
from streams.store.facts_query import facts_at
from tests.support.clock import NOW, ago, date_in
from tests.support.events import episode, telling
from tests.support.fact_table import Row, fact_table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

LONDON = graph({"london": "PLACE"}, claim("user", "lives in", "london"))
PARIS = graph({"paris": "PLACE"}, claim("user", "lives in", "paris"))
ROME = graph({"rome": "PLACE"}, claim("user", "lives in", "rome"))
DOG = graph({"rex": "ANIMAL"}, claim("user", "has dog", "rex"))
PARIS_AND_DOG = graph(
    {"paris": "PLACE", "rex": "ANIMAL"},
    claim("user", "lives in", "paris"),
    claim("user", "has dog", "rex"),
)
RESIDES = graph({"paris": "PLACE"}, claim("user", "resides in", "paris"))
NOTHING = graph({})
# Embeddings the scripted embedder gives, per case: (text, the text it is near, cosine).
NEAR: dict[str, tuple[str, str, float]] = {
    "restated-in-other-words": ("user resides in paris", "user lives in paris", 0.97),
}
CIVIC = graph(
    {"honda civic": "VEHICLE"},
    claim("user", "drives", "honda civic"),
    claim("honda civic", "has mileage of", "80000 km"),
)
SOLD_CIVIC = graph(
    {"honda civic": "VEHICLE"}, claim("user", "drives", "honda civic", until=date_in(-3))
)
SOLD_CIVIC_WEEK = graph(
    {"honda civic": "VEHICLE"}, claim("user", "drives", "honda civic", until=date_in(-7))
)
SOLD_CIVIC_EARLIER = graph(
    {"honda civic": "VEHICLE"}, claim("user", "drives", "honda civic", until=date_in(-10))
)
GOLF = graph({"vw golf": "VEHICLE"}, claim("user", "drives", "vw golf"))

EMPTIED = ""  # a version whose window holds no message at all
REPROCESSED = {"older-version-reprocessed": 3}  # case -> its step published with reprocess

# Each step: (episode id, said at, what the user's message says, the graph extracted).
Step = tuple[str, datetime, str, RawGraph]
# fmt: off
CASES: dict[str, list[Step]] = {
    # "I moved to Paris" (which ended London) is edited to say something else: Paris is
    # taken back and London is where the user lives again.
    "statement-deleted": [
        ("ep-0", ago(30), telling(LONDON), LONDON),
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # "I moved to Paris" edited to "I moved to Rome": Paris is taken back, and Rome ends
    # London (judged against it, as if Paris had never been said).
    "statement-edited": [
        ("ep-0", ago(30), telling(LONDON), LONDON),
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), telling(ROME), ROME),
    ],
    # The window grew: the earlier message is still there, one more came. Nothing is
    # taken back, the new statement joins.
    "window-grown": [
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), telling(PARIS_AND_DOG), PARIS_AND_DOG),
    ],
    # The same statement in other words: taken back, and stated again by the new words.
    "statement-rephrased": [
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), "i am living in paris now", PARIS),
    ],
    # "I sold my Civic" (which ended the Civic and, by the cascade, its mileage) deleted:
    # the user drives the Civic again, and its mileage holds again.
    "closure-deleted": [
        ("ep-0", ago(30), telling(CIVIC), CIVIC),
        ("ep-1", ago(2), "I sold my honda civic three days ago", SOLD_CIVIC),
        ("ep-1", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # Every message of the episode deleted: its version comes with an empty window, is
    # skipped, and takes back all the earlier one said.
    "window-emptied": [
        ("ep-0", ago(30), telling(LONDON), LONDON),
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), EMPTIED, NOTHING),
    ],
    # Paris said in ep-1, said again in ep-2 (dropped there as an exact duplicate), then
    # deleted from ep-1: ep-2 still says it, so it stays.
    "restated-elsewhere": [
        ("ep-1", ago(6), telling(PARIS), PARIS),
        ("ep-2", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # The same with ep-2's words near enough to be dropped as a near duplicate.
    "restated-in-other-words": [
        ("ep-1", ago(6), telling(PARIS), PARIS),
        ("ep-2", ago(5), telling(RESIDES), RESIDES),
        ("ep-1", ago(4), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # "I sold my Civic" said in ep-1, said again in ep-2 (dropped there as an exact
    # duplicate of the end ep-1 gave), then deleted from ep-1: ep-2 still says it.
    "closure-restated-elsewhere": [
        ("ep-0", ago(30), telling(CIVIC), CIVIC),
        ("ep-1", ago(2), "I sold my honda civic three days ago", SOLD_CIVIC),
        ("ep-2", ago(1.5), "I sold my honda civic a few days ago", SOLD_CIVIC),
        ("ep-1", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # A replay that reprocesses the older version after the newer one (the last step is
    # published with reprocess): it changes nothing, Paris stays taken back.
    "older-version-reprocessed": [
        ("ep-0", ago(30), telling(LONDON), LONDON),
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), "Nothing new, sorry, wrong chat.", NOTHING),
        ("ep-1", ago(5), telling(PARIS), PARIS),
    ],
    # "I moved to Paris" (which ended London) was itself ended by Rome, said in another
    # episode, before it was deleted: Paris is taken back, and London was true until Rome.
    "superseded-then-deleted": [
        ("ep-0", ago(30), telling(LONDON), LONDON),
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-2", ago(3), telling(ROME), ROME),
        ("ep-1", ago(2), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # The Civic (and its mileage) said in ep-0, sold in ep-1, then ep-0's message deleted:
    # the user never said they had it, so nothing of it stays, its end included.
    "closed-then-deleted": [
        ("ep-0", ago(30), telling(CIVIC), CIVIC),
        ("ep-1", ago(2), "I sold my honda civic three days ago", SOLD_CIVIC),
        ("ep-0", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # The Civic replaced the Golf, then "I sold my Civic" was deleted: only the end is
    # taken back. The Civic is driven again; the Golf stays replaced by it.
    "closure-deleted-after-a-replacement": [
        ("ep-0", ago(30), telling(GOLF), GOLF),
        ("ep-1", ago(20), telling(CIVIC), CIVIC),
        ("ep-2", ago(2), "I sold my honda civic three days ago", SOLD_CIVIC),
        ("ep-2", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # "I sold my Civic a week ago" (ep-1), then "no, ten days ago" (ep-2), then both
    # deleted, the later first: the week-old end comes back with ep-1's words, and then
    # goes with them.
    "moved-end-then-both-deleted": [
        ("ep-0", ago(30), telling(CIVIC), CIVIC),
        ("ep-1", ago(5), "I sold my honda civic a week ago", SOLD_CIVIC_WEEK),
        ("ep-2", ago(3), "no, I sold my honda civic ten days ago", SOLD_CIVIC_EARLIER),
        ("ep-2", ago(2), "Nothing new, sorry, wrong chat.", NOTHING),
        ("ep-1", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # "Sold it a week ago", said first, arrives after "sold it 3 days ago" and is dropped
    # (the later statement stands); then the later one is deleted: the Civic stays sold.
    "end-said-earlier-arrives-late-then-later-deleted": [
        ("ep-0", ago(30), telling(CIVIC), CIVIC),
        ("ep-2", ago(2), "I sold my honda civic three days ago", SOLD_CIVIC),
        ("ep-1", ago(3), "I sold my honda civic a week ago", SOLD_CIVIC_WEEK),
        ("ep-2", ago(1), "Nothing new, sorry, wrong chat.", NOTHING),
    ],
    # A statement turned into a maybe: no longer the user's statement.
    "statement-hedged": [
        ("ep-1", ago(5), telling(PARIS), PARIS),
        ("ep-1", ago(4), "maybe user lives in paris one day", NOTHING),
    ],
}
# fmt: on


@dataclass
class Run:
    pipeline: Pipeline
    tenants: dict[str, tuple[str, str]]
    versions_at: dict[str, datetime]  # when each case's last version was published

    async def true_now(self, name: str) -> list[str]:
        rows = await facts_at(self.pipeline.pool, *self.tenants[name], valid_at=NOW)
        return sorted(" ".join(r.triple) for r in rows)

    async def true_at(self, name: str, when: datetime, *, before_the_version: bool = False
                      ) -> list[str]:  # fmt: skip
        as_of = self.versions_at[name] if before_the_version else None
        rows = await facts_at(self.pipeline.pool, *self.tenants[name], valid_at=when, as_of=as_of)
        return sorted(" ".join(r.triple) for r in rows)

    async def believed_before_the_version(self, name: str) -> list[str]:
        rows = await facts_at(
            self.pipeline.pool, *self.tenants[name], valid_at=NOW, as_of=self.versions_at[name]
        )
        return sorted(" ".join(r.triple) for r in rows)

    async def rows(self, name: str) -> list[Row]:
        return await fact_table(self.pipeline.pool, *self.tenants[name])


@pytest.fixture(scope="module")
async def run(kafka_bootstrap: str, database_url: str) -> AsyncIterator[Run]:
    settings = await pipeline_settings(kafka_bootstrap, database_url, llm_backoff_base_s=0.05)
    book = ScriptBook(settings.embedding_dim)
    tenants: dict[str, tuple[str, str]] = {}
    scripts: dict[str, TenantScript] = {}
    for name in CASES:
        tenants[name] = (f"{name}-{uuid.uuid4().hex[:6]}", "p1")
        scripts[name] = book.add(
            *tenants[name],
            TenantScript(verdict=always("old"), vectors=_vectors(name, settings.embedding_dim)),
        )
    pipeline = Pipeline(settings, book.models())
    versions_at: dict[str, datetime] = {}
    try:
        async with pipeline:
            for name, steps in CASES.items():
                sent: set[str] = set()
                for i, (ep, when, text, said) in enumerate(steps):
                    scripts[name].graphs = {**scripts[name].graphs, ep: said}
                    if ep in sent:  # a newer version of it
                        versions_at[name] = await _clock(pipeline)
                    sent.add(ep)
                    event = episode(*tenants[name], ep, text, completed_at=when)
                    if text == EMPTIED:
                        event = event.model_copy(update={"messages": []})
                    if REPROCESSED.get(name) == i:
                        event = event.model_copy(update={"reprocess": True})
                    await pipeline.publish(event)
                    await pipeline.wait_done([event], timeout=60)
            yield Run(pipeline, tenants, versions_at)
    finally:
        delete_pipeline_topics(settings)


def _vectors(name: str, dim: int) -> dict[str, list[float]]:
    if name not in NEAR:
        return {}
    text, other, cosine = NEAR[name]
    base = hashed_vector(other, dim)
    return {other: base, text: vector_at_similarity(base, cosine, seed=text)}


async def _clock(pipeline: Pipeline) -> datetime:
    value: datetime = await pipeline.pool.fetchval("SELECT clock_timestamp()")
    return value


async def test_a_deleted_statement_is_taken_back_and_what_it_ended_comes_back(run: Run) -> None:
    name = "statement-deleted"
    assert await run.believed_before_the_version(name) == ["user lives in paris"]
    assert await run.true_now(name) == ["user lives in london"]
    paris = [r for r in await run.rows(name) if r.object == "paris"]
    assert [(r.state, r.episode) for r in paris] == [("retracted", "ep-1")]


async def test_an_edited_statement_is_judged_against_the_memory_without_the_old_one(
    run: Run,
) -> None:
    name = "statement-edited"
    assert await run.believed_before_the_version(name) == ["user lives in paris"]
    assert await run.true_now(name) == ["user lives in rome"]
    rows = await run.rows(name)
    assert [r.state for r in rows if r.object == "paris"] == ["retracted"]
    # London was true until Rome was said (the second version's time), not until Paris
    london_now = [r for r in rows if r.object == "london" and r.state in ("live", "expired")]
    assert [(r.end, r.end_by, r.valid_until) for r in london_now] == [
        ("superseded", "user lives in rome", ago(4))
    ]


async def test_a_grown_window_takes_nothing_back(run: Run) -> None:
    name = "window-grown"
    assert await run.true_now(name) == ["user has dog rex", "user lives in paris"]
    assert all(r.state == "live" for r in await run.rows(name))


async def test_a_statement_turned_into_a_maybe_is_taken_back(run: Run) -> None:
    name = "statement-hedged"
    assert await run.believed_before_the_version(name) == ["user lives in paris"]
    assert await run.true_now(name) == []
    assert [r.state for r in await run.rows(name)] == ["retracted"]


async def test_a_rephrased_statement_is_stated_again_by_the_newer_version(run: Run) -> None:
    name = "statement-rephrased"
    assert await run.true_now(name) == ["user lives in paris"]
    rows = await run.rows(name)
    assert sorted((r.state, r.episode, r.untrusted) for r in rows) == [
        ("live", "ep-1", None), ("retracted", "ep-1", None),
    ]  # fmt: skip


async def test_a_deleted_end_is_taken_back_with_what_it_cascaded_to(run: Run) -> None:
    name = "closure-deleted"
    assert await run.believed_before_the_version(name) == []
    assert await run.true_now(name) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    rows = await run.rows(name)
    live = [(r.subject, r.predicate, r.valid_until) for r in rows if r.state == "live"]
    assert sorted(live) == [
        ("honda civic", "has mileage of", None), ("user", "drives", None),
    ]  # fmt: skip
    assert [r.predicate for r in rows if r.state == "retracted"] == ["drives"]


async def test_a_deleted_end_leaves_what_the_fact_had_replaced_replaced(run: Run) -> None:
    name = "closure-deleted-after-a-replacement"
    assert await run.believed_before_the_version(name) == []
    assert await run.true_now(name) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    golf = [r for r in await run.rows(name) if r.object == "vw golf" and r.state == "expired"]
    assert [(r.end, r.end_by, r.valid_until) for r in golf] == [
        ("superseded", "user drives honda civic", ago(20))
    ]


async def test_ends_taken_back_one_after_the_other_leave_the_fact_open(run: Run) -> None:
    name = "moved-end-then-both-deleted"
    assert await run.true_at(name, ago(8), before_the_version=True) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    assert await run.true_at(name, ago(6), before_the_version=True) == []
    assert await run.true_now(name) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    live = [
        (r.predicate, r.valid_until, r.episode) for r in await run.rows(name) if r.state == "live"
    ]
    # believed again by ep-1's newer version, whose take-back wrote them
    assert sorted(live) == [("drives", None, "ep-1"), ("has mileage of", None, "ep-1")]


async def test_an_end_another_chat_gave_before_it_keeps_the_fact_ended(run: Run) -> None:
    name = "end-said-earlier-arrives-late-then-later-deleted"
    drops = await run.pipeline.pool.fetch(
        "SELECT episode_id, reason FROM fact_drops WHERE dataset = $1 AND project_id = $2"
        " AND stage = 'dedup'",
        *run.tenants[name],
    )
    assert [(d["episode_id"], d["reason"]) for d in drops] == [("ep-1", "ended_later")]
    assert await run.true_now(name) == []
    rows = await run.rows(name)
    ended = [(r.predicate, r.valid_until) for r in rows if r.state == "expired"]
    assert sorted((p, u and u.date().isoformat()) for p, u in ended) == [
        ("drives", date_in(-3)), ("has mileage of", date_in(-3)),
    ]  # fmt: skip
    assert not [r for r in rows if r.state == "retracted"]


async def test_a_version_with_no_message_left_takes_back_all_the_earlier_one_said(
    run: Run,
) -> None:
    name = "window-emptied"
    assert await run.believed_before_the_version(name) == ["user lives in paris"]
    assert await run.true_now(name) == ["user lives in london"]
    rows = await run.rows(name)
    assert [r.state for r in rows if r.object == "paris"] == ["retracted"]
    status = await run.pipeline.pool.fetchval(
        "SELECT semantic_status FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND episode_id = 'ep-1'",
        *run.tenants[name],
    )
    assert status == "skipped"


@pytest.mark.parametrize("name", ["restated-elsewhere", "restated-in-other-words"])
async def test_a_statement_another_episode_made_again_is_not_taken_back(
    run: Run, name: str
) -> None:
    assert await run.true_now(name) == ["user lives in paris"]
    assert [(r.state, r.episode) for r in await run.rows(name)] == [("live", "ep-1")]


async def test_an_end_another_episode_gave_again_is_not_taken_back(run: Run) -> None:
    name = "closure-restated-elsewhere"
    assert await run.true_now(name) == []
    rows = await run.rows(name)
    assert not [r for r in rows if r.state == "retracted"]
    ended = [(r.predicate, r.valid_until) for r in rows if r.state == "expired"]
    assert sorted((p, u and u.date().isoformat()) for p, u in ended) == [
        ("drives", date_in(-3)), ("has mileage of", date_in(-3)),
    ]  # fmt: skip


async def test_an_older_version_reprocessed_after_a_newer_one_changes_nothing(run: Run) -> None:
    name = "older-version-reprocessed"
    assert await run.true_now(name) == ["user lives in london"]
    rows = await run.rows(name)
    assert [(r.state, r.episode) for r in rows if r.object == "paris"] == [("retracted", "ep-1")]
    stored = await run.pipeline.pool.fetchval(
        "SELECT completed_at FROM episodes WHERE dataset = $1 AND project_id = $2"
        " AND episode_id = 'ep-1'",
        *run.tenants[name],
    )
    assert stored == ago(4)


async def test_a_deleted_statement_a_later_one_had_replaced_is_taken_back(run: Run) -> None:
    name = "superseded-then-deleted"
    assert await run.true_at(name, ago(4), before_the_version=True) == ["user lives in paris"]
    assert await run.true_at(name, ago(4)) == ["user lives in london"]
    assert await run.true_now(name) == ["user lives in rome"]
    rows = await run.rows(name)
    believed = [r for r in rows if r.state in ("live", "expired")]
    assert sorted((r.object, r.valid_until, r.end, r.end_by) for r in believed) == [
        ("london", ago(3), "superseded", "user lives in rome"), ("rome", None, None, None),
    ]  # fmt: skip
    assert [r.state for r in rows if r.object == "paris" and r.state == "retracted"] == [
        "retracted"
    ]


async def test_a_deleted_statement_a_later_one_had_ended_is_taken_back_with_its_end(
    run: Run,
) -> None:
    name = "closed-then-deleted"
    assert await run.true_at(name, ago(10), before_the_version=True) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    assert await run.true_at(name, ago(10)) == []
    assert await run.true_now(name) == []
    rows = await run.rows(name)
    assert not [r for r in rows if r.state in ("live", "expired")]
    assert sorted(r.predicate for r in rows if r.state == "retracted") == [
        "drives", "has mileage of",
    ]  # fmt: skip
