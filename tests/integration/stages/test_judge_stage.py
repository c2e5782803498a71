"""The judge stage against real Postgres: pairs from live facts, one batched call, verdicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from streams.events import DropStage, FactsJudged
from streams.model.fakes.scripted import ScriptedJudge, hashed_vector, vector_at_similarity
from streams.settings import Settings
from streams.stages.judge import create_stage
from streams.store.live_facts import newest_live_fact_at
from tests.support.events import new_tenant
from tests.support.facts import (
    DIM,
    LIT,
    cand,
    deduped,
    deps,
    fact,
    judge_answering,
    with_staged_vectors,
)
from tests.support.stages import ctx
from tests.support.store_rows import seed_fact

NOW = datetime.now(UTC)


async def run(pool: Any, judge: ScriptedJudge, event: Any) -> FactsJudged:
    """Judge ``event`` as dedup would hand it over now: its bands read at the tenant's
    current watermark."""
    async with pool.acquire() as conn:
        as_of = await newest_live_fact_at(conn, event.dataset, event.project_id)
    event = event.model_copy(update={"live_facts_as_of": as_of})
    stage = create_stage(deps(Settings(), pool, judge))
    (out,) = await stage.handle(event, ctx(0, topic="facts.deduped"))
    assert isinstance(out, FactsJudged)
    return out


async def judge_calls(pool: Any, tenant: tuple[str, str]) -> list[Any]:
    return list(
        await pool.fetch(
            "SELECT stage, kind, request, error FROM llm_calls"
            " WHERE dataset = $1 AND project_id = $2 ORDER BY id",
            *tenant,
        )
    )


async def test_several_pairs_go_into_one_batched_call(pool: Any) -> None:
    t = new_tenant()
    google = await seed_fact(pool, t, fact("user", "works at", "google"))
    paris = await seed_fact(pool, t, fact("user", "lives in", "paris"))
    judge = judge_answering(lambda new, old: "old")
    event = deduped(
        t,
        [
            cand(fact("user", "works at", "anthropic")),
            cand(fact("user", "lives in", "berlin")),
            cand(fact("user", "likes", "jazz")),
        ],
    )
    out = await run(pool, judge, event)
    assert len(judge.requests) == 1
    assert sorted(p.existing for p in judge.requests[0].pairs) == [
        "user lives in paris",
        "user works at google",
    ]
    assert [c.fact.object for c in out.inserts] == ["anthropic", "berlin", "jazz"]
    assert {(i.fact_id, out.inserts[i.by_candidate].fact.object) for i in out.invalidations} == {
        (google, "anthropic"),
        (paris, "berlin"),
    }
    calls = await judge_calls(pool, t)
    assert [(c["stage"], c["kind"], c["error"]) for c in calls] == [("judge", "judge", None)]
    assert len(calls[0]["request"]["pairs"]) == 2


async def test_no_pairs_no_call(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "likes", "jazz"))
    judge = judge_answering(lambda new, old: "old")
    out = await run(pool, judge, deduped(t, [cand(fact("user", "works at", "anthropic"))]))
    assert judge.requests == [] and await judge_calls(pool, t) == []
    assert len(out.inserts) == 1 and out.invalidations == []


async def test_judge_failure_makes_every_verdict_neither(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "works at", "google"))

    def broken(request: Any) -> Any:
        raise RuntimeError("503 from the model")

    out = await run(
        pool, ScriptedJudge(broken), deduped(t, [cand(fact("user", "works at", "anthropic"))])
    )
    assert [c.fact.object for c in out.inserts] == ["anthropic"]
    assert out.invalidations == [] and out.dropped == []
    calls = await judge_calls(pool, t)
    assert len(calls) == 1 and "503" in calls[0]["error"]  # the failure stays traceable


async def test_a_malformed_answer_also_means_neither(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "works at", "google"))
    judge = ScriptedJudge(lambda r: {"verdicts": [{"pair_id": 0, "verdict": "maybe"}]})
    out = await run(pool, judge, deduped(t, [cand(fact("user", "works at", "anthropic"))]))
    assert len(out.inserts) == 1 and out.invalidations == []


async def test_low_confidence_candidate_is_stored_but_never_destroys(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "works at", "google"))
    judge = judge_answering(lambda new, old: "old")
    shaky = cand(fact("user", "works at", "anthropic", conf=0.3))
    out = await run(pool, judge, deduped(t, [shaky]))
    assert judge.requests == []  # not even asked
    assert out.inserts == [shaky] and out.invalidations == []


async def test_historical_candidate_ends_only_the_relationship_it_names(pool: Any) -> None:
    t = new_tenant()
    drives = await seed_fact(pool, t, fact("user", "drives", "honda civic"))
    await seed_fact(pool, t, fact("user", "works at", "google"))
    judge = judge_answering(lambda new, old: "old")  # would end anything it is shown
    year_ago = NOW - timedelta(days=365)
    sold = cand(fact("user", "sold", "honda civic", until=NOW - timedelta(days=1)))
    old_job = cand(fact("user", "works at", "acme", until=year_ago))
    out = await run(pool, judge, deduped(t, [sold, old_job]))
    assert [p.existing for p in judge.requests[0].pairs] == ["user drives honda civic"]
    assert out.inserts == [sold, old_job]  # both stored, as history
    assert [(i.fact_id, i.by_candidate) for i in out.invalidations] == [(drives, 0)]


async def test_new_verdict_discards_the_candidate_and_its_old_verdicts(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "works at", "google"))
    await seed_fact(pool, t, fact("user", "works at", "acme"))
    judge = judge_answering(lambda new, old: "new" if "google" in old else "old")
    out = await run(pool, judge, deduped(t, [cand(fact("user", "works at", "anthropic"))]))
    assert out.inserts == [] and out.invalidations == []
    assert [(d.stage, d.reason, d.object) for d in out.dropped] == [
        (DropStage.JUDGE, "superseded_by_existing", "anthropic")
    ]


async def test_band_pairs_rewordings_and_never_reads_another_tenant(pool: Any) -> None:
    t, neighbour = new_tenant(), new_tenant()
    base = hashed_vector("user works at google", DIM)
    near = vector_at_similarity(base, 0.85)
    google = await seed_fact(pool, t, fact("user", "works at", "google"), embedding=base)
    # A crowded neighbour tenant with the very same facts and vectors.
    for i in range(30):
        await seed_fact(pool, neighbour, fact("user", "works at", f"google {i}"), embedding=base)
    judge = judge_answering(lambda new, old: "old")
    employed = cand(fact("user", "is employed by", "anthropic"))
    # No band handed over (a record from before the last write): the judge searches it.
    out = await run(pool, judge, await with_staged_vectors(pool, deduped(t, [employed]), [near]))
    assert [(p.candidate, p.existing) for p in judge.requests[0].pairs] == [
        ("user is employed by anthropic", "user works at google")
    ]
    assert [i.fact_id for i in out.invalidations] == [google]


async def test_lives_in_and_works_from_chennai_are_not_judged(pool: Any) -> None:
    t = new_tenant()
    base = hashed_vector("user lives in chennai", DIM)
    await seed_fact(pool, t, fact("user", "lives in", "chennai"), embedding=base)
    judge = judge_answering(lambda new, old: "old")
    works_from = cand(fact("user", "works from", "chennai"))
    event = await with_staged_vectors(
        pool, deduped(t, [works_from]), [vector_at_similarity(base, 0.85)]
    )
    out = await run(pool, judge, event)
    assert judge.requests == [] and out.invalidations == []
    assert [c.fact for c in out.inserts] == [works_from.fact]


async def test_retiring_with_valid_until_ends_owning(pool: Any) -> None:
    t = new_tenant()
    owns = await seed_fact(pool, t, fact("user", "owns", "novablast 5"))
    await seed_fact(pool, t, fact("novablast 5", "has mileage of", "500 km", LIT))
    judge = judge_answering(lambda new, old: "old")
    retiring = cand(fact("user", "is retiring", "novablast 5", until=NOW + timedelta(days=7)))
    out = await run(pool, judge, deduped(t, [retiring]))
    assert [p.existing for p in judge.requests[0].pairs] == ["user owns novablast 5"]
    assert [i.fact_id for i in out.invalidations] == [owns]


async def test_expired_and_ended_facts_are_not_paired(pool: Any) -> None:
    t = new_tenant()
    await seed_fact(pool, t, fact("user", "works at", "google", until=NOW - timedelta(days=1)))
    ended = await seed_fact(pool, t, fact("user", "works at", "acme"))
    await pool.execute(
        "UPDATE facts SET invalid_at = now(), invalid_reason = 'superseded' WHERE id = $1", ended
    )
    judge = judge_answering(lambda new, old: "old")
    await run(pool, judge, deduped(t, [cand(fact("user", "works at", "anthropic"))]))
    assert judge.requests == []
