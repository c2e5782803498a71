"""The time rules as pure functions: starts, ends, event-time order (streams/domain/time.py),
and what they do to judging and dedup."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from streams.domain import dedup
from streams.domain.contradictions import Pair, PairRule, apply_verdicts
from streams.domain.facts import LiveFact
from streams.domain.stated_ends import ends_said_unknown
from streams.domain.time import (
    EARLIEST,
    began_later,
    changed_before_start,
    earliest,
    effective_start,
    gave_only_its_end,
    is_current,
    never_starts,
    stated_after,
    supersession_end,
    valid_at,
)
from streams.events import Candidate, Verdict
from tests.support.facts import fact

NOW = datetime.now(UTC).replace(microsecond=0)
DAY = timedelta(days=1)


def test_a_fact_without_a_start_is_true_from_when_it_was_said() -> None:
    assert effective_start(None, NOW - DAY) == NOW - DAY
    assert effective_start(NOW - 30 * DAY, NOW - DAY) == NOW - 30 * DAY
    naive = (NOW - 2 * DAY).replace(tzinfo=None)  # taken as UTC, as asyncpg stores it
    assert effective_start(naive, NOW) == NOW - 2 * DAY


def test_a_fact_that_ended_before_it_was_said_has_an_unknown_start() -> None:
    said, ended = NOW - DAY, NOW - 400 * DAY  # "I lived in Paris until last autumn"
    assert effective_start(None, said, ended) == EARLIEST
    assert valid_at(None, ended, said, ended - 30 * DAY) and not valid_at(None, ended, said, said)
    assert effective_start(None, said, NOW + DAY) == said  # ends later: from when said
    assert effective_start(NOW - 500 * DAY, said, ended) == NOW - 500 * DAY
    assert not valid_at(NOW - 500 * DAY, ended, said, NOW - 600 * DAY)


def test_valid_at_is_start_inclusive_end_exclusive() -> None:
    said, until = NOW - 10 * DAY, NOW + 5 * DAY
    assert not valid_at(None, until, said, said - timedelta(seconds=1))
    assert valid_at(None, until, said, said)
    assert valid_at(None, until, said, until - timedelta(seconds=1))
    assert not valid_at(None, until, said, until)
    assert valid_at(None, None, said, NOW + 1000 * DAY)
    starts = NOW + 20 * DAY  # believed now, not yet true
    assert not valid_at(starts, None, said, NOW) and valid_at(starts, None, said, starts)


def test_current_means_not_yet_ended_whatever_the_start() -> None:
    assert is_current(None, NOW)
    assert is_current(NOW + DAY, NOW)
    assert not is_current(NOW, NOW) and not is_current(NOW - DAY, NOW)


def test_a_loser_ends_where_the_winner_starts_or_at_an_ending_winners_until() -> None:
    said = NOW - DAY
    assert supersession_end(None, None, said, ends_same_object=False) == said
    assert supersession_end(NOW + 20 * DAY, None, said, ends_same_object=False) == NOW + 20 * DAY
    assert supersession_end(NOW - 30 * DAY, None, said, ends_same_object=False) == NOW - 30 * DAY
    # "retiring my novablast at the end of the year" ends owning it then.
    assert supersession_end(None, NOW + 30 * DAY, said, ends_same_object=True) == NOW + 30 * DAY
    assert supersession_end(None, NOW + 30 * DAY, said, ends_same_object=False) == said


def test_stated_after_and_earliest() -> None:
    assert stated_after(NOW, NOW - DAY) and not stated_after(NOW - DAY, NOW)
    assert not stated_after(NOW, NOW) and not stated_after(None, NOW)
    assert earliest(None, NOW, NOW - DAY) == NOW - DAY and earliest(None, None) is None


def _pair(candidate: int, existing: LiveFact, rule: PairRule = PairRule.SAME_PREDICATE) -> Pair:
    return Pair(pair_id=0, candidate=candidate, existing=existing, rule=rule)


def test_an_old_verdict_for_a_newer_fact_keeps_it_and_stores_the_candidate_as_history() -> None:
    newer = LiveFact(7, "user", "works at", "anthropic", stated_at=NOW - 5 * DAY)
    google = Candidate(fact=fact("user", "works at", "google"))
    judged = apply_verdicts([google], [_pair(0, newer)], {0: Verdict.OLD}, stated_at=NOW - 20 * DAY)
    assert judged.invalidations == []
    (history,) = judged.inserts
    assert (history.fact.valid_until, history.ended_by) == (NOW - 5 * DAY, 7)


def test_a_new_verdict_for_a_newer_fact_keeps_the_older_statement_as_history() -> None:
    """A late older episode the judge calls "new" (the stored, newer fact stands): its
    statement was true until the newer one, as with "old", not dropped."""
    newer = LiveFact(7, "user", "lives in", "lisbon", stated_at=NOW - 2 * DAY)
    madrid = Candidate(fact=fact("user", "lives in", "madrid"))
    judged = apply_verdicts([madrid], [_pair(0, newer)], {0: Verdict.NEW}, stated_at=NOW - 10 * DAY)
    assert judged.invalidations == [] and judged.dropped == []
    (history,) = judged.inserts
    assert (history.fact.valid_until, history.ended_by) == (NOW - 2 * DAY, 7)
    # said after the stored fact, "new" still discards the candidate
    older = LiveFact(8, "user", "lives in", "lisbon", stated_at=NOW - 20 * DAY)
    judged = apply_verdicts([madrid], [_pair(0, older)], {0: Verdict.NEW}, stated_at=NOW - 10 * DAY)
    assert judged.inserts == [] and [d.reason for d in judged.dropped] == ["superseded_by_existing"]


def test_a_fact_ending_at_or_before_its_own_start_never_starts() -> None:
    assert never_starts(NOW + 5 * DAY, NOW + 20 * DAY) and never_starts(NOW, NOW)
    assert not never_starts(NOW + 21 * DAY, NOW + 20 * DAY)
    assert not never_starts(NOW - DAY, None)  # no start of its own: from when it was said


def test_an_older_plan_overtaken_before_its_date_is_dropped_not_stored_inverted() -> None:
    # Said 20 days ago: "joining Acme in 30 days"; said 5 days ago and stored: "at Beta".
    beta = LiveFact(9, "user", "works at", "beta", stated_at=NOW - 5 * DAY)
    acme = Candidate(fact=fact("user", "works at", "acme", since=NOW + 30 * DAY))
    older = LiveFact(4, "user", "works at", "google", stated_at=NOW - 40 * DAY)
    pairs = [_pair(0, beta), Pair(pair_id=1, candidate=0, existing=older,
                                  rule=PairRule.SAME_PREDICATE)]  # fmt: skip
    judged = apply_verdicts([acme], pairs, {0: Verdict.OLD, 1: Verdict.OLD},
                            stated_at=NOW - 20 * DAY)  # fmt: skip
    assert judged.inserts == [] and judged.invalidations == []  # it ends nothing either
    (drop,) = judged.dropped
    assert (drop.reason, drop.object) == ("overtaken_before_start", "acme")
    assert "#9" in drop.detail
    # Overtaken after its start, it is history as before: true from its start to beta's.
    started = Candidate(fact=fact("user", "works at", "acme", since=NOW - 15 * DAY))
    judged = apply_verdicts([started], [_pair(0, beta)], {0: Verdict.OLD},
                            stated_at=NOW - 20 * DAY)  # fmt: skip
    assert [c.fact.valid_until for c in judged.inserts] == [NOW - 5 * DAY]


def test_a_plan_replaced_before_it_begins_ends_at_its_own_start() -> None:
    assert changed_before_start(NOW + 20 * DAY, NOW) and not changed_before_start(None, NOW)
    assert not changed_before_start(NOW - DAY, NOW)  # begun when replaced
    # Said 10 days ago: "joining Acme in 20 days"; now: "joining Beta in 40 days instead".
    acme = LiveFact(5, "user", "works at", "acme", stated_at=NOW - 10 * DAY,
                    valid_from=NOW + 20 * DAY)  # fmt: skip
    beta = Candidate(fact=fact("user", "works at", "beta", since=NOW + 40 * DAY))
    judged = apply_verdicts([beta], [_pair(0, acme)], {0: Verdict.OLD}, stated_at=NOW)
    (ends,) = judged.invalidations
    assert (ends.fact_id, ends.valid_until) == (5, NOW + 20 * DAY)  # never true
    # A plan the user says will end at a date is closed there, not cancelled.
    closes = Candidate(fact=fact("user", "works at", "acme", until=NOW + 60 * DAY))
    pair = Pair(pair_id=0, candidate=0, existing=acme, rule=PairRule.ENDS_RELATIONSHIP)
    judged = apply_verdicts([closes], [pair], {0: Verdict.OLD}, stated_at=NOW)
    assert [i.valid_until for i in judged.invalidations] == [NOW + 60 * DAY]


def test_an_old_verdict_ends_an_older_fact_at_the_candidates_start() -> None:
    older = LiveFact(3, "user", "works at", "google", stated_at=NOW - 40 * DAY)
    acme = Candidate(fact=fact("user", "works at", "acme", since=NOW + 20 * DAY))
    judged = apply_verdicts([acme], [_pair(0, older)], {0: Verdict.OLD}, stated_at=NOW)
    (ends,) = judged.invalidations
    assert (ends.fact_id, ends.valid_until) == (3, NOW + 20 * DAY)
    assert judged.inserts == [acme]  # inserted as said


def test_a_closure_never_ends_a_row_said_later_than_itself() -> None:
    row = LiveFact(5, "user", "drives", "honda civic", stated_at=NOW - DAY)
    sold = fact("user", "drives", "honda civic", until=NOW - 10 * DAY)
    believed = {sold.triple: [row]}
    late = dedup.exact_pass([sold], believed, stated_at=NOW - 20 * DAY, now=NOW)
    assert late.closures == [] and late.survivors == [sold]  # goes on, as history
    timely = dedup.exact_pass([sold], believed, stated_at=NOW, now=NOW)
    assert [c.fact_id for c in timely.closures] == [5]


def test_a_row_that_already_ended_is_history_and_does_not_swallow_a_renewal() -> None:
    ended = LiveFact(2, "user", "is member of", "fitbox", valid_until=NOW - 30 * DAY)
    again = fact("user", "is member of", "fitbox")
    repeat = fact("user", "is member of", "fitbox", until=NOW - 30 * DAY)
    out = dedup.exact_pass([again], {again.triple: [ended]}, stated_at=NOW, now=NOW)
    assert out.survivors == [again] and out.closures == []
    out = dedup.exact_pass([repeat], {repeat.triple: [ended]}, stated_at=NOW, now=NOW)
    assert [d.reason for d in out.dropped] == ["exact_duplicate"]  # the same history twice


def test_a_statement_of_an_earlier_time_is_older_than_a_fact_begun_later() -> None:
    said = NOW - DAY  # "I've worked at Google since last year", after "at Anthropic since May"
    assert began_later(NOW - 30 * DAY, NOW - 400 * DAY, said)
    assert not began_later(NOW + 20 * DAY, NOW - 400 * DAY, said)  # a plan it replaces
    assert not began_later(None, NOW - 400 * DAY, said)  # when it began is not known
    assert not began_later(NOW - 30 * DAY, None, said)
    assert not began_later(NOW - 500 * DAY, NOW - 400 * DAY, said)


def test_an_open_fact_said_within_a_period_that_ended_since_adds_nothing() -> None:
    # "I drive a Civic" (30 days ago), closed by "I sold it a week ago"; then "I drive a
    # Civic", said 20 days ago, arrives: the sale ended it. Said after the sale: a renewal.
    closed = LiveFact(
        4, "user", "drives", "honda civic", valid_until=NOW - 7 * DAY, stated_at=NOW - 30 * DAY
    )
    drives = fact("user", "drives", "honda civic")
    late = dedup.exact_pass([drives], {drives.triple: [closed]}, stated_at=NOW - 20 * DAY, now=NOW)
    assert [d.reason for d in late.dropped] == ["ended_later"] and late.survivors == []
    again = dedup.exact_pass([drives], {drives.triple: [closed]}, stated_at=NOW - DAY, now=NOW)
    assert again.survivors == [drives]
    # said after the sale's date but before the sale was told (yesterday): the sale stands
    told = {4: NOW - DAY / 2}
    late = dedup.exact_pass(
        [drives], {drives.triple: [closed]}, stated_at=NOW - DAY, now=NOW, ends_said=told
    )
    assert [d.reason for d in late.dropped] == ["ended_later"] and late.survivors == []


def test_a_row_said_later_with_an_end_and_no_start_gave_only_a_plans_end() -> None:
    # "I'm moving to Berlin next month" (said 2 days ago) after "I'm no longer moving to
    # Berlin" (said today, dated tomorrow): that row told only where the plan ends.
    plan, said = NOW + 30 * DAY, NOW - 2 * DAY
    assert gave_only_its_end(None, NOW + DAY, NOW, None, plan, said)
    assert gave_only_its_end(None, NOW - DAY, NOW, None, plan, said)  # ended by then
    assert not gave_only_its_end(None, NOW + DAY, NOW, None, None, said)  # no start given
    assert not gave_only_its_end(None, NOW + DAY, NOW - 3 * DAY, None, plan, said)  # earlier
    assert not gave_only_its_end(NOW, NOW + DAY, NOW, None, plan, said)  # a start of its own
    assert not gave_only_its_end(None, NOW + DAY, NOW, "closed", plan, said)  # a copy's end
    assert not gave_only_its_end(None, None, NOW, None, plan, said)  # no end
    # a start before the row's own (when it was said): the row's period stands after it
    assert not gave_only_its_end(None, NOW + DAY, NOW, None, NOW - 10 * DAY, said)


def test_of_two_stated_ends_of_a_fact_the_later_said_stands() -> None:
    # "I drive a Civic" (30 days ago), closed by "sold it 3 days ago" (said yesterday, so
    # its copy keeps the 30-day-old stated_at): "sold it 2 weeks ago", said 2 days ago, is
    # dropped; said today, it closes that row again.
    closed = LiveFact(
        7, "user", "drives", "honda civic", valid_until=NOW - 3 * DAY,
        stated_at=NOW - 30 * DAY, end_reason="closed",
    )  # fmt: skip
    sold = fact("user", "drives", "honda civic", until=NOW - 14 * DAY)
    believed, ends = {sold.triple: [closed]}, {7: NOW - DAY}
    # the store is asked when that end was said only for a row a closure ended
    assert ends_said_unknown([sold], believed) == [7]
    assert ends_said_unknown([fact("user", "drives", "toyota")], believed) == []
    late = dedup.exact_pass([sold], believed, stated_at=NOW - 2 * DAY, now=NOW, ends_said=ends)
    assert [d.reason for d in late.dropped] == ["ended_later"]
    assert late.survivors == [] and late.closures == []
    timely = dedup.exact_pass([sold], believed, stated_at=NOW, now=NOW, ends_said=ends)
    assert [(c.fact_id, c.valid_until) for c in timely.closures] == [(7, NOW - 14 * DAY)]
    # the same against a sale ahead, still current: "selling it in 20 days" said before
    # "selling it in 10 days" is dropped
    ahead = LiveFact(
        8, "user", "drives", "honda civic", valid_until=NOW + 10 * DAY,
        stated_at=NOW - 30 * DAY, end_reason="closed",
    )  # fmt: skip
    later = fact("user", "drives", "honda civic", until=NOW + 20 * DAY)
    out = dedup.exact_pass(
        [later], {later.triple: [ahead]}, stated_at=NOW - 2 * DAY, now=NOW, ends_said={8: NOW}
    )
    assert [d.reason for d in out.dropped] == ["ended_later"] and out.closures == []


def test_a_closure_said_before_a_later_stated_end_keeps_the_time_before_it() -> None:
    # "selling my Civic in 10 days" (said 7 days ago) after "I drive a Civic, selling it in
    # 20 days" (said 5 days ago, its own start): history from when said up to that row.
    row = LiveFact(
        9, "user", "drives", "honda civic", valid_until=NOW + 20 * DAY, stated_at=NOW - 5 * DAY
    )
    sold = fact("user", "drives", "honda civic", until=NOW + 10 * DAY)
    out = dedup.exact_pass([sold], {sold.triple: [row]}, stated_at=NOW - 7 * DAY, now=NOW)
    assert [s.valid_until for s in out.survivors] == [NOW - 5 * DAY] and out.closures == []


def test_a_plan_arriving_after_a_row_that_gave_only_its_end_goes_on_to_the_writer() -> None:
    cancelled = LiveFact(
        3, "user", "moves to", "berlin", valid_until=NOW + DAY, stated_at=NOW - DAY / 24
    )
    plan = fact("user", "moves to", "berlin", since=NOW + 30 * DAY)
    out = dedup.exact_pass([plan], {plan.triple: [cancelled]}, stated_at=NOW - DAY, now=NOW)
    assert out.survivors == [plan] and out.dropped == [] and out.closures == []


def test_a_sale_dated_after_a_replacement_ends_the_car_by_the_later_statement() -> None:
    # "I drive a Civic", ended by "I drive a Toyota" (said 3 days ago); "I sold my Civic
    # yesterday": said after the Toyota, it ends the Civic there; said before, it is dropped.
    replaced = LiveFact(
        6, "user", "drives", "honda civic", valid_until=NOW - 3 * DAY,
        stated_at=NOW - 30 * DAY, end_reason="superseded",
    )  # fmt: skip
    sold = fact("user", "drives", "honda civic", until=NOW - DAY)
    believed, ends = {sold.triple: [replaced]}, {6: NOW - 3 * DAY}
    assert ends_said_unknown([sold], believed) == [6]
    after = dedup.exact_pass([sold], believed, stated_at=NOW, now=NOW, ends_said=ends)
    assert [(c.fact_id, c.valid_until) for c in after.closures] == [(6, NOW - DAY)]
    before = dedup.exact_pass([sold], believed, stated_at=NOW - 5 * DAY, now=NOW, ends_said=ends)
    assert [d.reason for d in before.dropped] == ["ended_later"] and before.closures == []
    # dated inside the Civic's period, the user's date is the better end, said before or not
    inside = fact("user", "drives", "honda civic", until=NOW - 12 * DAY)
    early = dedup.exact_pass([inside], believed, stated_at=NOW - 5 * DAY, now=NOW, ends_said=ends)
    assert [(c.fact_id, c.valid_until) for c in early.closures] == [(6, NOW - 12 * DAY)]
