"""ISO 8601 datetimes and durations as `kafka-consumer-groups --reset-offsets` takes them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

# Java's Duration.parse format (what Kafka's --by-duration takes): PnDTnHnMnS, plus weeks.
# Years and months have no fixed length, so they are refused rather than guessed.
_DURATION = re.compile(
    r"^P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?"
    r"(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$"
)


def parse_duration(text: str) -> timedelta:
    """``PT1H`` -> 1 hour, ``P1D`` -> 1 day, ``P1DT12H30M`` ..., ``PT0.5S``."""
    raw = text.strip().upper()
    match = _DURATION.match(raw)
    if match is None or raw in {"P", "PT"} or raw.endswith("T"):
        raise ValueError(
            f"{text!r} is not an ISO 8601 duration like PT30M, PT1H, P1D or P1DT12H"
            " (years and months are not supported: their length varies)"
        )
    parts = {k: float(v) if v else 0.0 for k, v in match.groupdict().items()}
    return timedelta(
        weeks=parts["w"], days=parts["d"], hours=parts["h"], minutes=parts["m"], seconds=parts["s"]
    )


# A year or a year and month ("2026", "2026-03"): its first instant, as model dates read.
_YEAR_MONTH = re.compile(r"^(\d{4})(?:-(\d{2}))?$")


def parse_datetime(text: str) -> datetime:
    """ISO 8601 date or datetime (RFC 3339's lower-case "t" and "z" too), a year or a year
    and month (its first instant), or "now"; without a zone it is taken as UTC (said in
    --help). A time that leaves the years 1-9999 once converted to UTC
    ("0001-01-01T00:00+05:00") is refused here, not by the database."""
    raw = text.strip().upper()
    if raw == "NOW":
        return datetime.now(UTC)
    if partial := _YEAR_MONTH.match(raw):
        raw = f"{partial[1]}-{partial[2] or '01'}-01"
    try:
        value = datetime.fromisoformat(raw)
    except ValueError as exc:
        raise ValueError(
            f"{text!r} is not an ISO 8601 datetime like 2026-03-01T12:00:00Z, 2026-03-01,"
            " 2026-03 or now"
        ) from exc
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(f"{text!r} is outside the years 1-9999 in UTC") from exc
    return value


def to_millis(value: datetime) -> int:
    return int(value.timestamp() * 1000)
