"""Deduplication's pure logic: exact and in-batch drops, closures, near-duplicates."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from streams.domain import dedup as dl
from streams.domain.facts import LiveFact
from streams.events import DropStage
from streams.model.fakes.scripted import hashed_vector, vector_at_similarity
from tests.support.facts import lit

DIM = 16
T = 0.95
B = 0.80
NOW = datetime.now(UTC)
MAY = (NOW - timedelta(days=30)).replace(microsecond=0)


def live(
    id_: int, s: str, p: str, o: str, until: datetime | None = None, sim: float | None = None
) -> LiveFact:
    return LiveFact(
        id=id_,
        subject=s,
        predicate=p,
        object=o,
        kind="literal",
        confidence=0.9,
        valid_from=None,
        valid_until=until,
        subject_entity_id=None,
        object_entity_id=None,
        episode_id="e0",
        similarity=sim,
    )


def test_exact_pass_drops_live_and_in_batch_repeats_and_keeps_new() -> None:
    facts = [
        lit("user", "lives in", "chennai"),
        lit("user", "likes", "tea"),
        lit("user", "likes", "tea"),
    ]
    known = {("user", "lives in", "chennai"): [live(4, "user", "lives in", "chennai")]}
    out = dl.exact_pass(facts, known, stated_at=NOW, now=NOW)
    assert [f.triple for f in out.survivors] == [("user", "likes", "tea")]
    assert [(d.stage, d.reason, d.object) for d in out.dropped] == [
        (DropStage.DEDUP, "exact_duplicate", "chennai"),
        (DropStage.DEDUP, "in_batch_duplicate", "tea"),
    ]
    assert "#4" in out.dropped[0].detail
    assert out.closures == []


def test_exact_match_with_valid_until_is_a_closure_not_a_drop() -> None:
    facts = [lit("user", "drives", "honda civic", until=MAY)]
    known = {("user", "drives", "honda civic"): [live(9, "user", "drives", "honda civic")]}
    out = dl.exact_pass(facts, known, stated_at=NOW, now=NOW)
    assert out.dropped == [] and out.survivors == []
    assert [(c.fact_id, c.object, c.valid_until) for c in out.closures] == [(9, "honda civic", MAY)]


def test_a_closure_already_recorded_is_a_plain_duplicate() -> None:
    may_in_oslo = MAY.astimezone(timezone(timedelta(hours=2)))  # same instant, another offset
    facts = [lit("user", "drives", "honda civic", until=may_in_oslo)]
    known = {("user", "drives", "honda civic"): [live(9, "user", "drives", "honda civic", MAY)]}
    out = dl.exact_pass(facts, known, stated_at=NOW, now=NOW)
    assert out.closures == [] and [d.reason for d in out.dropped] == ["exact_duplicate"]


def test_in_batch_paraphrase_keeps_the_first() -> None:
    large = hashed_vector("user wants large screen", DIM)
    big = vector_at_similarity(large, 0.97)
    other = hashed_vector("user likes tea", DIM)
    survivors = [
        lit("user", "wants", "large screen"),
        lit("user", "prefers", "big display"),
        lit("user", "likes", "tea"),
    ]
    out = dl.near_pass(survivors, [large, big, other], [[], [], []], T, B)
    assert [c.fact.object for c in out.candidates] == ["large screen", "tea"]
    assert out.vectors == [large, other] and [c.vector for c in out.candidates] == [0, 1]
    assert [(d.reason, d.object) for d in out.dropped] == [("near_duplicate", "big display")]
    assert "large screen" in out.dropped[0].detail and "0.97" in out.dropped[0].detail


def test_near_duplicate_of_a_live_fact_dropped_below_threshold_kept() -> None:
    vec = hashed_vector("x", DIM)
    survivors = [lit("user", "prefers", "big display"), lit("user", "owns", "a bike")]
    neighbours = [
        [live(3, "user", "wants", "large screen", sim=0.96)],
        [live(5, "user", "owns", "a bicycle", sim=0.94)],
    ]
    out = dl.near_pass(survivors, [vec, hashed_vector("y", DIM)], neighbours, T, B)
    assert [c.fact.object for c in out.candidates] == ["a bike"]
    assert [d.reason for d in out.dropped] == ["near_duplicate"]
    assert "#3" in out.dropped[0].detail and "0.96" in out.dropped[0].detail


def test_a_fact_that_ends_is_not_a_near_duplicate_of_the_open_fact() -> None:
    survivors = [lit("user", "drove", "honda civic", until=MAY)]
    neighbours = [[live(3, "user", "drives", "honda civic", sim=0.97)]]
    out = dl.near_pass(survivors, [hashed_vector("x", DIM)], neighbours, T, B)
    assert [c.fact.predicate for c in out.candidates] == ["drove"]
    # ...but the same ended fact, already stored with that end, is a duplicate.
    neighbours = [[live(3, "user", "used to drive", "honda civic", until=MAY, sim=0.97)]]
    out = dl.near_pass(survivors, [hashed_vector("x", DIM)], neighbours, T, B)
    assert out.candidates == [] and [d.reason for d in out.dropped] == ["near_duplicate"]


def test_same_subject_and_predicate_with_another_object_goes_to_the_judge() -> None:
    survivors = [lit("user", "has car budget of", "25000")]
    neighbours = [
        [
            live(3, "user", "has car budget of", "20000", sim=0.98),
            live(4, "user", "has a car budget of", "25000 dollars", sim=0.96),
        ]
    ]
    out = dl.near_pass(survivors, [hashed_vector("x", DIM)], neighbours, T, B)
    # The nearest is a change of value (the judge's pair); the next is a true paraphrase.
    assert out.candidates == []
    assert "#4" in out.dropped[0].detail
    out = dl.near_pass(survivors, [hashed_vector("x", DIM)], [neighbours[0][:1]], T, B)
    assert [c.fact.object for c in out.candidates] == ["25000"]


def test_a_fact_of_another_subject_is_never_a_near_duplicate() -> None:
    hiking = hashed_vector("user likes hiking", DIM)
    survivors = [lit("sister", "likes", "hiking"), lit("user", "enjoys", "hiking")]
    neighbours = [[live(3, "user", "likes", "hiking", sim=0.99)], []]
    out = dl.near_pass(survivors, [vector_at_similarity(hiking, 0.99), hiking], neighbours, T, B)
    # Rule 3: a fact about the user's sister is not a rewording of one about the user,
    # neither against a live fact nor against an earlier candidate of the batch.
    assert [c.fact.triple for c in out.candidates] == [
        ("sister", "likes", "hiking"),
        ("user", "enjoys", "hiking"),
    ]
    assert out.dropped == []


def test_a_kept_candidate_carries_its_live_neighbours_inside_the_band() -> None:
    survivors = [lit("user", "is employed by", "acme"), lit("user", "likes", "tea")]
    neighbours = [
        [
            live(7, "user", "works at", "globex", sim=0.91),
            live(2, "user", "works from", "chennai", sim=0.80),
            live(9, "user", "likes", "cricket", sim=0.79),
        ],
        [],
    ]
    out = dl.near_pass(survivors, [hashed_vector("x", DIM), hashed_vector("y", DIM)],
                       neighbours, T, B)  # fmt: skip
    assert [c.band_neighbours for c in out.candidates] == [[7, 2], []]


def test_a_closure_not_trusted_to_end_a_fact_ends_nothing_and_says_why() -> None:
    known = {("user", "drives", "honda civic"): [live(9, "user", "drives", "honda civic")]}
    unsure = lit("user", "drives", "honda civic", until=MAY).model_copy(update={"confidence": 0.1})
    unquoted = lit("user", "drives", "honda civic", until=MAY).model_copy(
        update={"untrusted": "no source quote given"}
    )
    for fact, why in ((unsure, "confidence 0.10 below 0.5"), (unquoted, "no source quote given")):
        out = dl.exact_pass([fact], known, stated_at=NOW, now=NOW, min_confidence=0.5)
        assert out.closures == [] and out.survivors == []
        [dropped] = out.dropped
        assert (dropped.stage, dropped.reason) == (DropStage.DEDUP, "untrusted_closure")
        assert "#9" in dropped.detail and why in dropped.detail
