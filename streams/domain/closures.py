"""A candidate that ends a stored row of its triple, or comes after one said to end.

The exact dedup pass's harder cases (streams/domain/dedup.py): a closure that ends a row,
or is not trusted to, or meets an end said later; and an open-ended candidate arriving
after a row whose end was said later, or that ended already, which makes it history up to
where that row starts, or adds nothing. Also the record of a candidate dedup drops.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from streams.domain.facts import LiveFact, distrust, instant, trusted_to_end
from streams.domain.stated_ends import before_a_later_end, order_decides
from streams.domain.time import (
    EARLIEST,
    effective_start,
    gave_only_its_end,
    is_current,
    stated_after,
)
from streams.events import Closure, Dropped, DropStage, Fact

UNTRUSTED_CLOSURE = "untrusted_closure"
ENDED_LATER = "ended_later"
# How the detail of a closure dropped as ENDED_LATER begins, with the row's id after it:
# the end it restates (streams/store/retraction.py keeps that end for it).
ENDS_FACT = "ends fact #"


def drop(fact: Fact, reason: str, detail: str) -> Dropped:
    """``fact`` dropped by dedup for ``reason``, ``detail`` saying against what."""
    return Dropped(
        stage=DropStage.DEDUP,
        reason=reason,
        detail=detail[:1000],
        subject=fact.subject,
        predicate=fact.predicate,
        object=fact.object,
    )


def quoted(text: str, limit: int = 300) -> str:
    """``text`` quoted for a drop's detail, cut to ``limit`` characters."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def closure_of(
    fact: Fact,
    row: LiveFact,
    stated_at: datetime,
    min_confidence: float,
    ends_said: Mapping[int, datetime],
) -> Closure | Fact | Dropped:
    """What a closure ``fact`` (said at ``stated_at``) does to ``row`` of its triple: end
    it (the writer cascades), or, against a row said later, go on as a fact of its own;
    against an end said later (stated_ends.order_decides), it keeps only the time before
    that row."""
    if not trusted_to_end(fact, min_confidence):
        detail = (
            f"would end live fact #{row.id} {quoted(row.sentence())}, but is not"
            f" trusted to end a fact: {distrust(fact, min_confidence)}"
        )
        return drop(fact, UNTRUSTED_CLOSURE, detail)
    if order_decides(fact, row) and stated_after(ends_said.get(row.id, row.stated_at), stated_at):
        end = instant(row.valid_until)
        assert end is not None
        detail = (
            f"{ENDS_FACT}{row.id} {quoted(row.sentence())}, whose end ({end.isoformat()}) was"
            " said later: the later statement stands"
        )
        return before_a_later_end(fact, row, stated_at) or drop(fact, ENDED_LATER, detail)
    if stated_after(row.stated_at, stated_at):
        return fact
    return Closure(
        fact_id=row.id, subject=row.subject, predicate=row.predicate, object=row.object,
        valid_until=fact.valid_until, quote=fact.source_quote,
    )  # fmt: skip


def bounded_by_an_end(
    fact: Fact, rows: Sequence[LiveFact], stated_at: datetime, now: datetime,
    ends_said: Mapping[int, datetime],
) -> Fact | Dropped | None:  # fmt: skip
    """An open-ended ``fact`` arriving after a row of its triple that says when the fact
    ends: one whose end was said later ("I drive a Civic", reaching the pipeline after "I
    sold my Civic last week"), or one ended already, whose period holds the fact's start and was not
    over when the fact was said. Processed in the order said, that end would have closed
    ``fact``; here ``fact`` is history up to where that row starts, or, when the row's
    period holds its start or ends before it, adds nothing (dropped); against a row that
    gave only its end, it goes on unchanged for the writer to end there. None: no such row
    (an open-ended row of the triple makes ``fact`` a plain duplicate)."""
    if fact.valid_until is not None or any(r.valid_until is None for r in rows):
        return None
    begins = effective_start(fact.valid_from, stated_at)
    for row in reversed(rows):
        if gave_only_its_end(
            row.valid_from, row.valid_until, row.stated_at, row.end_reason, fact.valid_from,
            stated_at,
        ):  # fmt: skip
            return fact  # the writer ends it there and retires that row
        end = instant(row.valid_until)
        assert end is not None
        start = effective_start(row.valid_from, row.stated_at or EARLIEST, end)
        holds = start <= begins < end and stated_at < end and not is_current(end, now)
        if not holds and not stated_after(ends_said.get(row.id, row.stated_at), stated_at):
            continue
        if end <= begins or start <= begins:
            detail = (
                f"said before or within fact #{row.id} {quoted(row.sentence())}, valid until"
                f" {end.isoformat()}, which ends it no later and holds its start"
            )
            return drop(fact, ENDED_LATER, detail)
        return fact.model_copy(update={"valid_until": start})
    return None
