"""Which believed row of its triple a closure meets, and what a later-stated end leaves
of it (the exact pass of deduplication, streams/domain/dedup.py).

A closure ("I sold my Civic 2 weeks ago": the triple with a validUntil) ends the current
row of its triple; failing that, a row a replacement ended after the closure's date, or
a row whose end the user stated (closed by an earlier closure, or said with its own end
and no start). Of two stated ends of one fact the later said stands, whatever the order
they arrive in (DESIGN "Time", rule 2). A copy carrying a closure's end keeps its
original's stated_at, so when an end was said comes from the store (dedup's lookup).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from streams.domain.facts import LiveFact, Triple, instant, same_validity, trusted_to_end
from streams.domain.time import EARLIEST, effective_start, stated_after
from streams.events import Fact


def stated_end(row: LiveFact) -> bool:
    """Whether ``row`` ends where the user said: a closure's end, or one stated with it."""
    return row.valid_until is not None and row.end_reason in (None, "closed")


def order_decides(fact: Fact, row: LiveFact) -> bool:
    """Whether, between closure ``fact`` and the end ``row`` has, the later said stands:
    an end the user stated, or a replacement's end no later than the closure's date ("I
    drive a Toyota", then "I sold my Civic yesterday"). A replacement ends a fact when it
    is said, at the latest: a closure dated inside its period ends it there, said before
    or after (replaced_row_it_closes)."""
    if row.valid_until is None or fact.valid_until is None:
        return False
    if row.end_reason == "superseded":
        return row.valid_until <= fact.valid_until
    return stated_end(row)


def ends_said_unknown(
    facts: Sequence[Fact], believed: Mapping[Triple, Sequence[LiveFact]]
) -> list[int]:
    """Rows of the batch's triples whose stated_at does not say when their end was said:
    those a closure or a replacement ended (a copy keeps its original's stated_at; the
    store is asked, rarely). A row said with its own end was said when its end was."""
    triples = {f.triple for f in facts}
    ended = ("closed", "superseded")
    return [r.id for t in triples for r in believed.get(t, ()) if r.end_reason in ended]


def stated_end_it_meets(fact: Fact, rows: Sequence[LiveFact]) -> LiveFact | None:
    """For a closure with no start of its own (or the row's), the newest row of its
    triple whose end the user stated, closed or said with no start ("I sold my Civic 2
    weeks ago", then "I sold it 3 days ago"): both tell the same fact's end."""
    if fact.valid_until is None:
        return None
    for row in reversed(rows):
        if not stated_end(row) or (row.end_reason is None and row.valid_from is not None):
            continue
        if fact.valid_from is None or same_validity(fact.valid_from, row.valid_from):
            return row
    return None


def replaced_row_it_closes(fact: Fact, rows: Sequence[LiveFact]) -> LiveFact | None:
    """The believed row of the triple a closure ends although its valid time already
    ended: a replacement ended it ("I drive a Toyota" ends "drives honda civic" when said,
    at the latest) before the closure's date. When that date lies inside its period ("I
    sold my Civic 12 days ago", said before the Toyota but arriving after it, or after
    it), the user's date is the better end; when after, the later said stands
    (order_decides). A row the user ended at a date of their own is not one: see
    stated_end_it_meets."""
    end = fact.valid_until
    if end is None:
        return None
    for row in reversed(rows):
        if row.valid_until is None or row.end_reason != "superseded":
            continue
        start = effective_start(row.valid_from, row.stated_at or EARLIEST, row.valid_until)
        if start < end:
            return row
    return None


def wholly_before(fact: Fact, row: LiveFact) -> bool:
    """Whether ``fact`` is a period of its own that ended before ``row`` began, by dates the
    user gave both ("I drove a Civic from 2019 until 2020", said after "I've driven my Civic
    since March"): no end of that row, but history beside it."""
    start, end, began = fact.valid_from, fact.valid_until, instant(row.valid_from)
    return start is not None and end is not None and began is not None and end <= began


def before_a_later_end(fact: Fact, row: LiveFact, stated_at: datetime) -> Fact | None:
    """A closure said (at ``stated_at``) before the user stated ``row``'s end: that end
    stands. What the closure tells of the time before ``row`` starts is history up to
    there ("selling my Civic in 10 days", said before "I drive it, selling it in 20 days"
    opened the row); None: it told only the end (no start of its own before the row's)."""
    begins = effective_start(fact.valid_from, stated_at, fact.valid_until)
    start = effective_start(row.valid_from, row.stated_at or EARLIEST, row.valid_until)
    if EARLIEST < begins < start:
        return fact.model_copy(update={"valid_until": start})
    return None


def restates_past_a_plan(
    fact: Fact, current: LiveFact, stated_at: datetime, min_confidence: float
) -> bool:
    """Whether an open-ended ``fact`` restates ``current`` after a plan set its end ("I
    live in Oslo", "moving to Berlin in June", then "I'm staying in Oslo"): no duplicate,
    but a statement the judge weighs against that plan."""
    return (
        fact.valid_until is None
        and current.valid_until is not None
        and current.end_reason == "superseded"
        and not stated_after(current.stated_at, stated_at)
        and trusted_to_end(fact, min_confidence)
    )
