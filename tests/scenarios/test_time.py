"""Memory that is right in time, end to end (DESIGN "Time: three clocks per fact").

Real broker, real Postgres, all six stages, scripted model; every case is its own tenant
and every date is relative to now. Each test asserts the whole fact table (both clocks:
what retired a row in transaction time, and where and why its valid time ends) and asks
the store what was true at dates before, between and after the changes.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from streams.api.search import SearchQuery, search
from streams.domain.graph import RawGraph
from streams.events import EpisodeCompleted
from streams.model.fakes.book import ScriptBook, TenantScript, always, claim, graph
from streams.model.fakes.scripted import ScriptedEmbedder
from streams.model.ports import EmbedInput
from streams.store import facts_query
from streams.store.facts_query import facts_at
from tests.support.clock import NOW, ago, date_in, midnight
from tests.support.events import episode, telling
from tests.support.fact_table import Row, fact_table, model_calls, table
from tests.support.pipeline import Pipeline, delete_pipeline_topics, pipeline_settings

GOOGLE = graph({"google": "ORG"}, claim("user", "works at", "google"))
ANTHROPIC = graph({"anthropic": "ORG"}, claim("user", "works at", "anthropic"))
JOIN_ACME = date_in(20)
JOIN_ACME_PLUS_A_DAY = midnight(JOIN_ACME) + timedelta(days=1)
JOIN_BETA = date_in(40)
BETWEEN_THE_PLANS = midnight(date_in(30))
ANTHROPIC_SINCE = date_in(-30)
LEFT_PARIS = date_in(-400)
SELL_CIVIC = date_in(14)
CIVIC = graph(
    {"honda civic": "VEHICLE"},
    claim("user", "drives", "honda civic"),
    claim("honda civic", "has mileage of", "80000 km"),
)


@dataclass
class Case:
    episodes: list[tuple[str, datetime, RawGraph]]  # (episode id, when said, what is extracted)
    failures: dict[str, int] | None = None  # extraction failures per episode, then success
    embed_outages: dict[str, int] | None = None  # failed entity embeddings per episode


def failing_embeddings(outages: dict[str, int]) -> Callable[[EmbedInput], Exception | None]:
    """The entity embeddings of each episode fail that many times past the provider's
    retries (resolve dead-letters the record), then succeed."""
    left = dict(outages)

    def fail(request: EmbedInput) -> Exception | None:
        episode_id = request.scope.episode_id
        if request.purpose != "entities" or not left.get(episode_id, 0):
            return None
        left[episode_id] -= 1
        return RuntimeError("503 Service Unavailable after 4 attempts")

    return fail


# fmt: off
CASES: dict[str, Case] = {
    # "I'm joining Acme in 20 days", said after "I work at Google".
    "future-start": Case([
        ("ep-1", ago(10), GOOGLE),
        ("ep-2", ago(5), graph({"acme": "ORG"},
                               claim("user", "works at", "acme", since=JOIN_ACME))),
    ]),
    # "I've been at Anthropic for a month": the change is backdated.
    "past-start": Case([
        ("ep-1", ago(60), GOOGLE),
        ("ep-2", ago(5), graph({"anthropic": "ORG"},
                               claim("user", "works at", "anthropic", since=ANTHROPIC_SINCE))),
    ]),
    # "I lived in Paris until last autumn", said today: true before its end, start unknown.
    "history-said-now": Case([
        ("ep-1", ago(1), graph({"paris": "PLACE"},
                               claim("user", "lives in", "paris", until=LEFT_PARIS))),
    ]),
    # "I live in Berlin", then "I moved to Munich a month ago": Berlin had ended before it
    # was said, so it was true up to the move, not never.
    "backdated-move": Case([
        ("ep-1", ago(10), graph({"berlin": "PLACE"}, claim("user", "lives in", "berlin"))),
        ("ep-2", ago(5), graph({"munich": "PLACE"},
                               claim("user", "lives in", "munich", since=ANTHROPIC_SINCE))),
    ]),
    # "I'm selling my Civic in two weeks": the fact and what hangs on it end then.
    "future-closure": Case([
        ("ep-1", ago(10), CIVIC),
        ("ep-2", ago(5), graph({"honda civic": "VEHICLE"},
                               claim("user", "drives", "honda civic", until=SELL_CIVIC))),
    ]),
    # "I sold my Civic two weeks ago", then "no, I'm selling it next week": the end moves
    # from the past into the future, and the fact is current again.
    "end-moved-into-the-future": Case([
        ("ep-1", ago(10), CIVIC),
        ("ep-2", ago(2), graph({"honda civic": "VEHICLE"},
                               claim("user", "drives", "honda civic", until=date_in(-14)))),
        ("ep-3", ago(1), graph({"honda civic": "VEHICLE"},
                               claim("user", "drives", "honda civic", until=date_in(7)))),
    ]),
    # The same sale, then, before its date, "my Civic just passed 85000 km": a fact about
    # the car that lasts as long as the car is the user's.
    "fact-after-future-closure": Case([
        ("ep-1", ago(10), CIVIC),
        ("ep-2", ago(5), graph({"honda civic": "VEHICLE"},
                               claim("user", "drives", "honda civic", until=SELL_CIVIC))),
        ("ep-3", ago(2), graph({"honda civic": "VEHICLE"},
                               claim("honda civic", "has mileage of", "85000 km"))),
    ]),
    # "I'm joining Acme in 20 days", then, before that day, "I work at Beta": the plan is
    # off, and it was never true.
    "plan-cancelled": Case([
        ("ep-1", ago(10), graph({"acme": "ORG"},
                                claim("user", "works at", "acme", since=JOIN_ACME))),
        ("ep-2", ago(5), graph({"beta": "ORG"}, claim("user", "works at", "beta"))),
    ]),
    # The same plan said 20 days ago, arriving after "I work at Beta" (said 5 days ago).
    "late-older-plan": Case([
        ("ep-new", ago(5), graph({"beta": "ORG"}, claim("user", "works at", "beta"))),
        ("ep-old", ago(20), graph({"acme": "ORG"},
                                  claim("user", "works at", "acme", since=JOIN_ACME))),
    ]),
    # "I'm joining Acme in 20 days", then, before that day, "I'm joining Beta in 40 days
    # instead": the first plan is off before it began, so it was never true, even between
    # the two dates.
    "plan-changed": Case([
        ("ep-1", ago(10), graph({"acme": "ORG"},
                                claim("user", "works at", "acme", since=JOIN_ACME))),
        ("ep-2", ago(5), graph({"beta": "ORG"},
                               claim("user", "works at", "beta", since=JOIN_BETA))),
    ]),
    # "I live in Oslo"; "moving to Berlin in two months"; then "Munich in three months
    # instead": Berlin was never true, and Oslo lasts until Munich begins.
    "move-plan-changed": Case([
        ("ep-0", ago(100), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
        ("ep-1", ago(30), graph({"berlin": "PLACE"},
                                claim("user", "lives in", "berlin", since=date_in(60)))),
        ("ep-2", ago(5), graph({"munich": "PLACE"},
                               claim("user", "lives in", "munich", since=date_in(90)))),
    ]),
    # "I live in Oslo"; "moving to Berlin in two months"; then "not moving to Berlin after
    # all": the plan was never true, and Oslo is open-ended again.
    "move-plan-cancelled": Case([
        ("ep-0", ago(100), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
        ("ep-1", ago(30), graph({"berlin": "PLACE"},
                                claim("user", "lives in", "berlin", since=date_in(60)))),
        ("ep-2", ago(5), graph({"berlin": "PLACE"},
                               claim("user", "lives in", "berlin", until=date_in(-5)))),
    ]),
    # "I live in Oslo"; "moving to Berlin in two months"; then "I'm staying in Oslo": no
    # duplicate of the Oslo row that ends in two months, but the plan's end.
    "move-plan-kept-home": Case([
        ("ep-0", ago(100), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
        ("ep-1", ago(30), graph({"berlin": "PLACE"},
                                claim("user", "lives in", "berlin", since=date_in(60)))),
        ("ep-2", ago(5), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
    ]),
    # The same two plans, the older one arriving late.
    "late-older-plan-changed": Case([
        ("ep-new", ago(5), graph({"beta": "ORG"},
                                 claim("user", "works at", "beta", since=JOIN_BETA))),
        ("ep-old", ago(10), graph({"acme": "ORG"},
                                  claim("user", "works at", "acme", since=JOIN_ACME))),
    ]),
    # The same two statements, in the order they were said, and the older one late.
    "in-order": Case([("ep-old", ago(20), GOOGLE), ("ep-new", ago(5), ANTHROPIC)]),
    "late-older": Case([("ep-new", ago(5), ANTHROPIC), ("ep-old", ago(20), GOOGLE)]),
    # Moves, the first extraction failing once: the second episode must not overtake it.
    "retried": Case(
        [("ep-1", ago(9), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
         ("ep-2", ago(8), graph({"rome": "PLACE"}, claim("user", "lives in", "rome")))],
        failures={"ep-1": 1},
    ),
    # The same moves, the first episode's embedding failing past its retries once: the
    # dead letter releases it, and it runs again before the second is extracted.
    "embed-retried": Case(
        [("ep-1", ago(9), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
         ("ep-2", ago(8), graph({"rome": "PLACE"}, claim("user", "lives in", "rome")))],
        embed_outages={"ep-1": 1},
    ),
    "no-failure": Case(
        [("ep-1", ago(9), graph({"oslo": "PLACE"}, claim("user", "lives in", "oslo"))),
         ("ep-2", ago(8), graph({"rome": "PLACE"}, claim("user", "lives in", "rome")))],
    ),
}
# fmt: on


@dataclass
class Run:
    pipeline: Pipeline
    tenants: dict[str, tuple[str, str]]
    events: dict[str, list[EpisodeCompleted]]
    book: ScriptBook

    async def table(self, name: str) -> list[Row]:
        await self.pipeline.wait_done(self.events[name], timeout=90)
        return await fact_table(self.pipeline.pool, *self.tenants[name])

    async def true_at(self, name: str, when: datetime, as_of: datetime | None = None) -> list[str]:
        # Every tenant's episodes are published at once: a case compared with another
        # must not read that one's table before it is written.
        await self.pipeline.wait_done(self.events[name], timeout=90)
        rows = await facts_at(self.pipeline.pool, *self.tenants[name], valid_at=when, as_of=as_of)
        return [" ".join(r.triple) for r in rows]


@pytest.fixture(scope="module")
async def run(kafka_bootstrap: str, database_url: str) -> AsyncIterator[Run]:
    settings = await pipeline_settings(kafka_bootstrap, database_url, llm_backoff_base_s=0.05)
    book = ScriptBook(settings.embedding_dim)
    tenants: dict[str, tuple[str, str]] = {}
    events: dict[str, list[EpisodeCompleted]] = {}
    for name, case in CASES.items():
        tenant = (f"{name}-{uuid.uuid4().hex[:6]}", "p1")
        tenants[name] = tenant
        book.add(*tenant, TenantScript(
            graphs={ep: g for ep, _, g in case.episodes}, verdict=always("old"),
            extract_failures=dict(case.failures or {}),
            embed_fail=failing_embeddings(case.embed_outages or {}),
        ))  # fmt: skip
        events[name] = [episode(*tenant, ep, telling(g), completed_at=when)
                        for ep, when, g in case.episodes]  # fmt: skip
    pipeline = Pipeline(settings, book.models())
    try:
        async with pipeline:
            for name, evs in events.items():
                if name.startswith("late-older"):  # the newer one is written first
                    await pipeline.publish(evs[0])
                    await pipeline.wait_done(evs[:1], timeout=60)
                    await pipeline.publish(evs[1])
                else:
                    await pipeline.publish(*evs)  # back to back, in the order said
            yield Run(pipeline, tenants, events, book)
    finally:
        delete_pipeline_topics(settings)


async def test_a_statement_from_a_clock_ahead_is_true_now_and_older_than_the_next(
    run: Run,
) -> None:
    """A publisher's clock ten minutes ahead, then one a minute ahead: each was said by
    the time it arrived, in the order it arrived, and is true from then, not later. The
    dates are taken at publishing: the module's cases are dated at import."""
    tenant = (f"clock-ahead-{uuid.uuid4().hex[:6]}", "p1")
    vandelay = graph({"vandelay": "ORG"}, claim("user", "works at", "vandelay"))
    kramerica = graph({"kramerica": "ORG"}, claim("user", "works at", "kramerica"))
    run.book.add(*tenant, TenantScript(graphs={"ep-1": vandelay, "ep-2": kramerica},
                                       verdict=always("old")))  # fmt: skip
    now = datetime.now(UTC).replace(microsecond=0)
    events = [
        episode(*tenant, "ep-1", telling(vandelay), completed_at=now + timedelta(minutes=10)),
        episode(*tenant, "ep-2", telling(kramerica), completed_at=now + timedelta(minutes=1)),
    ]
    await run.pipeline.publish(*events)
    await run.pipeline.wait_done(events, timeout=90)
    read_at = datetime.now(UTC)
    rows = await facts_query.history(run.pipeline.pool, *tenant)
    said = {(r.object, r.copy_of is not None): r for r in rows}
    assert sorted(said) == [("kramerica", False), ("vandelay", False), ("vandelay", True)]
    assert all(r.stated_at <= read_at for r in rows)  # never said after it arrived
    new = said[("kramerica", False)]
    ended = said[("vandelay", True)]
    assert ended.valid_until == new.stated_at and ended.end_reason == "superseded"
    assert said[("vandelay", False)].invalid_reason == "superseded"
    true_now = await facts_at(run.pipeline.pool, *tenant, valid_at=read_at)
    assert [" ".join(r.triple) for r in true_now] == ["user works at kramerica"]


