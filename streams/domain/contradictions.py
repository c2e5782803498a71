"""Contradiction judging as pure functions (seed "Step 4"): which pairs, and what verdicts do.

No I/O here: the judge stage reads the tenant's live facts, calls the model once, and
hands both to these functions. Rules, in the seed's words:

* a candidate conflicts with a live fact of the same subject when (1) the predicate is
  the same and the object differs, (2) the object is the same and the candidate carries
  a validUntil, whatever the verb, or (3) their embeddings' cosine lies in
  [contradiction_band_min, fact_dedup_threshold) and the object differs;
* agreeing objects are never judged unless the candidate carries a validUntil;
* a historical candidate (validUntil already past) is history: it only meets the
  relationship it explicitly ends (rule 2);
* a low-confidence candidate is stored but never destroys a fact, so it is not judged
  at all (asking would cost a model call whose `old` we would have to ignore);
* a candidate judged `new` against any fact is discarded with all its own `old` verdicts,
  so no fact is ever ended by a candidate that is then not inserted;
* missing verdicts (a failed or partial answer) mean `neither`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from streams.domain.facts import LiveFact
from streams.domain.vectors import cosine
from streams.events import Candidate, Dropped, DropStage, Fact, Invalidation, Verdict


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
    candidate: Candidate,
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
    if candidate.embedding and live.embedding is not None:
        similarity = cosine(candidate.embedding, live.embedding)
        if band_min <= similarity < dedup_threshold:
            return PairRule.EMBEDDING_BAND
    return None


def find_pairs(
    candidates: Sequence[Candidate],
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
        if candidate.fact.confidence < min_confidence:
            continue  # stored, never trusted to destroy: not worth a verdict
        for fact in live:
            rule = pair_rule(
                candidate, fact, band_min=band_min, dedup_threshold=dedup_threshold, now=now
            )
            if rule is not None:
                pairs.append(Pair(len(pairs), index, fact, rule))
    return pairs


def describe(
    subject: str,
    predicate: str,
    obj: str,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
) -> str:
    """The text a fact is shown as to the judge and in drop details."""
    text = f"{subject} {predicate} {obj}"
    times = []
    if valid_from is not None:
        times.append(f"from {valid_from.date().isoformat()}")
    if valid_until is not None:
        times.append(f"until {valid_until.date().isoformat()}")
    return f"{text} ({' '.join(times)})" if times else text


def describe_fact(fact: Fact) -> str:
    return describe(fact.subject, fact.predicate, fact.object, fact.valid_from, fact.valid_until)


def describe_live(fact: LiveFact) -> str:
    return describe(fact.subject, fact.predicate, fact.object, fact.valid_from, fact.valid_until)


def apply_verdicts(
    candidates: Sequence[Candidate],
    pairs: Sequence[Pair],
    verdicts: Mapping[int, Verdict],
) -> Judgement:
    """Turn one verdict per pair into inserts, invalidations and drops.

    ``verdicts`` maps pair ids to verdicts; a pair without one counts as `neither`, so a
    failed call (empty mapping) ends nothing.
    """

    def verdict(pair: Pair) -> Verdict:
        return verdicts.get(pair.pair_id, Verdict.NEITHER)

    rejected: dict[int, Pair] = {}
    for pair in pairs:
        if verdict(pair) is Verdict.NEW and pair.candidate not in rejected:
            rejected[pair.candidate] = pair

    inserts: list[Candidate] = []
    insert_index: dict[int, int] = {}
    dropped: list[Dropped] = []
    for index, candidate in enumerate(candidates):
        if index in rejected:
            by = rejected[index].existing
            fact = candidate.fact
            dropped.append(
                Dropped(
                    stage=DropStage.JUDGE,
                    reason="superseded_by_existing",
                    detail=f"judged 'new' against live fact #{by.id}: {describe_live(by)}"[:1000],
                    subject=fact.subject,
                    predicate=fact.predicate,
                    object=fact.object,
                )
            )
            continue
        insert_index[index] = len(inserts)
        inserts.append(candidate)

    invalidations: list[Invalidation] = []
    ended: set[int] = set()
    for pair in pairs:
        # A rejected candidate's `old` verdicts die with it: it will never be inserted.
        if verdict(pair) is not Verdict.OLD or pair.candidate in rejected:
            continue
        if pair.existing.id in ended:
            continue  # one fact ends once, by the first candidate that replaces it
        ended.add(pair.existing.id)
        invalidations.append(
            Invalidation(
                fact_id=pair.existing.id,
                subject=pair.existing.subject,
                predicate=pair.existing.predicate,
                object=pair.existing.object,
                by_candidate=insert_index[pair.candidate],
            )
        )
    return Judgement(inserts, invalidations, dropped)
