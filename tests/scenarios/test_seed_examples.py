"""The seed's examples, end to end: real broker, real Postgres, all six stages, scripted model.

One pipeline runs for the module; every scenario of seed_examples.py is its own tenant,
published at the start, so they all flow at once (each tenant's episodes in order). A
test waits for its tenant and asserts the whole fact table, live and history, with the
reason each ended row ended and the row that ended it.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from streams.events import EpisodeCompleted
from streams.model.fakes.book import ScriptBook, TenantScript
from tests.scenarios.seed_examples import (
    FITBOX_END,
    INITECH_END,
    JOINING_DAY,
    RETIRING_DAY,
    SCENARIOS,
    SOLD_DAY,
    at,
)
from tests.support.events import BASE_TIME, episode
from tests.support.fact_table import (
    Row,
    drops,
    entities,
    fact_table,
    judge_requests,
    model_calls,
    table,
)
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

LIT = "literal"


@dataclass
class Run:
    pipeline: Pipeline
    tenants: dict[str, tuple[str, str]]
    events: dict[str, list[EpisodeCompleted]]

    async def finish(self, name: str) -> tuple[str, str]:
        await self.pipeline.wait_done(self.events[name], timeout=90)
        return self.tenants[name]

    async def table(self, name: str) -> list[Row]:
        return await fact_table(self.pipeline.pool, *await self.finish(name))


@pytest.fixture(scope="module")
async def run(kafka_bootstrap: str, database_url: str) -> AsyncIterator[Run]:
    settings = await pipeline_settings(kafka_bootstrap, database_url)
    book = ScriptBook(settings.embedding_dim)
    tenants: dict[str, tuple[str, str]] = {}
    events: dict[str, list[EpisodeCompleted]] = {}
    for name, sc in SCENARIOS.items():
        tenant = (f"{name}-{uuid.uuid4().hex[:6]}", "p1")
        tenants[name] = tenant
        book.add(*tenant, TenantScript(
            graphs={ep: g for ep, _, g in sc.episodes}, verdict=sc.verdict,
            judge_error=sc.judge_error, vectors=sc.vectors,
        ))  # fmt: skip
        events[name] = [episode(*tenant, ep, text) for ep, text, _ in sc.episodes]
    pipeline = Pipeline(settings, book.models())
    try:
        async with pipeline:
            # Scenario by scenario: a tenant's episodes are published back to back.
            await pipeline.publish(*[e for evs in events.values() for e in evs])
            yield Run(pipeline, tenants, events)
    finally:
        delete_pipeline_topics(settings)


def said_by(sentence: str, state: str = "expired", end: str = "superseded", **kw: object) -> dict:
    """The fields of a believed copy whose valid time a later statement ended."""
    return {"state": state, "end": end, "end_by": sentence, **kw}


async def test_job_change_supersedes_the_old_job(run: Run) -> None:
    anthropic = "user works at anthropic"
    assert await run.table("job-change") == table([
        Row("user", "works at", "anthropic", "ep-2"),
        Row("user", "works at", "google", "ep-1", "superseded", by=anthropic),
        # Valid time: google ends where anthropic starts, when the user said it.
        Row("user", "works at", "google", "ep-2", **said_by(anthropic, valid_until=BASE_TIME)),
    ])  # fmt: skip
    judged = await judge_requests(run.pipeline.pool, *run.tenants["job-change"])
    assert judged == {"ep-2": [("user works at anthropic", "user works at google")]}


async def test_joining_acme_on_march_1_is_works_at_acme_from_march_1(run: Run) -> None:
    assert await run.table("joining-acme") == [
        Row("user", "works at", "acme", "ep-1", valid_from=at(JOINING_DAY)),
    ]


async def test_car_and_tv_budgets_do_not_replace_each_other(run: Run) -> None:
    assert await run.table("budgets") == table([
        Row("user", "has car budget of", "25000 usd", "ep-1", kind=LIT),
        Row("user", "has tv budget of", "1500 usd", "ep-2", kind=LIT),
    ])  # fmt: skip
    assert await judge_requests(run.pipeline.pool, *run.tenants["budgets"]) == {}


async def test_sold_civic_ends_drives_civic_and_by_cascade_its_mileage(run: Run) -> None:
    sold, sold_at = "user sold honda civic", at(SOLD_DAY)
    mileage = "honda civic has mileage of 80000 km"
    assert await run.table("sold-civic") == table([
        Row("honda civic", "has mileage of", "80000 km", "ep-1", "cascade", by=mileage, kind=LIT),
        Row("honda civic", "has mileage of", "80000 km", "ep-2", kind=LIT,
            **said_by(sold, end="cascade", valid_until=sold_at)),
        Row("user", "drives", "honda civic", "ep-1", "superseded", by=sold),
        # Selling ends driving at the day it was sold, and the mileage with it.
        Row("user", "drives", "honda civic", "ep-2", **said_by(sold, valid_until=sold_at)),
        # Stored as history: its valid time ended before it was learned.
        Row("user", "sold", "honda civic", "ep-2", "expired", valid_until=sold_at),
    ])  # fmt: skip
    judged = await judge_requests(run.pipeline.pool, *run.tenants["sold-civic"])
    assert judged == {"ep-2": [(f"{sold} (until {SOLD_DAY})", "user drives honda civic")]}


async def test_is_retiring_novablast_ends_owns_novablast(run: Run) -> None:
    retiring, until = "user is retiring novablast 5", at(RETIRING_DAY)
    mileage = "novablast 5 has mileage of 300 km"
    assert await run.table("retiring-novablast") == table([
        Row("novablast 5", "has mileage of", "300 km", "ep-1", "cascade", by=mileage, kind=LIT),
        # True until the day the user named, not ended today; the shoes' facts with it.
        Row("novablast 5", "has mileage of", "300 km", "ep-2", kind=LIT,
            **said_by(retiring, state="live", end="cascade", valid_until=until)),
        Row("user", "is retiring", "novablast 5", "ep-2", valid_until=until),
        Row("user", "owns", "novablast 5", "ep-1", "superseded", by=retiring),
        Row("user", "owns", "novablast 5", "ep-2",
            **said_by(retiring, state="live", valid_until=until)),
    ])  # fmt: skip


async def test_lives_in_and_works_from_chennai_are_not_judged(run: Run) -> None:
    assert await run.table("chennai") == table([
        Row("user", "lives in", "chennai", "ep-1"),
        Row("user", "works from", "chennai", "ep-2"),
    ])  # fmt: skip
    calls = await model_calls(run.pipeline.pool, *run.tenants["chennai"])
    assert not [k for k in calls if k[2] == "judge"]


async def test_works_at_vs_is_employed_by_reaches_the_judge_through_the_band(run: Run) -> None:
    globex = "user is employed by globex"
    assert await run.table("employed-by") == table([
        Row("user", "is employed by", "globex", "ep-2"),
        Row("user", "works at", "initech", "ep-1", "superseded", by=globex),
        Row("user", "works at", "initech", "ep-2", **said_by(globex, valid_until=BASE_TIME)),
    ])  # fmt: skip
    judged = await judge_requests(run.pipeline.pool, *run.tenants["employed-by"])
    assert judged == {"ep-2": [("user is employed by globex", "user works at initech")]}


async def test_judge_failure_lets_both_facts_coexist(run: Run) -> None:
    assert await run.table("judge-fails") == table([
        Row("user", "works at", "anthropic", "ep-2"),
        Row("user", "works at", "google", "ep-1"),
    ])  # fmt: skip
    failed = await run.pipeline.pool.fetch(
        "SELECT episode_id, error FROM llm_calls WHERE dataset = $1 AND kind = 'judge'",
        run.tenants["judge-fails"][0],
    )
    assert [(r["episode_id"], "model overloaded" in r["error"]) for r in failed] == [("ep-2", True)]


async def test_a_low_confidence_fact_is_stored_but_destroys_nothing(run: Run) -> None:
    assert await run.table("low-confidence") == table([
        Row("user", "lives in", "paris", "ep-1"),
        Row("user", "lives in", "rome", "ep-2", confidence=0.3),
    ])  # fmt: skip
    assert await judge_requests(run.pipeline.pool, *run.tenants["low-confidence"]) == {}


async def test_a_historical_fact_is_stored_as_history(run: Run) -> None:
    assert await run.table("historical") == table([
        Row("user", "works at", "google", "ep-1"),
        Row("user", "works at", "initech", "ep-2", "expired", valid_until=at(INITECH_END)),
    ])  # fmt: skip
    assert await judge_requests(run.pipeline.pool, *run.tenants["historical"]) == {}


async def test_a_new_verdict_discards_the_candidate_and_its_old_verdicts(run: Run) -> None:
    # Judged `old` against google but `new` against deepmind: anthropic is not stored, so
    # it must not end google either.
    assert await run.table("new-verdict") == table([
        Row("user", "works at", "deepmind", "ep-1"),
        Row("user", "works at", "google", "ep-1"),
    ])  # fmt: skip
    tenant = run.tenants["new-verdict"]
    assert len((await judge_requests(run.pipeline.pool, *tenant))["ep-2"]) == 2
    assert await drops(run.pipeline.pool, *tenant) == [
        ("ep-2", "judge", "superseded_by_existing", "user works at anthropic"),
        ("ep-2", "write", "orphan_entity", "anthropic  "),  # nor is the entity only it named
    ]
    assert "anthropic" not in {name for name, _ in await entities(run.pipeline.pool, *tenant)}


async def test_an_expired_row_stays_history_beside_its_renewal(run: Run) -> None:
    # The first membership stays true history (a valid-time query for October finds it);
    # the renewed one lands beside it.
    assert await run.table("renewal") == table([
        Row("user", "is member of", "fitbox", "ep-1", "expired", valid_until=at(FITBOX_END)),
        Row("user", "is member of", "fitbox", "ep-2"),
    ])  # fmt: skip


async def test_aliases_converge_on_one_entity_and_one_fact(run: Run) -> None:
    assert await run.table("aliases") == [Row("user", "works at", "acme corp", "ep-1")]
    tenant = run.tenants["aliases"]
    assert await entities(run.pipeline.pool, *tenant) == [("acme corp", "ORG"), ("user", "PERSON")]
    assert await drops(run.pipeline.pool, *tenant) == [
        ("ep-2", "dedup", "exact_duplicate", "user works at acme corp"),
        ("ep-3", "dedup", "exact_duplicate", "user works at acme corp"),
    ]


async def test_paraphrases_dedup_in_the_batch_and_against_live(run: Run) -> None:
    assert await run.table("paraphrases") == [
        Row("user", "wants", "large screen", "ep-1", kind=LIT),
    ]
    assert await drops(run.pipeline.pool, *run.tenants["paraphrases"]) == [
        ("ep-1", "dedup", "near_duplicate", "user prefers big display"),
        ("ep-2", "dedup", "near_duplicate", "user would like large screen"),
    ]


async def test_model_calls_per_episode(run: Run) -> None:
    """The seed's cost line: 1 extraction, at most 1 judge call, 1 summary and 3 embedding
    batches (summary, entity names, fact strings) per episode; never more."""
    calls = await model_calls(run.pipeline.pool, *await run.finish("job-change"))
    assert calls == {
        (ep, stage, kind): 1
        for ep in ("ep-1", "ep-2")
        for stage, kind in (("extract", "extract"), ("summarize", "summarize"),
                            ("summarize", "embed"), ("resolve", "embed"), ("dedup", "embed"))
    } | {("ep-2", "judge", "judge"): 1}  # fmt: skip
    for name in SCENARIOS:
        per_kind: dict[tuple[str, str], int] = {}
        tenant_calls = await model_calls(run.pipeline.pool, *await run.finish(name))
        for (ep, _stage, kind), n in tenant_calls.items():
            per_kind[(ep, kind)] = per_kind.get((ep, kind), 0) + n
        for (ep, kind), n in per_kind.items():
            limit = {"extract": 1, "summarize": 1, "judge": 1, "embed": 3}[kind]
            assert n <= limit, f"{name} {ep}: {n} {kind} calls"
        for ep, _, _ in SCENARIOS[name].episodes:
            assert per_kind.get((ep, "extract")) == 1 and per_kind.get((ep, "summarize")) == 1


async def test_every_episode_ended_done(run: Run) -> None:
    for name in SCENARIOS:
        dataset, project = await run.finish(name)
        rows = await run.pipeline.pool.fetch(
            "SELECT episode_id, status, semantic_status FROM episodes"
            " WHERE dataset = $1 AND project_id = $2 ORDER BY episode_id",
            dataset, project,
        )  # fmt: skip
        assert [tuple(r) for r in rows] == [
            (ep, "done", "done") for ep, _, _ in SCENARIOS[name].episodes
        ], name
