"""ISO 8601 durations and datetimes as `replay --by-duration/--to-datetime` take them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from streams.ops.isotime import parse_datetime, parse_duration


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("PT1H", timedelta(hours=1)),
        ("P1D", timedelta(days=1)),
        ("PT30M", timedelta(minutes=30)),
        ("P1DT12H30M", timedelta(days=1, hours=12, minutes=30)),
        ("PT0.5S", timedelta(seconds=0.5)),
        ("P2W", timedelta(weeks=2)),
        ("pt15m", timedelta(minutes=15)),
    ],
)
def test_durations_like_kafka(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["1h", "P", "PT", "P1M", "P1Y", "PT-1H", "P1DT", "", "P1H"])
def test_bad_durations_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="ISO 8601 duration"):
        parse_duration(text)


def test_datetime_without_zone_is_utc() -> None:
    assert parse_datetime("2026-03-01T12:00:00") == datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert parse_datetime("2026-03-01T12:00:00Z") == datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert parse_datetime("2026-03-01T14:00:00+02:00") == datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_a_year_or_month_is_its_first_instant_and_now_is_now() -> None:
    assert parse_datetime("2026-03") == datetime(2026, 3, 1, tzinfo=UTC)
    assert parse_datetime(" 2026 ") == datetime(2026, 1, 1, tzinfo=UTC)
    before = datetime.now(UTC)
    assert before <= parse_datetime("now") <= datetime.now(UTC)


@pytest.mark.parametrize("text", ["yesterday", "2026-13", "2026-3", "", "26-03"])
def test_bad_datetime(text: str) -> None:
    with pytest.raises(ValueError, match=r"ISO 8601 datetime like .* 2026-03 or now"):
        parse_datetime(text)


def test_rfc3339_lower_case_and_times_out_of_range_in_utc() -> None:
    assert parse_datetime("2026-03-01t12:00:00z") == datetime(2026, 3, 1, 12, tzinfo=UTC)
    for text in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-05:00"):
        with pytest.raises(ValueError, match="outside the years 1-9999 in UTC"):
            parse_datetime(text)
