"""Where a search hit came from: the episode that said it, and the one that ended it."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from streams.api.jsonable import hit_json
from streams.api.search import SearchHit
from streams.store.facts_query import FactRow

NOW = datetime.now(UTC)
STATED = FactRow(
    id=1, subject="user", predicate="drives", object="honda civic", kind="relationship",
    confidence=0.9, source_quote="I drive a Honda Civic", episode_id="ep-0", valid_from=None,
    valid_until=None, stated_at=NOW - timedelta(days=30), created_at=NOW - timedelta(days=30),
    invalid_at=None, invalid_reason=None, invalidated_by=None, copy_of=None, ended_by=None,
    end_reason=None, untrusted_reason=None,
)  # fmt: skip


def _provenance(fact: FactRow) -> dict[str, object]:
    hit = SearchHit(fact, 0.5, 1, 0.9, None, None, said_in="ep-0")
    provenance: dict[str, object] = hit_json(hit)["provenance"]
    return provenance


def test_a_statement_was_ended_in_no_episode() -> None:
    assert _provenance(STATED)["ended_in_episode"] is None


def test_a_copy_carrying_an_end_names_the_episode_that_ended_it() -> None:
    ended = dataclasses.replace(
        STATED, id=2, copy_of=1, episode_id="ep-1", valid_until=NOW - timedelta(days=3),
        end_reason="closed", end_quote="I sold my Honda Civic",
    )  # fmt: skip
    assert _provenance(ended)["ended_in_episode"] == "ep-1"
    assert _provenance(ended)["episode_id"] == "ep-0"


def test_a_fact_believed_again_without_an_end_names_no_ending_episode() -> None:
    # "I sold my Civic" deleted: the copy that carries the fact on has no end
    reopened = dataclasses.replace(STATED, id=3, copy_of=2, episode_id="ep-1")
    assert _provenance(reopened)["ended_in_episode"] is None
