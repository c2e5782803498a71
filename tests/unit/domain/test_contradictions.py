"""The seed's pair rules and verdict application, as pure functions (seed "Step 4")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from streams.domain.contradictions import Pair, PairRule, apply_verdicts, find_pairs
from streams.domain.facts import LiveFact
from streams.events import DedupedCandidate, DropStage, Fact, FactKind, Verdict
from streams.settings import Settings

NOW = datetime.now(UTC)
S = Settings()


def cand(
    s: str, p: str, o: str, *, conf: float = 0.9, until: datetime | None = None,
    band: dict[int, float] | None = None,
) -> DedupedCandidate:  # fmt: skip
    """A candidate with the band dedup measured: live fact id -> cosine."""
    fact = Fact(
        subject=s, predicate=p, object=o, kind=FactKind.RELATIONSHIP, confidence=conf,
        valid_until=until,
    )  # fmt: skip
    band = band or {}
    return DedupedCandidate(
        fact=fact, band_neighbours=list(band), band_similarity=list(band.values())
    )


def live(fact_id: int, s: str, p: str, o: str) -> LiveFact:
    return LiveFact(fact_id, s, p, o)


def pairs_of(candidates: list[DedupedCandidate], facts: list[LiveFact]) -> list[Pair]:
    return find_pairs(
        candidates,
        facts,
        band_min=S.contradiction_band_min,
        dedup_threshold=S.fact_dedup_threshold,
        min_confidence=S.retrieval_min_confidence,
        now=NOW,
    )


def rules(pairs: list[Pair]) -> list[tuple[int, int, PairRule]]:
    return [(p.candidate, p.existing.id, p.rule) for p in pairs]


def test_rule1_same_subject_and_predicate_different_object() -> None:
    pairs = pairs_of(
        [cand("user", "works at", "anthropic")], [live(1, "user", "works at", "google")]
    )
    assert rules(pairs) == [(0, 1, PairRule.SAME_PREDICATE)]


def test_rule2_same_object_with_valid_until_whatever_the_verb() -> None:
    # "sold honda civic" reaches "drives honda civic" though their embeddings are far apart.
    sold = cand("user", "sold", "honda civic", until=NOW - timedelta(days=2))
    pairs = pairs_of([sold], [live(7, "user", "drives", "honda civic")])
    assert rules(pairs) == [(0, 7, PairRule.ENDS_RELATIONSHIP)]


def test_valid_until_in_the_future_ends_the_agreeing_fact() -> None:
    # "is retiring novablast 5" ends "owns novablast 5".
    retiring = cand("user", "is retiring", "novablast 5", until=NOW + timedelta(days=30))
    pairs = pairs_of([retiring], [live(3, "user", "owns", "novablast 5")])
    assert rules(pairs) == [(0, 3, PairRule.ENDS_RELATIONSHIP)]


def test_agreeing_objects_are_not_judged_even_inside_the_band() -> None:
    works_from = cand("user", "works from", "chennai", band={1: 0.85})
    assert pairs_of([works_from], [live(1, "user", "lives in", "chennai")]) == []


def test_band_pairs_predicate_rewordings_at_085() -> None:
    employed = cand("user", "is employed by", "anthropic", band={1: 0.85})
    pairs = pairs_of([employed], [live(1, "user", "works at", "google")])
    assert rules(pairs) == [(0, 1, PairRule.EMBEDDING_BAND)]


def test_band_edges_below_min_and_at_dedup_threshold_are_not_paired() -> None:
    below = cand("user", "is employed by", "anthropic", band={1: 0.79})
    at_dedup = cand("user", "is staff at", "anthropic", band={1: 0.95})
    at_min = cand("user", "is hired by", "anthropic", band={1: 0.80})
    pairs = pairs_of([below, at_dedup, at_min], [live(1, "user", "works at", "google")])
    assert rules(pairs) == [(2, 1, PairRule.EMBEDDING_BAND)]


def test_other_subjects_and_unrelated_facts_are_never_paired() -> None:
    facts = [live(1, "honda civic", "works at", "google"), live(2, "user", "likes", "jazz")]
    assert pairs_of([cand("user", "works at", "anthropic")], facts) == []


def test_historical_candidate_meets_only_the_relationship_it_ends() -> None:
    past = NOW - timedelta(days=400)
    acme = cand("user", "works at", "acme", until=past)
    facts = [live(1, "user", "works at", "google"), live(2, "user", "is employee of", "acme")]
    assert rules(pairs_of([acme], facts)) == [(0, 2, PairRule.ENDS_RELATIONSHIP)]


def test_low_confidence_candidate_is_not_judged() -> None:
    shaky = cand("user", "works at", "anthropic", conf=S.retrieval_min_confidence - 0.01)
    assert pairs_of([shaky], [live(1, "user", "works at", "google")]) == []


def test_one_batch_numbers_every_pair() -> None:
    candidates = [cand("user", "works at", "anthropic"), cand("user", "lives in", "berlin")]
    facts = [live(1, "user", "works at", "google"), live(2, "user", "lives in", "paris")]
    assert [(p.pair_id, p.candidate, p.existing.id) for p in pairs_of(candidates, facts)] == [
        (0, 0, 1),
        (1, 1, 2),
    ]


def test_old_verdict_invalidates_with_the_insert_index() -> None:
    candidates = [cand("user", "works at", "anthropic")]
    pairs = pairs_of(candidates, [live(1, "user", "works at", "google")])
    judged = apply_verdicts(candidates, pairs, {0: Verdict.OLD}, stated_at=NOW)
    assert judged.inserts == candidates
    assert [(i.fact_id, i.object, i.by_candidate) for i in judged.invalidations] == [
        (1, "google", 0)
    ]


def test_missing_verdicts_mean_neither() -> None:
    candidates = [cand("user", "works at", "anthropic")]
    pairs = pairs_of(candidates, [live(1, "user", "works at", "google")])
    judged = apply_verdicts(candidates, pairs, {}, stated_at=NOW)
    assert judged.inserts == candidates and judged.invalidations == [] and judged.dropped == []


def test_new_discards_the_candidate_and_its_old_verdicts() -> None:
    # Candidate 0 would end "works at acme" but is itself superseded by "works at google":
    # it must not end acme and then vanish. Candidate 1's insert index shifts to 0.
    candidates = [cand("user", "works at", "anthropic"), cand("user", "likes", "jazz")]
    facts = [
        live(1, "user", "works at", "google"),
        live(2, "user", "works at", "acme"),
        live(3, "user", "likes", "rock"),
    ]
    pairs = pairs_of(candidates, facts)
    pair_id = {(p.candidate, p.existing.id): p.pair_id for p in pairs}
    verdicts = {
        pair_id[(0, 1)]: Verdict.NEW,
        pair_id[(0, 2)]: Verdict.OLD,
        pair_id[(1, 3)]: Verdict.OLD,
    }
    judged = apply_verdicts(candidates, pairs, verdicts, stated_at=NOW)
    assert [c.fact.object for c in judged.inserts] == ["jazz"]
    assert [(i.fact_id, i.by_candidate) for i in judged.invalidations] == [(3, 0)]
    assert [(d.stage, d.reason, d.object) for d in judged.dropped] == [
        (DropStage.JUDGE, "superseded_by_existing", "anthropic")
    ]
    assert "#1" in judged.dropped[0].detail


def test_new_and_old_from_the_same_candidate_ends_nothing() -> None:
    candidates = [cand("user", "works at", "anthropic")]
    facts = [live(1, "user", "works at", "google"), live(2, "user", "works at", "acme")]
    pairs = pairs_of(candidates, facts)
    judged = apply_verdicts(candidates, pairs, {0: Verdict.OLD, 1: Verdict.NEW}, stated_at=NOW)
    assert judged.inserts == [] and judged.invalidations == []


def test_a_fact_is_ended_once_by_the_first_candidate() -> None:
    candidates = [cand("user", "works at", "anthropic"), cand("user", "works at", "openai")]
    pairs = pairs_of(candidates, [live(1, "user", "works at", "google")])
    judged = apply_verdicts(candidates, pairs, {0: Verdict.OLD, 1: Verdict.OLD}, stated_at=NOW)
    assert [(i.fact_id, i.by_candidate) for i in judged.invalidations] == [(1, 0)]


def test_an_ending_pairs_only_with_the_one_relationship_it_means() -> None:
    """ "sold honda civic" ends "drives honda civic", nearest in meaning, not every fact
    that names the car."""
    sold = cand("user", "sold", "honda civic", until=NOW - timedelta(days=2), band={2: 0.7})
    facts = [
        live(1, "user", "insures", "honda civic"),
        live(2, "user", "drives", "honda civic"),
        live(3, "user", "likes", "honda civic"),
        live(4, "user", "lives in", "chennai"),
    ]
    assert rules(pairs_of([sold], facts)) == [(0, 2, PairRule.ENDS_RELATIONSHIP)]


def test_an_ending_outside_any_band_pairs_with_the_fact_said_last() -> None:
    sold = cand("user", "sold", "honda civic", until=NOW - timedelta(days=2))
    older = LiveFact(1, "user", "insures", "honda civic", stated_at=NOW - timedelta(days=9))
    newer = LiveFact(2, "user", "drives", "honda civic", stated_at=NOW - timedelta(days=3))
    pairs = find_pairs(
        [sold], [older, newer],
        band_min=S.contradiction_band_min, dedup_threshold=S.fact_dedup_threshold,
        min_confidence=S.retrieval_min_confidence, now=NOW,
    )  # fmt: skip
    assert rules(pairs) == [(0, 2, PairRule.ENDS_RELATIONSHIP)]


def test_an_untrusted_candidate_is_not_judged_whatever_its_confidence() -> None:
    change = cand("user", "works at", "anthropic", conf=0.99)
    for why in ("no confidence given", "quote 'I joined' is not in the user's messages"):
        unsupported = change.model_copy(
            update={"fact": change.fact.model_copy(update={"untrusted": why})}
        )
        assert pairs_of([unsupported], [live(1, "user", "works at", "google")]) == []
    assert len(pairs_of([change], [live(1, "user", "works at", "google")])) == 1