async def test_a_future_start_supersedes_at_its_date(run: Run) -> None:
    acme, starts = "user works at acme", midnight(JOIN_ACME)
    assert await run.table("future-start") == table([
        Row("user", "works at", "acme", "ep-2", valid_from=starts),
        Row("user", "works at", "google", "ep-1", "superseded", by=acme),
        # Believed now, true until Acme starts: still the current employer today.
        Row("user", "works at", "google", "ep-2", valid_until=starts, end="superseded",
            end_by=acme),
    ])  # fmt: skip
    assert await run.true_at("future-start", NOW) == ["user works at google"]
    assert await run.true_at("future-start", starts - timedelta(hours=1)) == [
        "user works at google"
    ]
    assert await run.true_at("future-start", starts + timedelta(days=1)) == [acme]


async def test_a_past_start_backdates_the_change(run: Run) -> None:
    anthropic, since = "user works at anthropic", midnight(ANTHROPIC_SINCE)
    assert await run.table("past-start") == table([
        Row("user", "works at", "anthropic", "ep-2", valid_from=since),
        Row("user", "works at", "google", "ep-1", "superseded", by=anthropic),
        Row("user", "works at", "google", "ep-2", "expired", valid_until=since, end="superseded",
            end_by=anthropic),
    ])  # fmt: skip
    assert await run.true_at("past-start", ago(90)) == []  # before google was ever said
    assert await run.true_at("past-start", ago(45)) == ["user works at google"]
    assert await run.true_at("past-start", ago(10)) == [anthropic]
    # What the store believed before the change was written: google, open-ended.
    first_write = await run.pipeline.pool.fetchval(
        "SELECT min(created_at) FROM facts WHERE dataset = $1", run.tenants["past-start"][0]
    )
    assert await run.true_at("past-start", ago(10), as_of=first_write) == ["user works at google"]


