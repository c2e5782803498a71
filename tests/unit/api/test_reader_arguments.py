"""The Python reader refuses a bad query or argument with a ValueError naming it, before
any query reaches Postgres (where it would fail as a driver error, or read nothing)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from streams.api import reader
from streams.api.search import SearchQuery, search
from streams.settings import Settings


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "job\x00"}, "NUL"),
        ({"text": "x" * 2001}, "2000"),
        ({"k": 0}, "k:"),
        ({"k": 10**6}, "k:"),
        ({"k": True}, "k:"),
        ({"k": "3"}, "k:"),
        ({"min_confidence": 1.5}, "min_confidence"),
        ({"min_confidence": float("nan")}, "min_confidence"),
        ({"min_confidence": "0.5"}, "min_confidence"),
        ({"min_similarity": -2.0}, "min_similarity"),
        ({"valid_at": datetime.now(UTC).replace(tzinfo=None)}, "time zone"),  # naive
        ({"valid_at": datetime.now(UTC).date().isoformat()}, "valid_at"),
    ],
)
def test_a_bad_search_query_is_refused_naming_the_field(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        SearchQuery(**{"text": "where does she work", **fields})


def test_a_query_takes_the_deployments_defaults() -> None:
    settings = Settings(retrieval_min_confidence=0.7, search_default_k=7, search_max_k=20,
                        search_min_similarity=0.1)  # fmt: skip
    query = SearchQuery.of(settings, "where does she work")
    assert (query.k, query.min_confidence, query.min_similarity) == (7, 0.7, 0.1)
    assert SearchQuery.of(settings, "job", min_confidence=0.0, k=20).min_confidence == 0.0
    with pytest.raises(ValueError, match="at most 20"):
        SearchQuery.of(settings, "job", k=21)
    assert SearchQuery(text="job", valid_at=datetime.now(UTC)).valid_at is not None


class _NoPool:
    """Fails the test if a query is sent: the arguments must be refused first."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"pool.{name} used for arguments that should be refused")


@pytest.mark.parametrize(
    ("call", "says"),
    [
        (lambda p: reader.facts(p, "de\x00mo", "alice"), "dataset"),
        (lambda p: reader.facts(p, "demo", ""), "project_id"),
        (lambda p: reader.fact_detail(p, "demo", "alice", 2**63), "fact_id"),
        (lambda p: reader.fact_detail(p, "demo", "alice", "3"), "fact_id"),
        (lambda p: reader.entity(p, "demo", "alice", -1), "entity_id"),
        (lambda p: reader.entities(p, "demo", "al ice"), "project_id"),
        (lambda p: reader.episode_trace(p, "demo", "alice", "ep\x00"), "episode_id"),
        (lambda p: reader.episodes(p, ("demo", "alice"), limit=0), "limit"),
        (lambda p: search(p, None, "demo", "a\x00", SearchQuery(text="job")), "project_id"),  # type: ignore[arg-type]
    ],
)
async def test_the_reader_refuses_bad_arguments_before_any_query(call: Any, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        await call(_NoPool())
