"""Contradiction judging as pure functions (seed "Step 4"): which pairs, and what verdicts do.

No I/O here: the judge stage reads the tenant's live facts, calls the model once, and
hands both to these functions. Rules, in the seed's words:

* a candidate conflicts with a live fact of the same subject when (1) the predicate is
  the same and the object differs, (2) the object is the same and the candidate carries
  a validUntil, whatever the verb, or (3) their embeddings' cosine lies in
  [contradiction_band_min, fact_dedup_threshold) and the object differs (the cosine
  dedup measured to the candidate's band neighbours: ``DedupedCandidate.band_*``);
* agreeing objects are never judged unless the candidate carries a validUntil;
* a historical candidate (validUntil already past) is history: it only meets the
  relationship it explicitly ends (rule 2);
* rule 2 pairs a candidate with ONE live fact: of the live facts on the same object
  ("drives", "likes", "insures" honda civic), the one whose meaning is nearest the
  candidate's (embedding cosine; ties: the one said last). "user sold honda civic (until
  May)" ends "user drives honda civic", not every fact that names the car;
* a candidate not trusted to end facts (low confidence, no confidence given, a quote
  not in the user's messages) is stored but never destroys a fact, so it is not judged
  at all (asking would cost a model call whose `old` we would have to ignore);
* a candidate judged `new` against any fact is discarded with all its own `old` verdicts,
  so no fact is ever ended by a candidate that is then not inserted;
* missing verdicts (a failed or partial answer) mean `neither`.

Time (DESIGN "Time: three clocks per fact"): `old` ends the live fact's valid time at the
winner's start (its valid_from, else when it was said), or, for a pair of rule 2, at the
candidate's validUntil; the writer keeps both clocks. Event time beats arrival order: a
candidate said BEFORE the live fact, or telling of a time before the live fact began (both
starts given), never ends it. Judged against such a newer fact, the older candidate is
stored as history, valid until the newer fact starts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from streams.domain.facts import BAND_SLACK, LiveFact, describe_fact, describe_live, trusted_to_end
from streams.domain.time import (
    began_later,
    changed_before_start,
    earliest,
    effective_start,
    never_starts,
    stated_after,
    supersession_end,
)
from streams.events import (
    Candidate,
    DedupedCandidate,
    Dropped,
    DropStage,
    Fact,
    Invalidation,
    Verdict,
)


class PairRule(StrEnum):
    SAME_PREDICATE = "same_predicate"  # rule 1
    ENDS_RELATIONSHIP = "ends_relationship"  # rule 2
    EMBEDDING_BAND = "embedding_band"  # rule 3


@dataclass(frozen=True)
class Pair:
    pair_id: int
    candidate: int  # index into the episode's candidates
    existing: LiveFact
    rule: PairRule


@dataclass(frozen=True)
class Judgement:
    """What the writer gets: inserts, the facts they end, and why anything was discarded."""

    inserts: list[Candidate]
    invalidations: list[Invalidation]
    dropped: list[Dropped]


def same_object(fact: Fact, live: LiveFact) -> bool:
    if fact.object_entity_id is not None and fact.object_entity_id == live.object_entity_id:
        return True
    return fact.object.strip().casefold() == live.object.strip().casefold()


def is_historical(fact: Fact, now: datetime) -> bool:
    return fact.valid_until is not None and fact.valid_until <= now


def pair_rule(
    candidate: DedupedCandidate,
    live: LiveFact,
    *,
    band_min: float,
    dedup_threshold: float,
    now: datetime,
) -> PairRule | None:
    """Which of the seed's three rules pairs this candidate with this live fact, if any."""
    fact = candidate.fact
    if fact.subject != live.subject or fact.triple == live.triple:
        return None  # other subjects never conflict; an identical triple was dedup's call
    agrees = same_object(fact, live)
    if agrees:
        # Lives in chennai / works from chennai agree; only an ending is judged.
        return PairRule.ENDS_RELATIONSHIP if fact.valid_until is not None else None
    if is_historical(fact, now):
        return None  # history ends only the relationship it names
    if fact.predicate == live.predicate:
        return PairRule.SAME_PREDICATE
    similarity = candidate.similarity_to(live.id)
    if similarity is not None and band_min - BAND_SLACK <= similarity < dedup_threshold:
        return PairRule.EMBEDDING_BAND
    return None


def find_pairs(
    candidates: Sequence[DedupedCandidate],
    live: Sequence[LiveFact],
    *,
    band_min: float,
    dedup_threshold: float,
    min_confidence: float,
    now: datetime,
) -> list[Pair]:
    """Every (candidate, live fact) pair worth one verdict, numbered for one batched call."""
    pairs: list[Pair] = []
    for index, candidate in enumerate(candidates):
        if not trusted_to_end(candidate.fact, min_confidence):
            continue  # stored, never trusted to destroy: not worth a verdict
        found = [
            (fact, rule)
            for fact in live
            if (rule := pair_rule(
                candidate, fact, band_min=band_min, dedup_threshold=dedup_threshold, now=now
            )) is not None
        ]  # fmt: skip
        ends = [fact for fact, rule in found if rule is PairRule.ENDS_RELATIONSHIP]
        ended = _the_one_it_ends(candidate, ends)
        for fact, rule in found:
            if rule is not PairRule.ENDS_RELATIONSHIP or fact is ended:
                pairs.append(Pair(len(pairs), index, fact, rule))
    return pairs