async def test_a_fact_that_ended_before_it_was_said_is_true_up_to_its_end(run: Run) -> None:
    paris, left = "user lives in paris", midnight(LEFT_PARIS)
    assert await run.table("history-said-now") == table(
        [Row("user", "lives in", "paris", "ep-1", "expired", valid_until=left)]
    )
    assert await run.true_at("history-said-now", left - timedelta(days=30)) == [paris]
    assert await run.true_at("history-said-now", left + timedelta(days=1)) == []
    assert await run.true_at("history-said-now", NOW) == []


async def test_a_change_backdated_before_the_old_fact_was_said_ends_it_there(run: Run) -> None:
    munich, moved = "user lives in munich", midnight(ANTHROPIC_SINCE)
    assert await run.table("backdated-move") == table([
        Row("user", "lives in", "berlin", "ep-1", "superseded", by=munich),
        Row("user", "lives in", "berlin", "ep-2", "expired", valid_until=moved,
            end="superseded", end_by=munich),
        Row("user", "lives in", "munich", "ep-2", valid_from=moved),
    ])  # fmt: skip
    assert await run.true_at("backdated-move", moved - timedelta(days=3)) == [
        "user lives in berlin"
    ]
    for when in (ago(20), ago(7), NOW):  # never both, nor Berlin again after the move
        assert await run.true_at("backdated-move", when) == [munich], when


