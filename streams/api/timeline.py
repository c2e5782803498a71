"""The memory page's picture of valid time: one bar per fact row, as an inline SVG.

A bar runs from when the row is true (``valid_from``, else when it was said; a row that
had ended by then, whose start is unknown, from the left edge) to its
``valid_until`` (open-ended rows run to the right edge, drawn as open). Rows in the
page's answer (true at valid-at by the belief at as-of) are coloured; every other row is
greyed, and a row the store no longer believed then (the history view draws those too) is
only outlined. A row ended by another (superseded, closed, cascade: ``ended_by``, else
``invalidated_by``) gets a link to the bar of the row that ended it, with why.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from streams.api.html import Markup, link, show_time, tag
from streams.domain.time import EARLIEST, effective_start
from streams.store.facts_query import FactRow

WIDTH, LABELS, ROW, TOP = 1100, 330, 24, 34


def _start(row: FactRow) -> datetime | None:
    """Where the row's valid time starts; None when unknown (it ended before it was said)."""
    start = effective_start(row.valid_from, row.stated_at, row.valid_until)
    return None if start == EARLIEST else start


def _label(row: FactRow) -> str:
    text = f"#{row.id} {row.subject} {row.predicate} {row.object}"
    return text if len(text) <= 46 else text[:45] + "…"


def _span(rows: Sequence[FactRow], now: datetime, cursor: datetime) -> tuple[datetime, datetime]:
    ends = [r.valid_until for r in rows if r.valid_until] + [now, cursor]
    starts = [_start(r) or r.valid_until or now for r in rows] + [cursor]
    low, high = min(starts), max(ends)
    pad = max((high - low) * 0.06, timedelta(hours=1))
    return low - pad, high + pad


def _ticks(low: datetime, high: datetime, x: object, count: int = 6) -> list[Markup]:
    marks = []
    for i in range(count + 1):
        at = low + (high - low) * (i / count)
        px = x(at)  # type: ignore[operator]
        marks.append(tag("line", x1=px, x2=px, y1=TOP - 6, y2="100%", class_="tick"))
        # The last label ends at its tick, so the right edge does not cut it off.
        anchor = "end" if i == count else None
        marks.append(tag("text", at.strftime("%Y-%m-%d"), x=px, y=TOP - 12,
                         class_="tick-label", text_anchor=anchor))  # fmt: skip
    return marks


def _why(row: FactRow) -> tuple[int | None, str]:
    if row.ended_by is not None:
        return row.ended_by, row.end_reason or "ended"
    return row.invalidated_by, row.invalid_reason or "ended"


def timeline(
    rows: Sequence[FactRow],
    current: set[int],
    *,
    retired: set[int] | None = None,
    cursor: datetime,
    now: datetime,
    fact_href: str,
) -> Markup:
    """``current``: ids of the rows in the page's answer; ``retired``: rows the store no
    longer believed then (drawn outlined, whatever their valid time); ``cursor``: the
    valid-at time; ``fact_href``: the fact page's path prefix (``.../facts/``)."""
    retired = retired or set()
    if not rows:
        return tag("p", "no fact rows to draw", class_="empty")
    low, high = _span(rows, now, cursor)
    scale = (WIDTH - LABELS - 20) / max((high - low).total_seconds(), 1.0)

    def x(at: datetime) -> int:
        return LABELS + round((at - low).total_seconds() * scale)

    def x_start(row: FactRow) -> int:
        start = _start(row)
        return LABELS if start is None else x(start)

    order = sorted(rows, key=lambda r: (r.subject, r.predicate, _start(r) or low, r.id))
    y_of = {r.id: TOP + i * ROW for i, r in enumerate(order)}
    parts: list[Markup] = list(_ticks(low, high, x))
    for r in order:
        y, x0 = y_of[r.id], x_start(r)
        x1 = x(r.valid_until) if r.valid_until else WIDTH - 20
        state = "retired" if r.id in retired else "current" if r.id in current else "ended"
        shape = "open" if r.valid_until is None else "closed"
        since = show_time(_start(r)) or "unknown"
        tip = (
            f"#{r.id} {r.subject} {r.predicate} {r.object}\nvalid {since} →"
            f" {show_time(r.valid_until) or 'open'}\nbelieved {show_time(r.created_at)} →"
            f" {show_time(r.invalid_at) or 'now'}"
        ) + (f" (retired: {r.invalid_reason or 'ended'})" if r.id in retired else "")
        bar = [
            tag("title", tip),
            tag("text", _label(r), x=8, y=y + 15, class_="row-label"),
            tag("rect", x=x0, y=y + 4, width=max(x1 - x0, 3), height=ROW - 8, rx=3),
        ]
        parts.append(
            link(
                f"{fact_href}{r.id}",
                tag("g", *bar, class_=f"bar {state} {shape}", data_fact_id=r.id),
            )
        )
        ender, why = _why(r)
        if ender is not None and ender in y_of:
            y2 = y_of[ender]
            parts.append(
                tag(
                    "g",
                    tag("title", f"#{r.id} {why} by #{ender}"),
                    tag("path", d=f"M{x1} {y + ROW // 2} C{x1 + 30} {y + ROW // 2},"
                        f" {x1 + 30} {y2 + ROW // 2}, {x_start(_row(rows, ender))}"
                        f" {y2 + ROW // 2}"),
                    tag("text", f"{why} by #{ender}", x=x1 + 6, y=y + 15, class_="link-label"),
                    class_=f"link {why}", data_from=r.id, data_to=ender,
                )
            )  # fmt: skip
    cx = x(cursor)
    parts.append(tag("line", x1=cx, x2=cx, y1=TOP - 6, y2="100%", class_="cursor"))
    parts.append(tag("text", "valid at", x=cx + 4, y=TOP - 22, class_="cursor-label"))
    height = TOP + len(order) * ROW + 10
    return tag(
        "svg", *parts, class_="timeline", width=WIDTH, height=height,
        viewBox=f"0 0 {WIDTH} {height}", xmlns="http://www.w3.org/2000/svg",
    )  # fmt: skip


def _row(rows: Sequence[FactRow], fact_id: int) -> FactRow:
    return next(r for r in rows if r.id == fact_id)
