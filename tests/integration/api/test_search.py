"""Search quality on a small fixed corpus with scripted embeddings, on real Postgres: the
expected fact ranks first, and what must not be retrieved (low confidence, ended,
untrusted, another tenant's) is not, unless asked for."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from streams.api.search import SearchQuery, SearchResult, fuse, search
from streams.model.fakes.scripted import ScriptedEmbedder, hashed_vector, vector_at_similarity
from streams.model.ports import EmbedInput
from tests.support.db import TEST_EMBEDDING_DIM as DIM
from tests.support.events import new_tenant

NOW = datetime.now(UTC).replace(microsecond=0)
JOB = hashed_vector("the user's job", DIM)  # where "user works at ..." facts live
WORK_QUESTION = "where does the user work"


def near_job(similarity: float, seed: str) -> list[float]:
    return vector_at_similarity(JOB, similarity, seed=seed)


async def insert(conn: Any, tenant: tuple[str, str], s: str, p: str, o: str, **extra: Any) -> int:
    fields: dict[str, Any] = {
        "confidence": 0.9, "source_quote": "", "embedding": hashed_vector(f"{s} {p} {o}", DIM),
        "stated_at": NOW - timedelta(days=5), "episode_id": "e1", **extra,
    }  # fmt: skip
    names = ", ".join(fields)
    values = ", ".join(f"${i}" for i in range(6, 6 + len(fields)))
    fact_id: int = await conn.fetchval(
        f"INSERT INTO facts (dataset, project_id, subject, predicate, object, {names}, kind)"
        f" VALUES ($1, $2, $3, $4, $5, {values}, 'literal') RETURNING id",
        *tenant, s, p, o, *fields.values(),
    )  # fmt: skip
    return fact_id


@pytest.fixture(scope="module")
async def corpus(pool: Any) -> dict[str, Any]:
    tenant, other = new_tenant(), new_tenant()
    ids: dict[str, Any] = {"tenant": tenant, "other": other}
    async with pool.acquire() as conn:
        ids["anthropic"] = await insert(conn, tenant, "user", "works at", "anthropic",
                                        embedding=near_job(0.97, "a"),
                                        source_quote="I work at Anthropic now")  # fmt: skip
        ids["oslo"] = await insert(conn, tenant, "user", "lives in", "oslo")
        ids["tesla"] = await insert(conn, tenant, "user", "drives", "tesla model 3")
        ids["openai"] = await insert(conn, tenant, "user", "works at", "openai",
                                     confidence=0.3, embedding=near_job(0.99, "o"))  # fmt: skip
        ids["meta"] = await insert(
            conn,
            tenant,
            "user",
            "works at",
            "meta",
            embedding=near_job(0.99, "m"),
            untrusted_reason="quote 'x' is not in the user's messages",
        )
        # Google: said 60 days ago, superseded 30 days ago. The original is retired in
        # transaction time; its copy carries the end and, ended, no vector of its own.
        said = NOW - timedelta(days=60)
        original = await insert(conn, tenant, "user", "works at", "google", stated_at=said,
                                embedding=near_job(0.98, "g"), episode_id="e-google")  # fmt: skip
        ids["google"] = await insert(
            conn, tenant, "user", "works at", "google", stated_at=said, embedding=None,
            valid_until=NOW - timedelta(days=30), copy_of=original, end_reason="superseded",
            ended_by=ids["anthropic"], episode_id="e-anthropic",
        )  # fmt: skip
        await conn.execute(
            "UPDATE facts SET invalid_at = now(), invalid_reason = 'superseded',"
            " invalidated_by = $2 WHERE id = $1", original, ids["google"],
        )  # fmt: skip
        ids["munich"] = await insert(conn, tenant, "user", "wohnt in", "münchen",
                                     source_quote="Ich wohne jetzt in München")  # fmt: skip
        ids["sushi"] = await insert(conn, tenant, "user", "好きな食べ物", "寿司")
        ids["future"] = await insert(conn, tenant, "user", "works at", "acme",
                                     valid_from=NOW + timedelta(days=20),
                                     embedding=near_job(0.96, "f"))  # fmt: skip
        # "I worked at Initech until last year", said yesterday: true before its end.
        ids["initech"] = await insert(
            conn, tenant, "user", "works at", "initech", stated_at=NOW - timedelta(days=1),
            valid_until=NOW - timedelta(days=400), embedding=near_job(0.95, "i"),
        )  # fmt: skip
        # The other tenant holds the best possible match: it must never show.
        ids["other_job"] = await insert(conn, other, "user", "works at", "anthropic",
                                        embedding=JOB)  # fmt: skip
    return ids


def embedder(fail: bool = False) -> ScriptedEmbedder:
    def failing(_: EmbedInput) -> Exception | None:
        return RuntimeError("embedding service down") if fail else None

    return ScriptedEmbedder(DIM, {WORK_QUESTION: JOB}, fail=failing)


async def found(
    pool: Any, corpus: dict[str, Any], text: str, fail: bool = False, **options: Any
) -> SearchResult:
    query = SearchQuery(text=text, **{"min_confidence": 0.5, **options})
    return await search(pool, embedder(fail), *corpus["tenant"], query)


def names(result: SearchResult, corpus: dict[str, Any]) -> list[str]:
    by_id = {v: k for k, v in corpus.items() if isinstance(v, int)}
    return [by_id.get(h.fact.id, f"#{h.fact.id}") for h in result.hits]


async def test_the_expected_fact_ranks_first_and_the_untrusted_never_shows(
    pool: Any, corpus: dict[str, Any]
) -> None:
    result = await found(pool, corpus, WORK_QUESTION)
    ranked = names(result, corpus)
    assert ranked[0] == "anthropic"
    # below retrieval_min_confidence, ended, untrusted, not yet true, another tenant's
    assert not {"openai", "google", "meta", "future", "initech", "other_job"} & set(ranked)
    best = result.hits[0]
    assert best.vector_rank == 1 and best.text_rank == 1  # both halves agree
    assert best.fact.source_quote == "I work at Anthropic now"
    assert best.similarity == pytest.approx(0.97, abs=1e-4)


@pytest.mark.parametrize(
    ("options", "appears"),
    [
        ({"min_confidence": 0.0}, "openai"),
        ({"include_untrusted": True}, "meta"),
        ({"include_ended": True}, "google"),
        ({"valid_at": NOW - timedelta(days=40)}, "google"),
        ({"valid_at": NOW + timedelta(days=30)}, "future"),
        ({"valid_at": NOW - timedelta(days=500)}, "initech"),
    ],
)
async def test_what_is_hidden_shows_when_asked_for(
    pool: Any, corpus: dict[str, Any], options: dict[str, Any], appears: str
) -> None:
    ranked = names(await found(pool, corpus, WORK_QUESTION, **options), corpus)
    assert appears in ranked
    assert "other_job" not in ranked


async def test_the_past_is_searched_by_meaning_too(pool: Any, corpus: dict[str, Any]) -> None:
    """Google's copy has no vector of its own: its original's is used."""
    result = await found(pool, corpus, WORK_QUESTION, valid_at=NOW - timedelta(days=40))
    assert names(result, corpus)[0] == "google"
    assert result.hits[0].vector_rank == 1
    assert result.hits[0].said_in == "e-google"  # the copy was written by e-anthropic
    assert "anthropic" not in names(result, corpus)  # said after that date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("München", "munich"),
        ("wohne", "munich"),
        ("寿司", "sushi"),
        ("TESLA", "tesla"),
        ("Mu\u0308nchen", "munich"),
        ("ＴＥＳＬＡ", "tesla"),
    ],  # decomposed, full width
)
async def test_full_text_works_in_any_language(
    pool: Any, corpus: dict[str, Any], text: str, expected: str
) -> None:
    result = await found(pool, corpus, text)
    assert names(result, corpus)[0] == expected
    assert result.hits[0].text_rank == 1


async def test_without_an_embedder_the_text_half_still_answers(
    pool: Any, corpus: dict[str, Any]
) -> None:
    result = await found(pool, corpus, "tesla", fail=True)
    assert result.embedding_error is not None and "embedding service down" in result.embedding_error
    assert names(result, corpus) == ["tesla"]
    assert result.hits[0].vector_rank is None


async def test_k_bounds_the_results(pool: Any, corpus: dict[str, Any]) -> None:
    result = await found(pool, corpus, WORK_QUESTION, k=2, include_ended=True, min_confidence=0)
    assert len(result.hits) == 2


def test_rrf_prefers_agreement_over_one_first_place() -> None:
    vector: Sequence[tuple[int, float]] = [(1, 0.9), (2, 0.8), (3, 0.7)]
    text: Sequence[tuple[int, float]] = [(2, 1.0), (4, 0.5)]
    fused = fuse(list(vector), list(text))
    assert [f[0] for f in fused] == [2, 1, 4, 3]
    assert fused[0][2:] == (2, 1)


async def test_the_vector_half_leaves_out_what_is_not_similar_enough(
    pool: Any, corpus: dict[str, Any]
) -> None:
    result = await found(pool, corpus, WORK_QUESTION, min_similarity=0.98)
    assert all(h.vector_rank is None for h in result.hits)  # anthropic sits at 0.97
    assert names(result, corpus)[0] == "anthropic"  # its quote still says "work"
    assert result.hits[0].text_rank == 1


async def test_an_end_moved_twice_is_still_found_by_meaning_in_the_past(pool: Any) -> None:
    """ "Sold the Civic 20 days ago", then "no, 25 days ago": the row believed now is a copy
    of a copy, and neither carries a vector (both ended before they were written)."""
    tenant, car = new_tenant(), hashed_vector("the user's car", DIM)
    said = NOW - timedelta(days=90)
    async with pool.acquire() as conn:
        original = await insert(conn, tenant, "user", "drives", "honda civic",
                                stated_at=said, embedding=car)  # fmt: skip
        first = await insert(
            conn, tenant, "user", "drives", "honda civic", stated_at=said, embedding=None,
            valid_until=NOW - timedelta(days=20), copy_of=original, end_reason="closed",
        )  # fmt: skip
        moved = await insert(
            conn, tenant, "user", "drives", "honda civic", stated_at=said, embedding=None,
            valid_until=NOW - timedelta(days=25), copy_of=first, end_reason="closed",
        )  # fmt: skip
        await conn.execute(
            "UPDATE facts SET invalid_at = now(), invalid_reason = 'closed' WHERE id = ANY($1)",
            [original, first],
        )
    question = "which car did the user drive"
    query = SearchQuery(text=question, valid_at=NOW - timedelta(days=30))
    result = await search(pool, ScriptedEmbedder(DIM, {question: car}), *tenant, query)
    assert [h.fact.id for h in result.hits] == [moved]
    assert result.hits[0].vector_rank == 1
    assert result.hits[0].similarity == pytest.approx(1.0, abs=1e-4)