async def test_a_future_closure_ends_the_fact_and_its_anchored_facts_at_its_date(
    run: Run,
) -> None:
    until, mileage = midnight(SELL_CIVIC), "honda civic has mileage of 80000 km"
    drives = "user drives honda civic"
    assert await run.table("future-closure") == table([
        Row("honda civic", "has mileage of", "80000 km", "ep-1", "cascade", by=mileage,
            kind="literal"),
        Row("honda civic", "has mileage of", "80000 km", "ep-2", kind="literal",
            valid_until=until, end="cascade", end_by=f"{drives}"),
        Row("user", "drives", "honda civic", "ep-1", "closed", by=drives),
        Row("user", "drives", "honda civic", "ep-2", valid_until=until, end="closed"),
    ])  # fmt: skip
    both = [mileage, drives]
    assert await run.true_at("future-closure", NOW) == both  # not before its date
    assert await run.true_at("future-closure", until - timedelta(hours=1)) == both
    assert await run.true_at("future-closure", until + timedelta(hours=1)) == []


async def test_an_end_moved_into_the_future_leaves_the_fact_found_by_meaning(run: Run) -> None:
    name, until = "end-moved-into-the-future", midnight(date_in(7))
    assert await run.true_at(name, NOW) == [
        "honda civic has mileage of 80000 km", "user drives honda civic",
    ]  # fmt: skip
    assert await run.true_at(name, until + timedelta(hours=1)) == []
    pool, tenant = run.pipeline.pool, run.tenants[name]
    said: list[float] = await pool.fetchval(
        "SELECT embedding::real[] FROM facts WHERE dataset = $1 AND project_id = $2"
        " AND predicate = 'drives' AND copy_of IS NULL",
        *tenant,
    )
    question = "which car does the user drive"
    embedder = ScriptedEmbedder(len(said), {question: [float(x) for x in said]})
    result = await search(pool, embedder, *tenant, SearchQuery(text=question))
    (best, *_) = result.hits
    assert (best.fact.predicate, best.fact.valid_until, best.vector_rank) == ("drives", until, 1)


