"""The live facts the judge needs: those that may conflict with an episode's candidates.

One query per episode. Every pair rule requires the same subject, so the search is an
exact scan of the tenant's live facts of those subjects (btree prefix of
``facts_live_by_subject_predicate``), never an approximate HNSW probe: a tenant filter
on an HNSW scan can under-return, an exact scan cannot. SQL only narrows the rows
(same predicate, same object, or cosine >= band minimum); the rules themselves are
applied in :mod:`streams.stages.judging`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from streams.events import Candidate
from streams.stages.judging import LiveFact

_NEAR_LIVE = """
WITH c AS (
    SELECT * FROM unnest($3::text[], $4::text[], $5::text[], $6::text[])
        AS c(subject, predicate, object, embedding)
)
SELECT DISTINCT ON (f.id) f.id, f.subject, f.predicate, f.object, f.valid_from,
       f.valid_until, f.object_entity_id, f.embedding
FROM c
JOIN facts f ON f.dataset = $1 AND f.project_id = $2 AND f.subject = c.subject
WHERE f.invalid_at IS NULL
  AND (f.valid_until IS NULL OR f.valid_until > $7)
  AND (f.predicate = c.predicate
       OR lower(f.object) = lower(c.object)
       OR (c.embedding IS NOT NULL AND f.embedding IS NOT NULL
           AND 1 - (f.embedding <=> c.embedding::vector) >= $8))
ORDER BY f.id
"""


def _vector_text(values: Sequence[float]) -> str | None:
    return "[" + ",".join(repr(float(v)) for v in values) + "]" if values else None


async def live_facts_near(
    conn: Any,
    dataset: str,
    project_id: str,
    candidates: Sequence[Candidate],
    *,
    band_min: float,
    now: datetime,
) -> list[LiveFact]:
    """Live facts sharing a subject with a candidate and a predicate, object or meaning."""
    if not candidates:
        return []
    rows = await conn.fetch(
        _NEAR_LIVE,
        dataset,
        project_id,
        [c.fact.subject for c in candidates],
        [c.fact.predicate for c in candidates],
        [c.fact.object for c in candidates],
        [_vector_text(c.embedding) for c in candidates],
        now,
        # A hair below the band so float4 rounding never hides a pair at its edge.
        band_min - 1e-6,
    )
    return [
        LiveFact(
            id=r["id"],
            subject=r["subject"],
            predicate=r["predicate"],
            object=r["object"],
            valid_from=r["valid_from"],
            valid_until=r["valid_until"],
            object_entity_id=r["object_entity_id"],
            embedding=r["embedding"].to_list() if r["embedding"] is not None else None,
        )
        for r in rows
    ]