def _the_one_it_ends(
    candidate: DedupedCandidate, same_object: Sequence[LiveFact]
) -> LiveFact | None:
    """Of the live facts on the candidate's object, the one its ending means (see above)."""

    def closeness(fact: LiveFact) -> tuple[float, datetime, int]:
        similar = candidate.similarity_to(fact.id)
        said = fact.stated_at or datetime.min.replace(tzinfo=UTC)
        return (-1.0 if similar is None else similar, said, fact.id)

    return max(same_object, key=closeness, default=None)


def apply_verdicts(
    candidates: Sequence[Candidate],
    pairs: Sequence[Pair],
    verdicts: Mapping[int, Verdict],
    *,
    stated_at: datetime,
) -> Judgement:
    """Turn one verdict per pair into inserts, invalidations and drops.

    ``verdicts`` maps pair ids to verdicts; a pair without one counts as `neither`, so a
    failed call (empty mapping) ends nothing. ``stated_at``: when the candidates were said.
    """

    def later(pair: Pair) -> bool:  # the live fact is the newer: said or begun later
        existing, fact = pair.existing, candidates[pair.candidate].fact
        return stated_after(existing.stated_at, stated_at) or began_later(
            existing.valid_from, fact.valid_from, stated_at
        )

    def verdict(pair: Pair) -> Verdict:
        said = verdicts.get(pair.pair_id, Verdict.NEITHER)
        # Against a newer fact, "new" (that fact stands) and "old" (it changed) tell the
        # same story in time: the older statement was true until the newer one. It is
        # kept as history, not lost because the judge read it as the newcomer.
        return Verdict.OLD if said is Verdict.NEW and later(pair) else said

    rejected: dict[int, Pair] = {}
    for pair in pairs:
        if verdict(pair) is Verdict.NEW and pair.candidate not in rejected:
            rejected[pair.candidate] = pair
    replacing = [p for p in pairs if verdict(p) is Verdict.OLD and p.candidate not in rejected]
    # An older statement judged to replace a newer fact: history, ending where it starts.
    newer = [p for p in replacing if later(p)]
    inserts: list[Candidate] = []
    insert_index: dict[int, int] = {}
    dropped: list[Dropped] = []
    for index, candidate in enumerate(candidates):
        if index in rejected:
            dropped.append(_superseded_by_existing(candidate.fact, rejected[index].existing))
            continue
        history = _as_history(candidate, [p for p in newer if p.candidate == index])
        if isinstance(history, Dropped):
            dropped.append(history)
            continue
        insert_index[index] = len(inserts)
        inserts.append(history)

    invalidations: list[Invalidation] = []
    ended: set[int] = set()
    for pair in replacing:
        if pair in newer or pair.existing.id in ended or pair.candidate not in insert_index:
            continue  # one fact ends once, by the first candidate that replaces it
        ended.add(pair.existing.id)
        fact = candidates[pair.candidate].fact
        ends_same_object = pair.rule is PairRule.ENDS_RELATIONSHIP
        until = supersession_end(
            fact.valid_from, fact.valid_until, stated_at, ends_same_object=ends_same_object
        )
        if not ends_same_object and changed_before_start(pair.existing.valid_from, stated_at):
            until = earliest(until, pair.existing.valid_from) or until  # never true
        old = pair.existing
        invalidations.append(Invalidation(
            fact_id=old.id, subject=old.subject, predicate=old.predicate, object=old.object,
            by_candidate=insert_index[pair.candidate], valid_until=until,
        ))  # fmt: skip
    return Judgement(inserts, invalidations, dropped)


def _as_history(candidate: Candidate, newer: Sequence[Pair]) -> Candidate | Dropped:
    """The candidate, ending where the earliest newer fact it was judged to replace starts;
    dropped when that is at or before its own start, or when a newer fact was said before
    its start (a plan changed before its date was never true: stored, it would be a fact
    that ends before it begins)."""
    if not newer:
        return candidate
    first = min(newer, key=lambda p: _start(p.existing))
    until = earliest(candidate.fact.valid_until, _start(first.existing))
    if any(changed_before_start(candidate.fact.valid_from, p.existing.stated_at) for p in newer):
        return _overtaken_before_start(candidate.fact, first.existing)
    if until is not None and never_starts(until, candidate.fact.valid_from):
        return _overtaken_before_start(candidate.fact, first.existing)
    fact = candidate.fact.model_copy(update={"valid_until": until})
    return candidate.model_copy(update={"fact": fact, "ended_by": first.existing.id})


def _overtaken_before_start(fact: Fact, by: LiveFact) -> Dropped:
    detail = (
        f"said before live fact #{by.id} ({describe_live(by)}), judged to replace it, which"
        f" starts before this fact would have: {describe_fact(fact)}"
    )
    return Dropped(
        stage=DropStage.JUDGE,
        reason="overtaken_before_start",
        detail=detail[:1000],
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
    )


def _start(fact: LiveFact) -> datetime:
    said = fact.stated_at or datetime.min.replace(tzinfo=UTC)
    return effective_start(fact.valid_from, said, fact.valid_until)


def _superseded_by_existing(fact: Fact, by: LiveFact) -> Dropped:
    return Dropped(
        stage=DropStage.JUDGE,
        reason="superseded_by_existing",
        detail=f"judged 'new' against live fact #{by.id}: {describe_live(by)}"[:1000],
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
    )
