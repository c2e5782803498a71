"""The redrive ledger: what was sent is never sent again, what a filter left out stays."""

from __future__ import annotations

import pytest

from streams.ops.redrive_ledger import LedgerFullError, PartitionLedger, redrive_group


def test_contiguous_marks_fold_into_the_low_mark() -> None:
    ledger = PartitionLedger(low=0)
    for offset in (0, 1, 2):
        ledger.mark(offset)
    assert (ledger.low, ledger.done) == (3, set())


def test_filtered_marks_above_a_gap_are_remembered() -> None:
    ledger = PartitionLedger(low=0)
    ledger.mark(2)
    ledger.mark(4)
    assert ledger.low == 0
    assert [o for o in range(6) if ledger.is_done(o)] == [2, 4]
    ledger.mark(0)
    ledger.mark(1)  # the gap closes: 0..2 are done, 3 is not
    assert (ledger.low, ledger.done) == (3, {4})


def test_metadata_round_trip() -> None:
    ledger = PartitionLedger(low=5, done={7, 8, 9, 12})
    again = PartitionLedger.parse(ledger.low, ledger.metadata())
    assert (again.low, again.done) == (5, {7, 8, 9, 12})
    assert ledger.metadata() == '{"done":[[7,9],[12,12]]}'


def test_unreadable_metadata_falls_back_to_the_offset() -> None:
    ledger = PartitionLedger.parse(4, "not json")
    assert (ledger.low, ledger.done) == (4, set())
    assert PartitionLedger.parse(None, "").low == 0


def test_floor_skips_what_retention_deleted() -> None:
    ledger = PartitionLedger(low=0, done={3, 7})
    ledger.floor(3)
    assert (ledger.low, ledger.done) == (4, {7})


def test_too_many_scattered_offsets_are_refused_not_truncated() -> None:
    ledger = PartitionLedger(low=0, done=set(range(1, 4000, 2)))
    with pytest.raises(LedgerFullError):
        ledger.metadata()


def test_group_name() -> None:
    assert redrive_group("extract") == "factstream-dlq-redrive-extract"
