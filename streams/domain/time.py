"""The three clocks of a fact, as pure rules (DESIGN "Time: three clocks per fact").

- stated_at: when the user said it (the episode's completed_at: event time);
- valid time, valid_from / valid_until: when it is true in the user's world;
- transaction time, created_at / invalid_at: when the store believed it.

A fact without a valid_from is taken as true from when it was said, unless it ended by
then ("I lived in Paris until 2020", said today; "I live in Berlin" on June 1, then "I
moved to Munich in March"): its start is unknown, so it is true up to its end. A believed
fact is
*current* while its valid time has not ended (a future start included: "joining Acme on
March 1" is believed now and current, though not yet true); *live* means true now.
"""

from __future__ import annotations

from datetime import UTC, datetime

from streams.domain.facts import instant

EARLIEST = datetime.min.replace(tzinfo=UTC)  # an unknown start: true up to its end


def effective_start(
    valid_from: datetime | None, stated_at: datetime, valid_until: datetime | None = None
) -> datetime:
    """When a fact starts being true: its valid_from, else when it was said; a fact that
    had ended by then has an unknown start (EARLIEST), never one after its end."""
    start = instant(valid_from)
    if start is not None:
        return start
    end = instant(valid_until)
    return EARLIEST if end is not None and end <= stated_at else stated_at


def is_current(valid_until: datetime | None, now: datetime) -> bool:
    """A believed fact whose valid time has not ended (it may not have started yet)."""
    end = instant(valid_until)
    return end is None or end > now


def valid_at(
    valid_from: datetime | None, valid_until: datetime | None, stated_at: datetime, at: datetime
) -> bool:
    """True in the user's world at ``at``: started by then and not yet ended."""
    end = instant(valid_until)
    return effective_start(valid_from, stated_at, end) <= at and (end is None or end > at)


def supersession_end(
    winner_valid_from: datetime | None,
    winner_valid_until: datetime | None,
    winner_stated_at: datetime,
    *,
    ends_same_object: bool,
) -> datetime:
    """Where a superseded fact's valid time ends: at the winner's start (its valid_from,
    else when it was said); for a winner that ends the same object ("retiring my
    Novablast 5 at the end of the year" against "owns novablast 5"), at its validUntil."""
    if ends_same_object and winner_valid_until is not None:
        return instant(winner_valid_until) or winner_stated_at
    return effective_start(winner_valid_from, winner_stated_at)


def changed_before_start(valid_from: datetime | None, replaced_at: datetime | None) -> bool:
    """Whether a plan was replaced before it began: its start lies after the moment the
    fact replacing it was said ("joining Acme on March 1", then in February "I'm joining
    Beta on April 1 instead"). Such a plan never becomes true: it ends at its own start.
    (A plan that ends at a date the user gives, "at Acme until June", is a closure.)"""
    start, said = instant(valid_from), instant(replaced_at)
    return start is not None and said is not None and said < start


def never_starts(end: datetime, valid_from: datetime | None) -> bool:
    """Whether a fact that ends at ``end`` is never true: it ends at or before its own
    start, a plan overtaken before its date ("joining Acme on March 1", then in February
    "I'm at Beta now"). A fact never ends before it starts."""
    start = instant(valid_from)
    return start is not None and end <= start


def stated_after(stated_at: datetime | None, reference: datetime) -> bool:
    """Whether a fact was said after ``reference`` (unknown: not after). A statement never
    supersedes, closes or cascades a fact said later than itself."""
    said = instant(stated_at)
    return said is not None and said > reference


def earliest(*moments: datetime | None) -> datetime | None:
    """The earliest of the given times that are known (None when none is)."""
    known = [m for m in (instant(x) for x in moments) if m is not None]
    return min(known) if known else None


def began_later(
    valid_from: datetime | None, other_from: datetime | None, other_said: datetime
) -> bool:
    """Whether a fact began after another one did, by starts the user gave both, and had
    begun by the time the other was said (so it is no plan the other replaces): the other
    tells of an earlier time ("I've worked at Google since last year", said after "I've
    been at Anthropic since last month"), history that ends where this fact starts."""
    start, other = instant(valid_from), instant(other_from)
    return start is not None and other is not None and other < start <= other_said


def gave_only_its_end(
    row_from: datetime | None,
    row_until: datetime | None,
    row_said: datetime | None,
    row_end_reason: str | None,
    fact_from: datetime | None,
    fact_said: datetime,
) -> bool:
    """Whether a row of a fact's triple, said after the fact, only told when the fact
    ends: it states its own end but no start (taken as when it was said, or unknown), and
    the fact, said before it, starts after that ("I'm moving to Berlin next month",
    reaching the pipeline after "I'm no longer moving to Berlin"). Processed in the order
    said, that row would have closed the fact; it never said the fact held before then."""
    end = instant(row_until)
    start = instant(fact_from)
    if row_from is not None or row_end_reason is not None or end is None or start is None:
        return False
    said = instant(row_said)
    return (
        said is not None
        and stated_after(said, fact_said)
        and start > effective_start(None, said, end)
    )