async def test_a_fact_about_a_thing_the_user_is_parting_with_ends_when_they_part(
    run: Run,
) -> None:
    name, until = "fact-after-future-closure", midnight(SELL_CIVIC)
    await run.table(name)
    rows = await facts_query.history(run.pipeline.pool, *run.tenants[name])
    (newer,) = [r for r in rows if r.object == "85000 km"]
    assert (newer.valid_until, newer.end_reason, newer.invalid_at) == (until, "cascade", None)
    assert await run.true_at(name, until - timedelta(hours=1)) == [
        "honda civic has mileage of 85000 km", "user drives honda civic",
    ]  # fmt: skip
    assert await run.true_at(name, until + timedelta(hours=1)) == []


async def test_a_late_older_episode_never_supersedes_a_newer_fact(run: Run) -> None:
    anthropic = "user works at anthropic"
    # The judge answers `old` for the pair either way; the older statement is history.
    assert await run.table("late-older") == table([
        Row("user", "works at", "anthropic", "ep-new"),
        Row("user", "works at", "google", "ep-old", "expired", valid_until=ago(5),
            end="superseded", end_by=anthropic),
    ])  # fmt: skip
    assert (await model_calls(run.pipeline.pool, *run.tenants["late-older"]))[
        ("ep-old", "judge", "judge")
    ] == 1
    # Valid time by current belief equals processing in the order said.
    for when in (ago(30), ago(10), ago(1)):
        assert await run.true_at("late-older", when) == await run.true_at("in-order", when), when
    assert await run.true_at("late-older", ago(10)) == ["user works at google"]
    assert await run.true_at("late-older", ago(1)) == [anthropic]


