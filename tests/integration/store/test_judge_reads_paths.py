"""The judge's read of live facts gives the same rows on each of its paths.

Rules 1 and 2 are read by index; the embedding band comes from the ids dedup handed over
or, when facts were written since dedup read them, from the judge's own search: exact
while the subject is small, HNSW past ``exact_below`` (``exact_below=0`` forces it here).
The rows exercise every rule, next to facts that must not come back (other subjects,
below the band, ended, other tenants).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pgvector import Vector

from streams.events import DedupedCandidate, Fact, FactKind
from streams.model.fakes.scripted import hashed_vector, vector_at_similarity
from streams.store.db import create_pool
from streams.store.judge_reads import conflicting_live_facts, search_bands
from streams.store.live_facts import nearest_live_facts, newest_live_fact_at
from streams.store.vector_search import ScanTuning
from tests.support.db import TEST_EMBEDDING_DIM, create_fresh_database

DIM = TEST_EMBEDDING_DIM
JOB = hashed_vector("user works at acme", DIM)
SOLD = hashed_vector("user sold honda civic", DIM)
NOW = datetime.now(UTC)


def _fact(s: str, p: str, o: str, until: datetime | None = None) -> Fact:
    return Fact(subject=s, predicate=p, object=o, kind=FactKind.LITERAL, confidence=0.9,
                valid_until=until)  # fmt: skip


@pytest.fixture(scope="module")
async def pool(database_url: str) -> AsyncIterator[Any]:
    p = await create_pool(await create_fresh_database(database_url), max_size=2)
    rows: list[tuple[Any, ...]] = []

    def add(ds: str, s: str, p_: str, o: str, vec: list[float], ended: bool = False) -> None:
        rows.append((ds, "p", s, p_, o, "literal", 0.9, "e", Vector(vec),
                     NOW - timedelta(days=1) if ended else None,
                     "superseded" if ended else None))  # fmt: skip

    add("t", "user", "works at", "globex", hashed_vector("a", DIM))  # rule 1
    add("t", "user", "drives", "Honda Civic", hashed_vector("b", DIM))  # rule 2 (case)
    add("t", "user", "is employed by", "initech", vector_at_similarity(JOB, 0.86, "c"))  # band
    add("t", "user", "likes", "tea", vector_at_similarity(JOB, 0.5, "d"))  # below the band
    add("t", "dog", "works at", "kennel", vector_at_similarity(JOB, 0.9, "e"))  # other subject
    add("t", "user", "works at", "hooli", hashed_vector("f", DIM), ended=True)  # not live
    add("other", "user", "works at", "umbrella", vector_at_similarity(JOB, 0.9, "g"))
    for i in range(30):  # filler the band search must look past
        add("t", "user", f"has note {i}", f"n{i}", hashed_vector(f"n{i}", DIM))
    await p.copy_records_to_table(
        "facts", records=rows,
        columns=["dataset", "project_id", "subject", "predicate", "object", "kind",
                 "confidence", "episode_id", "embedding", "invalid_at", "invalid_reason"],
    )  # fmt: skip
    await p.execute("ANALYZE facts")
    yield p
    await p.close()


SOLD_FACT = _fact("user", "sold", "honda civic", until=NOW + timedelta(days=1))
EXPECTED = [
    ("user", "works at", "globex"),
    ("user", "drives", "Honda Civic"),
    ("user", "is employed by", "initech"),
]


def _candidates() -> list[DedupedCandidate]:
    return [
        DedupedCandidate(fact=_fact("user", "works at", "acme")),
        DedupedCandidate(fact=SOLD_FACT),
    ]


async def test_the_judges_own_search_reads_alike_exact_or_by_index(pool: Any) -> None:
    async def read(exact_below: int) -> list[tuple[str, str, str]]:
        async with pool.acquire() as conn:
            banded = await search_bands(
                conn, "t", "p", _candidates(), [JOB, SOLD], band_min=0.80, now=NOW,
                tuning=ScanTuning(exact_below=exact_below),
            )  # fmt: skip
            live, _ = await conflicting_live_facts(conn, "t", "p", banded, now=NOW)
        return [f.triple for f in live]

    exact = await read(2_000)
    assert exact == EXPECTED
    assert await read(0) == exact


async def test_the_band_dedup_hands_over_reads_like_the_judges_own_search(pool: Any) -> None:
    """Dedup's nearest live facts of the subject, inside the band, read by id: the same
    rows as the judge's own search; ids no longer live or of another tenant are ignored."""
    async with pool.acquire() as conn:
        near = await nearest_live_facts(
            conn, "t", "p", [(JOB, "user"), (SOLD, "user")], tuning=ScanTuning(exact_below=0)
        )
    band = [[f for f in per if (f.similarity or 0) >= 0.80 - 1e-6] for per in near]
    ended_and_foreign = [
        r["id"] for r in await pool.fetch(
            "SELECT id FROM facts WHERE object IN ('hooli', 'umbrella') ORDER BY object"
        )
    ]  # fmt: skip
    assert len(ended_and_foreign) == 2
    handed = [
        c.model_copy(update={
            "band_neighbours": [f.id for f in b] + (ended_and_foreign if i == 0 else []),
            "band_similarity": [f.similarity for f in b] + ([0.9, 0.9] if i == 0 else []),
        })
        for i, (c, b) in enumerate(zip(_candidates(), band, strict=True))
    ]  # fmt: skip
    async with pool.acquire() as conn:
        live, _ = await conflicting_live_facts(conn, "t", "p", handed, now=NOW)
    assert [f.triple for f in live] == EXPECTED
    assert handed[0].similarity_to(live[2].id) == pytest.approx(0.86, abs=1e-4)


async def test_the_read_carries_the_watermark_dedup_compares_with(pool: Any) -> None:
    async with pool.acquire() as conn:
        as_of = await newest_live_fact_at(conn, "t", "p")
        _, watermark = await conflicting_live_facts(conn, "t", "p", _candidates(), now=NOW)
        _, nothing_matches = await conflicting_live_facts(
            conn, "t", "p", [DedupedCandidate(fact=_fact("cat", "eats", "fish"))], now=NOW
        )
    assert as_of is not None and watermark == as_of == nothing_matches
