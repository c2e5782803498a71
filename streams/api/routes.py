"""The HTTP JSON read API: thin handlers over streams/api/reader.py and search.py.

Every tenant-scoped path carries the tenant (``/api/tenants/{dataset}/{project}/...``) and
every query under it filters on it. Parameters are checked in streams/api/params.py; a
bad one answers 400 with ``{"error": ...}``, an id the tenant does not have 404.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from streams.api import pipeline_view, reader
from streams.api.context import ctx_of, stage_of, tenant_of
from streams.api.jsonable import Json, detail_json, search_json, trace_json
from streams.api.params import (
    ApiError,
    bad,
    not_found,
    opt_bool,
    opt_float,
    opt_int,
    opt_time,
    path_int,
)
from streams.api.search import MAX_QUERY_CHARS, SearchQuery, search
from streams.domain.mends import Caps
from streams.ops import dlq
from streams.store.traces import EpisodeTrace


def clock_params(request: Request) -> dict[str, Any]:
    """valid_at / as_of / history, as facts_at and history take them."""
    q = request.query_params
    history = opt_bool(q, "history")
    valid_at, as_of = opt_time(q, "valid_at"), opt_time(q, "as_of")
    if history and (valid_at is not None or as_of is not None):
        raise bad("history lists every row; it takes no valid_at or as_of")
    return {"valid_at": valid_at, "as_of": as_of, "history": history}


def search_query(request: Request) -> SearchQuery:
    q = request.query_params
    settings = ctx_of(request).settings
    text = (q.get("q") or "").strip()
    if not text:
        raise bad("q: give the text to search for")
    if len(text) > MAX_QUERY_CHARS:
        raise bad(f"q: at most {MAX_QUERY_CHARS} characters")
    given: dict[str, Any] = {}
    if (min_confidence := opt_float(q, "min_confidence", 0.0, 1.0)) is not None:
        given["min_confidence"] = min_confidence
    return SearchQuery.of(
        settings,
        text,
        k=opt_int(q, "k", settings.search_default_k, 1, settings.search_max_k),
        valid_at=opt_time(q, "valid_at"),
        include_ended=opt_bool(q, "include_ended"),
        include_untrusted=opt_bool(q, "include_untrusted"),
        **given,
    )


async def tenants(request: Request) -> Json:
    return Json({"tenants": await reader.tenants(ctx_of(request).pool)})


async def episodes(request: Request) -> Json:
    q = request.query_params
    tenant = None
    if "dataset" in request.path_params:
        tenant = tenant_of(request)
    rows = await reader.episodes(
        ctx_of(request).pool,
        tenant,
        changed_after=opt_time(q, "changed_after"),
        limit=opt_int(q, "limit", 100, 1, 1000),
    )
    return Json({"episodes": rows})


async def facts(request: Request) -> Json:
    dataset, project = tenant_of(request)
    clocks = clock_params(request)
    rows = await reader.facts(ctx_of(request).pool, dataset, project, **clocks)
    return Json({"dataset": dataset, "project_id": project, **clocks, "facts": rows})


async def fact(request: Request) -> Json:
    dataset, project = tenant_of(request)
    fact_id = path_int(request.path_params["fact_id"], "fact id")
    detail = await reader.fact_detail(ctx_of(request).pool, dataset, project, fact_id)
    if detail is None:
        raise not_found(f"{dataset}:{project} has no fact {fact_id}")
    return Json(detail_json(detail))


async def search_facts(request: Request) -> Json:
    dataset, project = tenant_of(request)
    query = search_query(request)
    ctx = ctx_of(request)
    result = await search(ctx.pool, ctx.embedder(), dataset, project, query)
    return Json({"dataset": dataset, "project_id": project, **search_json(query.text, result)})


async def entities(request: Request) -> Json:
    dataset, project = tenant_of(request)
    rows = await reader.entities(ctx_of(request).pool, dataset, project)
    return Json({"dataset": dataset, "project_id": project, "entities": rows})


async def entity_or_404(request: Request) -> tuple[dict[str, Any], list[Any]]:
    """The entity the path names and its facts (the clocks of the query), else a 404;
    the JSON endpoint and the page both read it so."""
    dataset, project = tenant_of(request)
    entity_id = path_int(request.path_params["entity_id"], "entity id")
    found = await reader.entity(
        ctx_of(request).pool, dataset, project, entity_id, **clock_params(request)
    )
    if found is None:
        raise not_found(f"{dataset}:{project} has no entity {entity_id}")
    return found


async def episode_trace_or_404(
    request: Request,
) -> tuple[EpisodeTrace, list[dict[str, Any]]]:
    """The trace and transcript of the episode the path names, else a 404."""
    dataset, project = tenant_of(request)
    episode_id = episode_id_of(request)
    ctx = ctx_of(request)
    found = await reader.episode_trace(
        ctx.pool, dataset, project, episode_id, Caps.of(ctx.settings)
    )
    if found is None:
        raise not_found(f"{dataset}:{project} has no episode {episode_id!r}")
    return found


def episode_id_of(request: Request) -> str:
    """The episode id of ``.../episodes/{id}`` (any characters, "/" too) or of
    ``.../episode?id=`` (the form for "." and "..", which never reach a server in a path)."""
    if "episode_id" in request.path_params:
        found: str = request.path_params["episode_id"]
        return found
    found = request.query_params.get("id", "")
    if not found:
        raise bad("id: give the episode id")
    return found


async def entity(request: Request) -> Json:
    record, rows = await entity_or_404(request)
    return Json({"entity": record, "facts": rows})


async def episode(request: Request) -> Json:
    return Json(trace_json(*await episode_trace_or_404(request)))


# --- the pipeline ------------------------------------------------------------------


async def lag(request: Request) -> Json:
    history = ctx_of(request).lag
    if not history.samples or opt_bool(request.query_params, "fresh"):
        await asyncio.to_thread(history.sample)
    return Json(history.as_json())


async def dead_letter_counts(request: Request) -> Json:
    settings = ctx_of(request).settings
    return Json({"stages": await asyncio.to_thread(pipeline_view.dead_letter_counts, settings)})


async def dead_letters(request: Request) -> Json:
    stage = stage_of(request)
    settings = ctx_of(request).settings
    letters = await asyncio.to_thread(dlq.list_dead_letters, settings, stage)
    return Json({"stage": stage, "dead_letters": [pipeline_view.letter_json(d) for d in letters]})


def _letter_address(request: Request) -> tuple[str, int, int]:
    stage = stage_of(request)
    partition = path_int(request.path_params["partition"], "partition")
    offset = path_int(request.path_params["offset"], "offset")
    return stage, partition, offset


async def dead_letter(request: Request) -> Json:
    stage, partition, offset = _letter_address(request)
    settings = ctx_of(request).settings
    try:
        letter = await asyncio.to_thread(dlq.get_dead_letter, settings, stage, partition, offset)
    except LookupError as exc:
        raise not_found(str(exc)) from exc
    return Json({"stage": stage, **pipeline_view.letter_json(letter, full=True)})


async def redrive(request: Request) -> Json:
    """Redrive one dead letter. The body must confirm it by name, ``{"confirm":
    "<stage> <partition>/<offset>"}``, as JSON: a stray click, a replayed URL or a
    cross-site form (which cannot send JSON without a CORS preflight) redrives nothing."""
    stage, partition, offset = _letter_address(request)
    expected = f"{stage} {partition}/{offset}"
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ApiError(415, "send the confirmation as application/json")
    try:
        body = await request.json()
    except ValueError as exc:
        raise bad("the body is not JSON") from exc
    if not isinstance(body, dict) or body.get("confirm") != expected:
        raise bad(f'confirm the redrive with {{"confirm": "{expected}"}}')
    settings = ctx_of(request).settings
    try:
        done = await asyncio.to_thread(
            pipeline_view.redrive_one, settings, stage, partition, offset
        )
    except LookupError as exc:
        raise not_found(str(exc)) from exc
    return Json({"stage": stage, **done})


_T = "/api/tenants/{dataset}/{project}"
_DLQ = "/api/pipeline/dlq/{stage}/{partition}/{offset}"

ROUTES = [
    Route("/api/tenants", tenants),
    Route("/api/episodes", episodes),
    Route(_T + "/facts", facts),
    Route(_T + "/facts/{fact_id}", fact),
    Route(_T + "/search", search_facts),
    Route(_T + "/entities", entities),
    Route(_T + "/entities/{entity_id}", entity),
    Route(_T + "/episodes", episodes),
    Route(_T + "/episodes/{episode_id:path}", episode),
    Route(_T + "/episode", episode),
    Route("/api/pipeline/lag", lag),
    Route("/api/pipeline/dlq", dead_letter_counts),
    Route("/api/pipeline/dlq/{stage}", dead_letters),
    Route(_DLQ, dead_letter),
    Route(_DLQ + "/redrive", redrive, methods=["POST"]),
]
