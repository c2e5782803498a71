"""The read API's JSON: datetimes as ISO 8601, fact rows and search hits as flat objects."""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from datetime import datetime
from typing import Any

from starlette.responses import JSONResponse

from streams.api.reader import FactDetail
from streams.api.search import SearchHit, SearchResult
from streams.store.facts_query import FactRow
from streams.store.traces import EpisodeTrace


def plain(value: Any) -> Any:
    """Anything the reader returns, as JSON-able values."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, FactRow):
        return value.as_json()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if is_dataclass(value) and not isinstance(value, type):
        return plain(asdict(value))
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "replace")
    return value


def hit_json(hit: SearchHit) -> dict[str, Any]:
    return {
        "fact": hit.fact.as_json(),
        "score": hit.score,
        "vector_rank": hit.vector_rank,
        "similarity": hit.similarity,
        "text_rank": hit.text_rank,
        "text_score": hit.text_score,
        # Where it came from: the episode, when it was said and the user's own words.
        "provenance": {
            "episode_id": hit.said_in,
            # a copy carrying a valid end is written by the episode that ended the fact
            # (an open-ended copy, a fact believed again, carries no end)
            "ended_in_episode": (
                hit.fact.episode_id
                if hit.fact.copy_of is not None and hit.fact.valid_until is not None
                else None
            ),
            "stated_at": plain(hit.fact.stated_at),
            "source_quote": hit.fact.source_quote,
            "confidence": hit.fact.confidence,
            "untrusted_reason": hit.fact.untrusted_reason,
        },
    }


def search_json(query: str, result: SearchResult) -> dict[str, Any]:
    return {
        "query": query,
        "embedding_error": result.embedding_error,
        "results": [hit_json(h) for h in result.hits],
    }


def detail_json(detail: FactDetail) -> dict[str, Any]:
    f = detail.fact
    return {
        "fact": f.as_json(),
        # a copy's episode_id is the episode that ended it; said_in, the one it was said in
        "lineage": [
            {**r.as_json(), "said_in": detail.said_in.get(r.id, r.episode_id)}
            for r in detail.lineage
        ],
        "ended": {
            # transaction time: why the store stopped believing the row, and which row did it
            "invalid_at": plain(f.invalid_at),
            "invalid_reason": f.invalid_reason,
            "invalidated_by": plain(detail.enders.get(f.invalidated_by or -1)),
            # valid time: why it stopped being true in the user's world
            "valid_until": plain(f.valid_until),
            "end_reason": f.end_reason,
            "ended_by": plain(detail.enders.get(f.ended_by or -1)),
        },
        "enders": {str(k): v.as_json() for k, v in detail.enders.items()},
        "episodes": plain(detail.episodes),
        "model_calls": plain(detail.calls),
    }


def trace_json(trace: EpisodeTrace, transcript: list[Any]) -> dict[str, Any]:
    return {
        "dataset": trace.dataset,
        "project_id": trace.project_id,
        "episode_id": trace.episode_id,
        "ledger": plain(trace.ledger),
        "transcript": plain(transcript),
        "model_calls": plain(trace.calls),
        "drops": plain(trace.drops),
        "mends": plain(trace.mends),
        "facts_added": plain(trace.facts_added),
        "facts_ended": plain(trace.facts_ended),
    }


class Json(JSONResponse):
    """JSON that keeps every script as it is (no \\u escapes); datetimes as ISO 8601."""

    def render(self, content: Any) -> bytes:
        return json.dumps(plain(content), ensure_ascii=False, default=str).encode("utf-8")
