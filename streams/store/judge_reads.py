"""The live facts the judge needs: those that may conflict with an episode's candidates.

Every pair rule requires the same subject, and SQL only narrows the rows (same predicate,
same object, or cosine >= band minimum); the rules themselves are applied in
:mod:`streams.domain.contradictions`. One query reads three parts, each served by an index, so
the judge's cost does not grow with the tenant (an exact scan of the subject would):

1. same subject and predicate (rule 1): ``facts_live_by_subject_predicate``;
2. same subject and object, for candidates that carry a validUntil (rule 2; an agreeing
   object pairs with nothing else): ``facts_live_by_subject_lower_object``;
3. the embedding band (rule 3): per candidate, the ``SUBJECT_NEIGHBOURS`` nearest live
   facts of its subject with cosine >= band minimum. Dedup already searched exactly
   those (:func:`streams.store.live_facts.nearest_live_facts`) and hands over their ids
   and similarities (``DedupedCandidate.band_*``): they are read by primary key, live again.

The bands are searched here again, the same way, only when facts were written since
dedup read them (its ``live_facts_as_of`` watermark moved: a redriven or replayed record),
as a fact written meanwhile may belong to a band; the candidates' vectors come from where
dedup staged them (streams/store/staged_vectors.py). The search is exact while the subject
has at most ``ScanTuning.exact_below`` live facts, else HNSW with the iterative scan (and
an exact retry when it comes back short), so it never under-returns. What it gives up on
big subjects is HNSW's recall; on any subject, band members beyond the nearest
``SUBJECT_NEIGHBOURS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streams.domain.facts import BAND_SLACK, LiveFact
from streams.events import DedupedCandidate
from streams.store.coalesce import Coalescer, on_pool
from streams.store.keyed_search import nearest_per_key
from streams.store.live_facts import SUBJECT_NEIGHBOURS, live_fact_from_row
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning

_LIVE = "f.invalid_at IS NULL AND (f.valid_until IS NULL OR f.valid_until > a.now)"
# Per asked episode i (its tenant, its clock): the tenant's write watermark and the live
# facts its candidates may conflict with, each part looked up by index within the asking
# tenant. OFFSET 0 keeps each lookup a lookup: flattened, the joins are planned as one
# scan of every tenant's facts.
_CONFLICTING = f"""
WITH c AS (
    SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::boolean[])
        AS c(i, subject, predicate, object, ends)
), a AS (
    SELECT * FROM unnest($6::int[], $7::text[], $8::text[], $9::timestamptz[])
        AS a(i, ds, pid, now)
), ids AS (
    SELECT a.i, f.id FROM a JOIN c ON c.i = a.i CROSS JOIN LATERAL (
        SELECT f.id FROM facts f WHERE f.dataset = a.ds AND f.project_id = a.pid
            AND f.subject = c.subject AND f.predicate = c.predicate AND {_LIVE} OFFSET 0) f
    UNION
    SELECT a.i, f.id FROM a JOIN c ON c.i = a.i CROSS JOIN LATERAL (
        SELECT f.id FROM facts f WHERE f.dataset = a.ds AND f.project_id = a.pid
            AND f.subject = c.subject AND lower(f.object) = lower(c.object) AND {_LIVE}
        OFFSET 0) f
    WHERE c.ends
    UNION
    SELECT a.i, f.id FROM a JOIN unnest($10::int[], $11::bigint[]) AS b(i, id) ON b.i = a.i
    CROSS JOIN LATERAL (
        SELECT f.id FROM facts f WHERE f.id = b.id AND f.dataset = a.ds
            AND f.project_id = a.pid AND {_LIVE} OFFSET 0) f
)
SELECT a.i, w.at AS watermark, r.* FROM a
CROSS JOIN LATERAL (
    SELECT max(created_at) AS at FROM facts
    WHERE dataset = a.ds AND project_id = a.pid AND invalid_at IS NULL
) w LEFT JOIN LATERAL (
    SELECT f.* FROM ids CROSS JOIN LATERAL (
        SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_until,
               f.object_entity_id, f.stated_at
        FROM facts f WHERE f.id = ids.id OFFSET 0) f
    WHERE ids.i = a.i
) r ON true ORDER BY a.i, r.id
"""
_BAND_WHERE = (
    "t.dataset = $2 AND t.project_id = $3 AND t.subject = $5"
    " AND t.invalid_at IS NULL AND (t.valid_until IS NULL OR t.valid_until > $4)"
)
_BAND_COLUMNS = "t.id"


async def search_bands(
    conn: Any,
    dataset: str,
    project_id: str,
    candidates: Sequence[DedupedCandidate],
    vectors: Sequence[Sequence[float] | None],
    *,
    band_min: float,
    now: datetime,
    tuning: ScanTuning = DEFAULT_TUNING,
) -> list[DedupedCandidate]:
    """The candidates with their bands read again: the nearest live facts of their subject
    with cosine >= ``band_min``. A candidate without a vector keeps no band."""
    searched = [i for i, v in enumerate(vectors) if v]
    near = await nearest_per_key(
        conn, source="facts", columns=_BAND_COLUMNS, where=_BAND_WHERE,
        args=(dataset, project_id, now),
        queries=[(list(vectors[i] or ()), candidates[i].fact.subject) for i in searched],
        k=SUBJECT_NEIGHBOURS, tuning=tuning,
    )  # fmt: skip
    bands: dict[int, list[Any]] = {i: [] for i in range(len(candidates))}
    for i, rows in zip(searched, near, strict=True):
        bands[i] = [r for r in rows if r["similarity"] >= band_min - BAND_SLACK]
    return [
        c.model_copy(update={
            "band_neighbours": [r["id"] for r in bands[i]],
            "band_similarity": [round(float(r["similarity"]), 6) for r in bands[i]],
        })
        for i, c in enumerate(candidates)
    ]  # fmt: skip


async def conflicting_live_facts(
    conn: Any,
    dataset: str,
    project_id: str,
    candidates: Sequence[DedupedCandidate],
    *,
    now: datetime,
) -> tuple[list[LiveFact], datetime | None]:
    """Live facts sharing a subject with a candidate and a predicate, an object (for a
    candidate that ends something) or a place in its band, ordered by id; and the
    tenant's write watermark (streams/store/live_facts.py newest_live_fact_at), read in
    the same statement: when it is not the one dedup read the bands at, facts were
    written since (a redriven or replayed record) and the bands must be searched again."""
    (found,) = await conflicting_of_many(
        conn, [ConflictLookup(dataset, project_id, tuple(candidates), now)]
    )
    return found


@dataclass(frozen=True)
class ConflictLookup:
    dataset: str
    project_id: str
    candidates: tuple[DedupedCandidate, ...]
    now: datetime


Conflicting = tuple[list[LiveFact], datetime | None]


async def conflicting_of_many(conn: Any, lookups: Sequence[ConflictLookup]) -> list[Conflicting]:
    """:func:`conflicting_live_facts` of several episodes (of different tenants) in one
    statement, one answer per lookup; a lookup without candidates reads nothing."""
    answers: list[Conflicting] = [([], None) for _ in lookups]
    c: list[list[Any]] = [[], [], [], [], []]
    a: list[list[Any]] = [[], [], [], []]
    band: list[list[Any]] = [[], []]
    for i, lookup in enumerate(lookups):
        if not lookup.candidates:
            continue
        for column, value in zip(
            a, (i, lookup.dataset, lookup.project_id, lookup.now), strict=True
        ):
            column.append(value)
        for cand in lookup.candidates:
            f = cand.fact
            row = (i, f.subject, f.predicate, f.object, f.valid_until is not None)
            for column, value in zip(c, row, strict=True):
                column.append(value)
        for fact_id in sorted(
            {n for cand in lookup.candidates for n in cand.band_neighbours or ()}
        ):
            band[0].append(i)
            band[1].append(fact_id)
    if not a[0]:
        return answers
    found: dict[int, list[LiveFact]] = {}
    for row in await conn.fetch(_CONFLICTING, *c, *a, *band):
        if row["id"] is not None:
            found.setdefault(row["i"], []).append(live_fact_from_row(row))
        answers[row["i"]] = (found.get(row["i"], []), row["watermark"])
    return answers


def conflicts_finder(pool: Any) -> Coalescer[ConflictLookup, Conflicting]:
    """:func:`conflicting_of_many` for concurrent records (streams/store/coalesce.py)."""
    return on_pool(pool, conflicting_of_many)