async def test_a_plan_superseded_before_its_date_was_never_true(run: Run) -> None:
    beta, starts = "user works at beta", midnight(JOIN_ACME)
    # Retired in transaction time, and no copy: a copy would end before it begins.
    assert await run.table("plan-cancelled") == table([
        Row("user", "works at", "acme", "ep-1", "superseded", by=beta, valid_from=starts),
        Row("user", "works at", "beta", "ep-2"),
    ])  # fmt: skip
    for when in (ago(7), NOW, starts + timedelta(days=1)):
        assert await run.true_at("plan-cancelled", when) == ([] if when < ago(5) else [beta])


async def test_a_late_plan_overtaken_before_its_date_is_dropped_and_the_episode_ends(
    run: Run,
) -> None:
    # Before the fix the history row ended before it began, the writer refused the record
    # and the episode never finished (run.table waits for it).
    assert await run.table("late-older-plan") == table([Row("user", "works at", "beta", "ep-new")])
    dropped = await run.pipeline.pool.fetch(
        "SELECT reason, subject, object FROM fact_drops WHERE dataset = $1"
        " AND episode_id = 'ep-old' ORDER BY id", run.tenants["late-older-plan"][0],
    )  # fmt: skip
    assert [(d["reason"], d["subject"], d["object"]) for d in dropped] == [
        ("overtaken_before_start", "user", "acme"), ("orphan_entity", "acme", ""),
    ]  # fmt: skip
    assert await run.true_at("late-older-plan", JOIN_ACME_PLUS_A_DAY) == ["user works at beta"]


async def test_a_plan_changed_before_its_date_was_never_true_even_between_the_dates(
    run: Run,
) -> None:
    beta = "user works at beta"
    assert await run.table("plan-changed") == table([
        Row("user", "works at", "acme", "ep-1", "superseded", by=beta,
            valid_from=midnight(JOIN_ACME)),
        Row("user", "works at", "beta", "ep-2", valid_from=midnight(JOIN_BETA)),
    ])  # fmt: skip
    assert await run.true_at("plan-changed", BETWEEN_THE_PLANS) == []
    assert await run.true_at("plan-changed", midnight(JOIN_BETA) + timedelta(days=1)) == [beta]


async def test_a_plan_replaced_before_its_date_leaves_no_gap(run: Run) -> None:
    name = "move-plan-changed"
    for days, expected in [(30, "oslo"), (70, "oslo"), (89, "oslo"), (91, "munich")]:
        assert await run.true_at(name, midnight(date_in(days))) == [f"user lives in {expected}"]
    rows = await facts_query.history(run.pipeline.pool, *run.tenants[name])
    berlin = [r for r in rows if r.object == "berlin"]
    assert [r.invalid_reason for r in berlin] == ["superseded"]  # never true: no copy
    (oslo,) = [r for r in rows if r.object == "oslo" and r.invalid_at is None]
    assert oslo.valid_until == midnight(date_in(90)) and oslo.end_reason == "superseded"


async def test_a_plan_cancelled_before_its_date_gives_the_current_fact_back(run: Run) -> None:
    name = "move-plan-cancelled"
    for days in (-50, 30, 70, 400):
        assert await run.true_at(name, midnight(date_in(days))) == ["user lives in oslo"]
    rows = await facts_query.history(run.pipeline.pool, *run.tenants[name])
    assert [r.invalid_reason for r in rows if r.object == "berlin"] == ["closed"]  # no copy
    (oslo,) = [r for r in rows if r.object == "oslo" and r.invalid_at is None]
    assert (oslo.valid_until, oslo.end_reason, oslo.ended_by) == (None, None, None)
    reopened = [r for r in rows if r.invalid_reason == "reopened"]
    assert [(r.object, r.valid_until) for r in reopened] == [("oslo", midnight(date_in(60)))]


