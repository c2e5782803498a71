"""Where each reset rule moves a partition (pure planning, no broker)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from streams.ops.replay import PartitionPlan, ResetKind, ResetSpec, new_offset, reset_spec

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def move(spec: ResetSpec, *, committed: int | None = 50, at_time: int | None = None) -> int:
    # A partition whose retained log is [10, 100).
    return new_offset(spec, earliest=10, log_end=100, committed=committed, at_time=at_time)


def test_earliest_and_latest() -> None:
    assert move(ResetSpec(ResetKind.EARLIEST)) == 10
    assert move(ResetSpec(ResetKind.LATEST)) == 100


def test_shift_is_relative_to_committed_and_clamped() -> None:
    assert move(ResetSpec(ResetKind.SHIFT, -20)) == 30
    assert move(ResetSpec(ResetKind.SHIFT, 20)) == 70
    assert move(ResetSpec(ResetKind.SHIFT, -1000)) == 10
    assert move(ResetSpec(ResetKind.SHIFT, 1000)) == 100
    # Never committed: the group sits at the earliest offset.
    assert move(ResetSpec(ResetKind.SHIFT, 5), committed=None) == 15


def test_to_offset_is_clamped_into_the_log() -> None:
    assert move(ResetSpec(ResetKind.OFFSET, 42)) == 42
    assert move(ResetSpec(ResetKind.OFFSET, 3)) == 10
    assert move(ResetSpec(ResetKind.OFFSET, 500)) == 100


def test_time_rules_use_the_offset_found_or_the_log_end() -> None:
    assert move(ResetSpec(ResetKind.DATETIME, 1), at_time=33) == 33
    assert move(ResetSpec(ResetKind.DURATION, 1), at_time=None) == 100


def test_plan_row_counts_replayed_and_skipped_records() -> None:
    back = PartitionPlan(0, earliest=10, log_end=100, committed=50, new_offset=20)
    assert (back.to_replay, back.to_skip) == (30, 0)
    forward = PartitionPlan(1, earliest=10, log_end=100, committed=None, new_offset=40)
    assert (forward.current, forward.to_replay, forward.to_skip) == (10, 0, 30)


def test_exactly_one_rule() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        reset_spec(now=NOW)
    with pytest.raises(ValueError, match="--to-earliest, --shift-by"):
        reset_spec(to_earliest=True, shift_by=-1, now=NOW)


def test_by_duration_counts_back_from_now() -> None:
    spec = reset_spec(by_duration="PT1H", now=NOW)
    assert spec.kind is ResetKind.DURATION
    assert spec.value == int(datetime(2026, 3, 1, 11, 0, tzinfo=UTC).timestamp() * 1000)


def test_to_datetime_value_is_epoch_millis() -> None:
    spec = reset_spec(to_datetime="2026-03-01T00:00:00Z", now=NOW)
    assert spec.value == int(datetime(2026, 3, 1, tzinfo=UTC).timestamp() * 1000)


def test_negative_to_offset_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        reset_spec(to_offset=-3, now=NOW)
