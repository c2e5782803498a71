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
from datetime import datetime
from typing import Any

from streams.domain.facts import BAND_SLACK, LiveFact
from streams.events import DedupedCandidate
from streams.store.live_facts import SUBJECT_NEIGHBOURS, live_fact_from_row
from streams.store.vector_search import DEFAULT_TUNING, ScanTuning, nearest_per_key

_LIVE = "f.invalid_at IS NULL AND (f.valid_until IS NULL OR f.valid_until > $7)"
_CONFLICTING = f"""
WITH c AS (
    SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::boolean[])
        AS c(subject, predicate, object, ends)
), ids AS (
    SELECT f.id FROM c JOIN facts f ON f.dataset = $1 AND f.project_id = $2
        AND f.subject = c.subject AND f.predicate = c.predicate
    WHERE {_LIVE}
    UNION
    SELECT f.id FROM c JOIN facts f ON f.dataset = $1 AND f.project_id = $2
        AND f.subject = c.subject AND lower(f.object) = lower(c.object)
    WHERE c.ends AND {_LIVE}
    UNION
    SELECT f.id FROM facts f
    WHERE f.id = ANY($8::bigint[]) AND f.dataset = $1 AND f.project_id = $2 AND {_LIVE}
)
SELECT w.at AS watermark, r.* FROM (
    SELECT max(created_at) AS at FROM facts
    WHERE dataset = $1 AND project_id = $2 AND invalid_at IS NULL
) w LEFT JOIN LATERAL (
    SELECT f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_until,
           f.object_entity_id, f.stated_at
    FROM facts f JOIN ids USING (id)
) r ON true ORDER BY r.id
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
    if not candidates:
        return [], None
    rows = await conn.fetch(
        _CONFLICTING,
        dataset,
        project_id,
        [c.fact.subject for c in candidates],
        [c.fact.predicate for c in candidates],
        [c.fact.object for c in candidates],
        [c.fact.valid_until is not None for c in candidates],
        now,
        sorted({i for c in candidates for i in c.band_neighbours or ()}),
    )
    return [live_fact_from_row(r) for r in rows if r["id"] is not None], rows[0]["watermark"]
