"""The Playground's pipeline pages: lag per stage over the last minutes (a chart the page
redraws from /api/pipeline/lag), dead-letter counts, a stage's dead letters, and one dead
letter decoded, with a redrive button that asks for confirmation first."""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import HTMLResponse

from streams.api import pipeline_view
from streams.api.context import ctx_of, stage_of
from streams.api.html import link, page, show_millis, table, tag
from streams.api.pages import html
from streams.api.params import not_found, path_int
from streams.ops import dlq


async def pipeline_page(request: Request) -> HTMLResponse:
    ctx = ctx_of(request)
    if not ctx.lag.samples:
        await asyncio.to_thread(ctx.lag.sample)
    latest = ctx.lag.samples[-1]
    counts = await asyncio.to_thread(pipeline_view.dead_letter_counts, ctx.settings)
    lag_rows = [
        [stage, ctx.lag.groups[stage],
         "?" if latest.lag[stage] is None else latest.lag[stage], latest.errors.get(stage, "")]
        for stage in latest.lag
    ]  # fmt: skip
    dlq_rows = [
        [link(f"/pipeline/dlq/{stage}", stage), c["topic"],
         "?" if c["count"] is None else c["count"], c.get("error", "")]
        for stage, c in counts.items()
    ]  # fmt: skip
    body = [
        tag("h2", f"lag per stage, last {ctx.lag.window_s / 60:.0f} minutes"),
        tag("div", tag("svg", id="lag-chart", width=900, height=260), id="lag-chart-box",
            data_interval_s=ctx.lag.interval_s),
        table(["stage", "consumer group", "lag now", "error"], lag_rows, id="lag-now"),
        tag("h2", "dead letters"),
        table(["stage", "topic", "dead letters", "error"], dlq_rows, id="dlq-counts"),
    ]  # fmt: skip
    return html(page("Pipeline", *body, script="lagChart"))


async def dlq_stage_page(request: Request) -> HTMLResponse:
    stage = stage_of(request)
    settings = ctx_of(request).settings
    letters = await asyncio.to_thread(dlq.list_dead_letters, settings, stage)
    rows = [
        [link(f"/pipeline/dlq/{stage}/{d.record.partition}/{d.record.offset}",
              f"{d.record.partition}/{d.record.offset}"),
         show_millis(d.record.timestamp_ms), d.tenant, d.reason, d.original]
        for d in letters
    ]  # fmt: skip
    body = [
        tag("p", f"topic {settings.dlq_topic(stage)}"),
        table(["id", "time", "tenant (key)", "reason", "original"], rows, id="dead-letters"),
    ]
    return html(page(f"Dead letters of {stage}", *body))


async def dead_letter_page(request: Request) -> HTMLResponse:
    stage = stage_of(request)
    partition = path_int(request.path_params["partition"], "partition")
    offset = path_int(request.path_params["offset"], "offset")
    settings = ctx_of(request).settings
    try:
        letter = await asyncio.to_thread(dlq.get_dead_letter, settings, stage, partition, offset)
    except LookupError as exc:
        raise not_found(str(exc)) from exc
    shown = pipeline_view.letter_json(letter, full=True)
    confirm = f"{stage} {partition}/{offset}"
    why_not = letter.unroutable_reason()
    body = [
        tag("p", f"{settings.dlq_topic(stage)} {partition}/{offset} ·"
            f" {show_millis(letter.record.timestamp_ms)}"),
        tag("p", "key (tenant): ", tag("code", letter.tenant, id="letter-key")),
        tag("h2", "headers"),
        table(["name", "value"], [[k, tag("pre", v)] for k, v in shown["headers"]],
              id="letter-headers"),
        tag("h2", f"payload ({shown['payload']['kind']}, {shown['payload']['bytes']} bytes)"),
        tag("pre", shown["payload"]["text"], id="letter-payload"),
        tag("h2", "redrive"),
        tag("p", f"cannot be redriven: {why_not}", class_="error") if why_not else tag(
            "p", "Re-produces this record, with its original key and headers, to ",
            tag("code", letter.original.rsplit("/", 2)[0]),
            ". Fix the cause first. Each dead letter is sent at most once.",
        ),
        tag("button", "Redrive this dead letter", id="redrive", disabled=why_not is not None,
            data_url=f"/api/pipeline/dlq/{stage}/{partition}/{offset}/redrive",
            data_confirm=confirm),
        tag("pre", "", id="redrive-result"),
    ]  # fmt: skip
    return html(page(f"Dead letter {stage} {partition}/{offset}", *body, script="redrive"))
