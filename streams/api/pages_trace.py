"""The Playground's episode page: why each fact of one episode is there, or is not.

The ledger and each stage's status, the user's messages, every model call in full
(prompt, response schema, the raw reply, the parsed value, tokens, latency, attempts,
errors), what the guards mended silently (a type, a predicate, a cap, a confidence, a
date, a kind, the user added), what each guard, dedup, judge and write step dropped and
why, the judge's verdict on each pair, and what the writer added and ended.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from streams.api.calls_view import view
from streams.api.context import tenant_of
from streams.api.html import (
    Child,
    Markup,
    link,
    page,
    pretty_json,
    show_time,
    table,
    tag,
    tenant_path,
)
from streams.api.pages import html, status_cell
from streams.api.routes import episode_id_of, episode_trace_or_404
from streams.api.stage_status import stage_statuses
from streams.pipeline import STAGES
from streams.store.traces import EpisodeTrace

DROP_ORDER = ("guard", "dedup", "judge", "write")


def _pre(value: Any, class_: str) -> Markup:
    text = value if isinstance(value, str) else pretty_json(value)
    return tag("pre", text, class_=class_)


def call_block(number: int, call: dict[str, Any], scope: dict[str, str]) -> Markup:
    v = view(call, scope)
    tokens = f"tokens {call.get('input_tokens')}→{call.get('output_tokens')}"
    head = (
        f"#{number} {call['stage']} · {call['kind']} · {call['model']} ·"
        f" {call['latency_ms']:.0f} ms · {tokens} · attempts {call['attempts']}"
    )
    parts: list[Child] = [tag("summary", head, tag("span", " · error", class_="error")
                              if call.get("error") else None)]  # fmt: skip
    if call.get("error"):
        parts.append(tag("p", "error: ", tag("span", call["error"], class_="error")))
    if v.prompt is not None:
        note = f" ({v.prompt_note})" if v.prompt_note else " (as sent)"
        parts += [tag("h4", "prompt", tag("small", note)), _pre(v.prompt, "prompt")]
    if v.schema is not None:
        note = f" ({v.schema_note})" if v.schema_note else " (as sent)"
        parts += [tag("h4", "response schema", tag("small", note)), _pre(v.schema, "schema")]
    parts += [tag("h4", "request (as stored)"), _pre(call.get("request"), "request")]
    if v.reply_text is not None:
        parts += [tag("h4", "raw reply text (as received)"), _pre(v.reply_text, "raw-reply")]
    parts += [tag("h4", "response (as stored)"), _pre(call.get("response"), "response")]
    return tag("details", *parts, class_=f"call kind-{call['kind']}", open=call["kind"] != "embed",
               data_stage=call["stage"])  # fmt: skip


def _verdicts(calls: list[dict[str, Any]]) -> list[list[Child]]:
    """The judge's answer pair by pair: candidate, existing fact, verdict."""
    rows: list[list[Child]] = []
    for call in calls:
        if call["kind"] != "judge":
            continue
        request = call.get("request") or {}
        pairs = (request.get("input") or request).get("pairs") or []
        response = call.get("response") or {}
        answer = response.get("parsed") if isinstance(response.get("parsed"), dict) else response
        verdicts = {
            v.get("pair_id"): v.get("verdict")
            for v in (answer or {}).get("verdicts") or []
            if isinstance(v, dict)
        }
        for p in pairs if isinstance(pairs, list) else []:
            if isinstance(p, dict):
                verdict = verdicts.get(p.get("pair_id"), "none (counts as neither)")
                rows.append([p.get("pair_id"), p.get("candidate"), p.get("existing"), verdict])
    return rows


def _drops(trace: EpisodeTrace) -> list[Markup]:
    out: list[Markup] = []
    for stage in (*DROP_ORDER, *sorted({d["stage"] for d in trace.drops} - set(DROP_ORDER))):
        drops = [d for d in trace.drops if d["stage"] == stage]
        if drops:
            out.append(tag("h3", f"dropped by {stage} ({len(drops)})"))
            out.append(table(
                ["reason", "subject", "predicate", "object", "detail"],
                [[d["reason"], d["subject"], d["predicate"], d["object"], d["detail"]]
                 for d in drops], class_=f"drops drops-{stage}",
            ))  # fmt: skip
    return out or [tag("p", "nothing was dropped", class_="empty")]


