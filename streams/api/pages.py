"""The Playground's pages on memory: episodes as they land, tenants, a tenant's memory
(fact table, timeline, search), one fact. Server-rendered from the reader's functions;
the episodes page then polls the JSON API (static/playground.js). The trace page is in
pages_trace.py, the pipeline's in pages_pipeline.py."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from streams.api import reader
from streams.api.context import ctx_of, tenant_of, tenant_of_names
from streams.api.html import (
    Child,
    Markup,
    episode_path,
    link,
    page,
    seg,
    show_time,
    table,
    tag,
    tenant_path,
)
from streams.api.params import not_found, path_int
from streams.api.routes import clock_params, entity_or_404, search_query
from streams.api.search import search
from streams.api.stage_status import stage_statuses
from streams.api.timeline import timeline
from streams.pipeline import STAGES
from streams.store import facts_query
from streams.store.facts_query import FactRow

EPISODE_COLUMNS = ["tenant", "episode", "completed", *STAGES, "facts", "drops", "updated"]


def html(markup: Markup, status: int = 200) -> HTMLResponse:
    return HTMLResponse(str(markup), status_code=status)


def status_cell(status: str) -> Markup:
    return tag("span", status, class_=f"status s-{status.replace(' ', '-')}")


def episode_row(e: dict[str, Any]) -> list[Child]:
    tp = tenant_path(e["dataset"], e["project_id"])
    stages = stage_statuses(e)
    return [
        link(tp, f"{e['dataset']}:{e['project_id']}"),
        link(episode_path(tp, e["episode_id"]), e["episode_id"], class_="episode-link"),
        show_time(e["completed_at"]),
        *[status_cell(stages[s]) for s in STAGES],
        e["facts_added"],
        e["drops"],
        show_time(e["updated_at"]),
    ]


async def episodes_page(request: Request) -> HTMLResponse:
    """Every tenant's episodes, or one tenant's (``?dataset=...&project=...``)."""
    q = request.query_params
    tenant = None
    if q.get("dataset") and q.get("project"):
        tenant = tenant_of_names(q["dataset"], q["project"])
    rows = await reader.episodes(ctx_of(request).pool, tenant, limit=200)
    latest = max((e["updated_at"] for e in rows), default=None)
    body = [
        tag("p", "Newest first; new and changed episodes appear without reloading.",
            class_="hint"),
        tag(
            "table",
            tag("thead", tag("tr", [tag("th", c) for c in EPISODE_COLUMNS])),
            tag("tbody", [
                tag("tr", [tag("td", c) for c in episode_row(e)],
                    data_key=f"{e['dataset']}:{e['project_id']}:{e['episode_id']}")
                for e in rows
            ]),
            id="episodes", data_changed_after=latest.isoformat() if latest else "",
            data_dataset=tenant[0] if tenant else None,
            data_project=tenant[1] if tenant else None,
        ),
    ]  # fmt: skip
    return html(page("Episodes", *body, script="episodesFeed"))


async def tenants_page(request: Request) -> HTMLResponse:
    rows = await reader.tenants(ctx_of(request).pool)
    cells = [
        [link(tenant_path(t["dataset"], t["project_id"]), f"{t['dataset']}:{t['project_id']}"),
         t["episodes"], t["facts"]]
        for t in rows
    ]  # fmt: skip
    return html(page("Memory", table(["tenant", "episodes", "believed fact rows"], cells)))


def _picker(name: str, label: str, value: datetime | None) -> Markup:
    shown = value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S") if value else ""
    return tag("label", label, tag("input", type="datetime-local", name=name, value=shown,
                                   step=1, id=f"pick-{name}"))  # fmt: skip


def fact_cells(r: FactRow, tp: str, said_in: Mapping[int, str] | None = None) -> list[Child]:
    """One row of a fact table; ``tp``: the tenant's path; ``said_in``: copy id -> the
    episode of the statement it continues (facts_query.said_in)."""
    return [
        link(f"{tp}/facts/{r.id}", f"#{r.id}"), r.subject, r.predicate, r.object,
        f"{r.confidence:.2f}", show_time(r.stated_at), show_time(r.valid_from),
        show_time(r.valid_until), show_time(r.created_at), show_time(r.invalid_at),
        _ended_cell(r, f"{tp}/facts/"), r.untrusted_reason or "",
        _episode_cell(r, tp, (said_in or {}).get(r.id)),
    ]  # fmt: skip


def _ended_cell(r: FactRow, href: str) -> Child:
    """Why the row's valid time ends, or why it was retired in transaction time. A row
    retired by a closure or a cascade names its own copy, which carries the end: it was
    continued by that row, not ended by it."""
    if r.copy_of is None and r.invalidated_by and r.invalid_reason in ("closed", "cascade"):
        copy = r.invalidated_by
        return ["retired: continued by ", link(f"{href}{copy}", f"#{copy}"),
                f", which ends it ({r.invalid_reason})"]  # fmt: skip
    ends = r.end_reason or r.invalid_reason or ""
    by = r.ended_by or r.invalidated_by
    return [ends, " by ", link(f"{href}{by}", f"#{by}")] if by else ends


def _episode_cell(r: FactRow, tp: str, said_in: str | None) -> Child:
    """The episode the statement was said in; a copy names also the one that ended it."""
    if said_in is None or said_in == r.episode_id:
        return link(episode_path(tp, r.episode_id), r.episode_id)
    return [link(episode_path(tp, said_in), said_in), " (end from ",
            link(episode_path(tp, r.episode_id), r.episode_id), ")"]  # fmt: skip


FACT_COLUMNS = ["id", "subject", "predicate", "object", "conf.", "said", "valid from",
                "valid until", "believed from", "believed until", "ended because",
                "untrusted because", "episode"]  # fmt: skip


def believed(row: FactRow, as_of: datetime | None) -> bool:
    """The store believed the row at ``as_of`` (None: now), whatever its valid time."""
    if as_of is None:
        return row.invalid_at is None
    return row.created_at <= as_of and (row.invalid_at is None or row.invalid_at > as_of)


async def memory_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    pool = ctx_of(request).pool
    clocks = clock_params(request)
    valid_at, as_of = clocks["valid_at"], clocks["as_of"]
    answer = await reader.facts(pool, dataset, project, **clocks)
    history = await reader.facts(pool, dataset, project, history=True)
    drawn = [r for r in history if clocks["history"] or believed(r, as_of)]
    # Rows the store no longer believed then: only the history view draws them.
    retired = {r.id for r in drawn if not believed(r, as_of)}
    said_in = await facts_query.said_in(pool, dataset, project, answer)
    now = datetime.now(UTC)
    tp = tenant_path(dataset, project)
    href = f"{tp}/facts/"
    what = "every row ever written" if clocks["history"] else (
        ", ".join(p for p in (valid_at and f"true at {show_time(valid_at)}",
                              as_of and f"as believed at {show_time(as_of)}") if p)
        or "live: believed now and true now")  # fmt: skip
    pickers = tag(
        "form",
        _picker("valid_at", "valid at ", valid_at), _picker("as_of", "as of ", as_of),
        tag("label", tag("input", type="checkbox", name="history", value="true",
                         checked=clocks["history"]), " history"),
        tag("button", "show", type="submit"), link(tp, "now", class_="reset"),
        method="get", class_="pickers", id="clock-pickers",
    )  # fmt: skip
    search_form = tag(
        "form", tag("input", type="search", name="q", placeholder="search this memory",
                    id="search-q"),
        tag("button", "search", type="submit"), method="get", action=f"{tp}/search",
        class_="search",
    )  # fmt: skip
    body = [
        tag("p", link(f"{tp}/entities", "entities"), " · ",
            link(f"/?dataset={seg(dataset)}&project={seg(project)}", "episodes")),
        search_form, pickers,
        tag("h2", f"valid time: {len(drawn)} rows "
            f"{'ever written' if clocks['history'] else 'believed then'}"
            "; coloured: in the answer below, grey: not true then, outlined: retired"
            " (no longer believed)"),
        timeline(drawn, {r.id for r in answer} - retired, retired=retired,
                 cursor=valid_at or now, now=now, fact_href=href),
        tag("h2", f"facts: {what} ({len(answer)} rows)"),
        table(FACT_COLUMNS, [fact_cells(r, tp, said_in) for r in answer], id="facts"),
    ]  # fmt: skip
    return html(page(f"Memory of {dataset}:{project}", *body))


async def search_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    ctx = ctx_of(request)
    query = search_query(request)
    result = await search(ctx.pool, ctx.embedder(), dataset, project, query)
    href = f"{tenant_path(dataset, project)}/facts/"
    rows = [
        [f"{hit.score:.4f}", hit.vector_rank or "", f"{hit.similarity:.3f}" if hit.similarity
         is not None else "", hit.text_rank or "", link(f"{href}{hit.fact.id}", f"#{hit.fact.id}"),
         " ".join(hit.fact.triple), hit.fact.source_quote, hit.said_in]
        for hit in result.hits
    ]  # fmt: skip
    body = [
        tag("p", "query: ", tag("q", query.text)),
        tag("p", f"vector half unavailable: {result.embedding_error}", class_="error")
        if result.embedding_error else None,
        table(["score", "vector rank", "similarity", "text rank", "id", "fact", "quote",
               "episode"], rows, id="results"),
    ]  # fmt: skip
    return html(page(f"Search {dataset}:{project}", *body))


async def fact_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    fact_id = path_int(request.path_params["fact_id"], "fact id")
    detail = await reader.fact_detail(ctx_of(request).pool, dataset, project, fact_id)
    if detail is None:
        raise not_found(f"{dataset}:{project} has no fact {fact_id}")
    tp = tenant_path(dataset, project)
    href = f"{tp}/facts/"
    f = detail.fact
    episodes = [
        tag("li", link(episode_path(tp, e), e), ": ",
            [[tag("q", m.get("content", "")), " "] for m in (ep.get("transcript") or [])
             if isinstance(m, dict) and m.get("role") == "user"])
        for e, ep in detail.episodes.items()
    ]  # fmt: skip
    body = [
        tag("p", tag("strong", " ".join(f.triple)), f" ({f.kind}, confidence {f.confidence:.2f})"),
        tag("p", "quote: ", tag("q", f.source_quote)),
        tag("p", f"untrusted: {f.untrusted_reason}", class_="error") if f.untrusted_reason
        else None,
        [tag("p", f"#{r.id} ended in the user's words: ", tag("q", r.end_quote))
         for r in detail.lineage if r.end_quote],
        tag("h2", "its rows on both clocks"),
        table(FACT_COLUMNS, [fact_cells(r, tp, detail.said_in) for r in detail.lineage],
              id="lineage"),
        tag("h2", "what ended it"),
        table(["id", "fact", "why", "episode"],
              [[link(f"{href}{e.id}", f"#{e.id}"), " ".join(e.triple),
                _ended_why(detail.lineage, e.id), e.episode_id]
               for e in detail.enders.values()], id="enders"),
        tag("h2", "episodes"), tag("ul", episodes),
        tag("h2", f"model calls of those episodes ({len(detail.calls)})"),
        tag("p", "the full requests and responses are on the episode pages above"),
        table(["#", "episode", "stage", "kind", "model", "latency ms", "error"],
              [[c["id"], c["episode_id"], c["stage"], c["kind"], c["model"],
                f"{c['latency_ms']:.0f}", c["error"] or ""] for c in detail.calls]),
    ]  # fmt: skip
    return html(page(f"Fact #{f.id} of {dataset}:{project}", *body))


def _ended_why(lineage: list[FactRow], ender: int) -> str:
    whys = {r.end_reason or "" for r in lineage if r.ended_by == ender}
    whys |= {r.invalid_reason or "" for r in lineage if r.invalidated_by == ender}
    return ", ".join(sorted(w for w in whys if w))


async def entities_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    rows = await reader.entities(ctx_of(request).pool, dataset, project)
    tp = tenant_path(dataset, project)
    cells = [[link(f"{tp}/entities/{e['id']}", e["name"]), e["type"], e["facts"]] for e in rows]
    return html(page(f"Entities of {dataset}:{project}", table(["name", "type", "facts"], cells)))


async def entity_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    record, rows = await entity_or_404(request)
    tp = tenant_path(dataset, project)
    body = [
        tag("p", f"type {record['type']}"),
        table(FACT_COLUMNS, [fact_cells(r, tp) for r in rows], id="facts"),
    ]
    return html(page(f"Entity {record['name']} of {dataset}:{project}", *body))
