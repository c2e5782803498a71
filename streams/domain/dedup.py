"""Deduplication, the pure part (seed, step 3): two passes, no LLM.

Exact pass: a candidate whose (subject, predicate, object) is already current (believed
and not ended), or stored with the same validity (history included), or repeats an
earlier candidate of the batch, is dropped; unless it carries a valid_until the current
row lacks, which makes it a closure of that row. A closure by a claim not trusted to end
facts (below the confidence bar, or untrusted: streams/domain/facts.py trusted_to_end)
ends nothing and is dropped as ``untrusted_closure``. A closure only ends a row the user said
no later than the closing statement (event time beats arrival order); against a row said
later, the candidate goes on as a fact of its own, which the judge pairs and the writer
stores as history. A row whose valid time already ended is history: a candidate of the
same triple after it ("member of fitbox" again) survives and is stored beside it, and so
does an open-ended restatement of a row a plan set to end ("I'm staying in Oslo" after
"moving to Berlin in June"), for the judge to weigh against the plan. Which row a closure
ends when none is current, and how of two stated ends the later said stands, whatever
the order they arrive in ("sold it 3 days ago" said after "sold it 2 weeks ago"), is
streams/domain/stated_ends.py. An open fact with a start of its own arriving after a row
said later that gave only its end ("moving to Berlin next month", after "no longer moving
to Berlin": time.gave_only_its_end) goes on: the writer ends it there, as if said in order.
What such a closure, or a candidate after a row said to end, does to that row is
streams/domain/closures.py.

Near-duplicate pass: a survivor whose embedding reaches the threshold against a live
fact or an earlier survivor of the same subject is dropped. Three exceptions keep
knowledge from vanishing:
- the subject must agree: "sister likes hiking" is not a rewording of "user likes
  hiking", however close the two embed (extraction rule 3: a fact about the user and a
  fact about their thing stay separate);
- validity must agree: a fact that ends (valid_until) says something the open-ended fact
  it paraphrases does not ("drove honda civic" until May vs "drives honda civic"), so it
  goes on to the judge, which pairs it with the fact it ends;
- same subject and predicate with a different object is a change, not a repeat ("has car
  budget of 25000" vs "... 20000" can embed above 0.95): the judge owns that pair (step 4).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from streams.domain.closures import bounded_by_an_end, closure_of, drop, quoted
from streams.domain.facts import BAND_SLACK, LiveFact, Triple, same_validity
from streams.domain.stated_ends import (
    replaced_row_it_closes,
    restates_past_a_plan,
    stated_end_it_meets,
    wholly_before,
)
from streams.domain.time import is_current
from streams.domain.vectors import Normed, similarity
from streams.events import Closure, DedupedCandidate, Dropped, Fact

EXACT = "exact_duplicate"
IN_BATCH = "in_batch_duplicate"
NEAR = "near_duplicate"
# How the detail of a drop against a live row begins, the row's id next: a newer version
# of the row's episode leaves a fact another episode stated again (streams/store/
# retraction.py).
MATCHES_LIVE = "matches live fact #"
SIMILAR_TO_LIVE = "similar to live fact #"


@dataclass
class ExactResult:
    survivors: list[Fact] = field(default_factory=list)
    closures: list[Closure] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)

    def add(self, outcome: Fact | Closure | Dropped) -> None:
        if isinstance(outcome, Closure):
            self.closures.append(outcome)
        elif isinstance(outcome, Dropped):
            self.dropped.append(outcome)
        else:
            self.survivors.append(outcome)


def batch_triples(facts: Sequence[Fact]) -> list[Triple]:
    """The distinct triples of a batch, to look up live in one query."""
    return list(dict.fromkeys(f.triple for f in facts))


def exact_pass(
    facts: Sequence[Fact],
    believed: Mapping[Triple, Sequence[LiveFact]],
    *,
    stated_at: datetime,
    now: datetime,
    min_confidence: float = 0.0,
    ends_said: Mapping[int, datetime] | None = None,
) -> ExactResult:
    """``believed``: every believed row of the batch's triples (history included);
    ``stated_at``: when the batch was said; ``now``: what "current" is measured against;
    ``min_confidence``: the bar a closing claim must reach; ``ends_said``: when the end
    of each ended row was said, by row id (a copy carrying a closure's end keeps its
    original's stated_at; absent: the row's stated_at)."""
    out = ExactResult()
    first_at: dict[Triple, int] = {}
    said = ends_said or {}
    for i, fact in enumerate(facts):
        if fact.triple in first_at:
            detail = f"repeats candidate #{first_at[fact.triple]} {quoted(fact.sentence())}"
            out.dropped.append(drop(fact, IN_BATCH, detail + " of this batch"))
            continue
        first_at[fact.triple] = i
        rows = believed.get(fact.triple, ())
        same = next((r for r in rows if _same_time(fact, r)), None)
        current = next((r for r in reversed(rows) if is_current(r.valid_until, now)), None)
        # A closure may also end, earlier, a row a replacement had ended, or end again a
        # row whose end the user stated (see module doc).
        current = current or replaced_row_it_closes(fact, rows) or stated_end_it_meets(fact, rows)
        if current is not None and wholly_before(fact, current):
            current = None  # an earlier period of the same fact: a row of its own
        if same is None and (bounded := bounded_by_an_end(fact, rows, stated_at, now, said)):
            out.add(bounded)  # history up to where that row starts, or dropped
        elif current is not None and restates_past_a_plan(fact, current, stated_at, min_confidence):
            out.survivors.append(fact)  # for the judge, against the plan that ends it
        elif same is not None or (current is not None and fact.valid_until is None):
            row = same or current
            assert row is not None
            out.dropped.append(
                drop(fact, EXACT, f"{MATCHES_LIVE}{row.id} {quoted(row.sentence())} exactly")
            )
        elif current is not None:
            out.add(closure_of(fact, current, stated_at, min_confidence, said))
        else:
            out.survivors.append(fact)
    return out


def _same_time(fact: Fact, row: LiveFact) -> bool:
    return same_validity(fact.valid_until, row.valid_until) and (
        fact.valid_from is None or same_validity(fact.valid_from, row.valid_from)
    )


def near_duplicate_allowed(candidate: Fact, other: Fact | LiveFact) -> bool:
    """Whether a high similarity to ``other`` may drop ``candidate`` (see module doc)."""
    if candidate.subject != other.subject:
        return False
    if not same_validity(candidate.valid_until, other.valid_until):
        return False
    return not (candidate.predicate == other.predicate and candidate.object != other.object)


@dataclass
class NearResult:
    candidates: list[DedupedCandidate] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)  # the candidates' embeddings
    dropped: list[Dropped] = field(default_factory=list)


def near_pass(
    survivors: Sequence[Fact],
    vectors: Sequence[list[float]],
    live_neighbours: Sequence[Sequence[LiveFact]],
    threshold: float,
    band_min: float,
) -> NearResult:
    """Drop near-duplicates of live facts and of earlier kept candidates, in order.

    ``live_neighbours`` are each survivor's nearest live facts of its subject, best first;
    a kept candidate carries those inside the contradiction band (>= ``band_min``) on to
    the judge, with their similarities; its embedding goes to ``vectors`` (candidate
    ``vector`` is its index there), staged for the writer rather than sent along.
    """
    out = NearResult()
    kept_normed: list[Normed] = []  # out.vectors with their norms, each computed once
    for fact, vec, neighbours in zip(survivors, vectors, live_neighbours, strict=True):
        live_hit = next(
            (
                n
                for n in neighbours
                if (n.similarity or 0.0) >= threshold and near_duplicate_allowed(fact, n)
            ),
            None,
        )
        if live_hit is not None:
            detail = (
                f"{SIMILAR_TO_LIVE}{live_hit.id} {quoted(live_hit.sentence())}"
                f" (similarity {live_hit.similarity:.4f} >= {threshold})"
            )
            out.dropped.append(drop(fact, NEAR, detail))
            continue
        normed = Normed(vec)
        scored = [
            (similarity(normed, kept_normed[j]), j)
            for j, kept in enumerate(out.candidates)
            if near_duplicate_allowed(fact, kept.fact)
        ]
        best = max((x for x in scored if x[0] >= threshold), default=None)
        if best is not None:
            kept_fact = out.candidates[best[1]].fact
            detail = (
                f"similar to earlier candidate {quoted(kept_fact.sentence())} of this batch"
                f" (similarity {best[0]:.4f} >= {threshold})"
            )
            out.dropped.append(drop(fact, NEAR, detail))
            continue
        band = [n for n in neighbours if (n.similarity or 0.0) >= band_min - BAND_SLACK]
        out.candidates.append(
            DedupedCandidate(
                fact=fact, vector=len(out.vectors), band_neighbours=[n.id for n in band],
                band_similarity=[round(n.similarity or 0.0, 6) for n in band],
            )
        )  # fmt: skip
        out.vectors.append(vec)
        kept_normed.append(normed)
    return out