def _ledger(trace: EpisodeTrace) -> Markup:
    row = trace.ledger
    claim = f"claimed by {row['claimed_by']} at {show_time(row['claimed_at'])}" if row.get(
        "claimed_at") else f"no claim held (last: {row.get('claimed_by') or '-'})"  # fmt: skip
    return table(
        ["path", "status", "retries", "last error / claim"],
        [["summary", status_cell(row["status"]), row["retry_count"], row["last_error"] or ""],
         ["extraction", status_cell(row["semantic_status"]), row["semantic_retry_count"],
          row["semantic_last_error"] or ""],
         ["claim", "", "", claim]], id="ledger",
    )  # fmt: skip


def _row_kind(f: dict[str, Any]) -> str:
    """A new statement, or the copy of an older row that carries the end this episode gave it."""
    if f.get("copy_of") is None:
        return "new"
    why = f.get("end_reason") or "ended"
    by = f" by #{f['ended_by']}" if f.get("ended_by") else ""
    return f"copy of #{f['copy_of']}: {why}{by}"


async def episode_page(request: Request) -> HTMLResponse:
    dataset, project = tenant_of(request)
    episode_id = episode_id_of(request)
    trace, transcript = await episode_trace_or_404(request)
    tp = tenant_path(dataset, project)
    scope = {"dataset": dataset, "project_id": project, "episode_id": episode_id}
    calls = trace.calls
    called = {"call_stages": [c["stage"] for c in calls],
              "failed_stages": [c["stage"] for c in calls if c["error"]]}  # fmt: skip
    stages = stage_statuses({**trace.ledger, **called})
    ledger = trace.ledger
    body = [
        tag("p", link(tp, f"memory of {dataset}:{project}"),
            f" · session {ledger['session_id']}, window {ledger['from_seq']}..{ledger['to_seq']}"),
        table(list(STAGES), [[status_cell(stages[s]) for s in STAGES]], id="stages"),
        _ledger(trace),
        tag("h2", "messages"),
        table(["seq", "role", "content"],
              [[m.get("seq"), m.get("role"), m.get("content")] for m in transcript
               if isinstance(m, dict)], id="transcript"),
        tag("h2", f"model calls ({len(calls)})"),
        tag("div", [call_block(i, c, scope) for i, c in enumerate(calls, 1)], id="calls"),
        tag("h2", "judge verdicts"),
        table(["pair", "candidate", "existing", "verdict"], _verdicts(calls), id="verdicts"),
        tag("h2", f"mended by the guards ({len(trace.mends)})"),
        table(["what", "entity / claim", "model gave", "stored", "why"],
              [[m["what"], m["item"], m["given"], m["stored"], m["why"]] for m in trace.mends],
              id="mends"),
        tag("h2", "dropped, and why"),
        *_drops(trace),
        tag("h2", f"what the writer added ({len(trace.facts_added)})"),
        table(["id", "fact", "row", "kind", "confidence", "trust", "valid from", "valid until",
               "now"],
              [[link(f"{tp}/facts/{f['id']}", f"#{f['id']}"),
                f"{f['subject']} {f['predicate']} {f['object']}", _row_kind(f), f["kind"],
                f"{f['confidence']:.2f}", f["untrusted_reason"] or "trusted",
                show_time(f["valid_from"]), show_time(f["valid_until"]),
                f["invalid_reason"] or "believed"] for f in trace.facts_added], id="added"),
        tag("h2", f"what the writer ended ({len(trace.facts_ended)})"),
        table(["id", "fact", "why", "at", "by"],
              [[link(f"{tp}/facts/{f['id']}", f"#{f['id']}"),
                f"{f['subject']} {f['predicate']} {f['object']}", f["invalid_reason"],
                show_time(f["invalid_at"]), f"#{f['invalidated_by']}"]
               for f in trace.facts_ended], id="ended"),
    ]  # fmt: skip
    return html(page(f"Episode {episode_id} of {dataset}:{project}", *body))