async def test_staying_put_after_a_plan_cancels_the_plan(run: Run) -> None:
    name = "move-plan-kept-home"
    for days in (30, 70, 400):
        assert await run.true_at(name, midnight(date_in(days))) == ["user lives in oslo"]
    rows = await facts_query.history(run.pipeline.pool, *run.tenants[name])
    assert [r.invalid_reason for r in rows if r.object == "berlin"] == ["superseded"]
    (oslo,) = [r for r in rows if r.object == "oslo" and r.invalid_at is None]
    assert (oslo.valid_until, oslo.episode_id) == (None, "ep-2")


async def test_a_late_plan_changed_before_its_date_is_dropped(run: Run) -> None:
    name = "late-older-plan-changed"
    assert await run.table(name) == table(
        [Row("user", "works at", "beta", "ep-new", valid_from=midnight(JOIN_BETA))]
    )
    dropped = await run.pipeline.pool.fetch(
        "SELECT reason, subject, object FROM fact_drops WHERE dataset = $1"
        " AND episode_id = 'ep-old' ORDER BY id", run.tenants[name][0],
    )  # fmt: skip
    assert [(d["reason"], d["subject"], d["object"]) for d in dropped] == [
        ("overtaken_before_start", "user", "acme"), ("orphan_entity", "acme", ""),
    ]  # fmt: skip
    assert await run.true_at(name, BETWEEN_THE_PLANS) == await run.true_at(
        "plan-changed", BETWEEN_THE_PLANS
    )


async def test_a_failed_then_retried_extraction_converges_to_the_in_order_table(
    run: Run,
) -> None:
    assert await run.table("retried") == await run.table("no-failure")
    calls = await model_calls(run.pipeline.pool, *run.tenants["retried"])
    assert calls[("ep-1", "extract", "extract")] == 2  # failed once, retried in place
    assert await run.true_at("retried", NOW) == ["user lives in rome"]
    assert await run.true_at("retried", ago(8.5)) == ["user lives in oslo"]


async def test_an_episode_dead_lettered_after_extraction_is_retried_in_its_place(
    run: Run,
) -> None:
    assert await run.table("embed-retried") == await run.table("no-failure")
    calls = await model_calls(run.pipeline.pool, *run.tenants["embed-retried"])
    assert calls[("ep-1", "extract", "extract")] == 2  # released once, extracted again
    assert await run.true_at("embed-retried", ago(8.5)) == ["user lives in oslo"]
    assert await run.true_at("embed-retried", NOW) == ["user lives in rome"]


async def test_an_older_resend_of_a_done_episode_changes_nothing(run: Run) -> None:
    name, tenant = "in-order", run.tenants["in-order"]
    before = await run.table(name)
    ledger = await run.pipeline.pool.fetchrow(
        "SELECT transcript, completed_at, event_id FROM episodes WHERE dataset = $1"
        " AND episode_id = 'ep-new'", tenant[0],
    )  # fmt: skip
    older = episode(*tenant, "ep-new", "an older draft of the conversation",
                    completed_at=ago(6))  # fmt: skip
    await run.pipeline.publish(older)
    await run.pipeline.wait_done([older], timeout=60)
    assert await fact_table(run.pipeline.pool, *tenant) == before
    after = await run.pipeline.pool.fetchrow(
        "SELECT transcript, completed_at, event_id FROM episodes WHERE dataset = $1"
        " AND episode_id = 'ep-new'", tenant[0],
    )  # fmt: skip
    assert dict(after) == dict(ledger)
    calls = await model_calls(run.pipeline.pool, *tenant)
    assert calls[("ep-new", "extract", "extract")] == 1  # not extracted again
