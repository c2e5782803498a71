"""Dates relative to now, as scenario tests write them (a module's NOW is fixed at import)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

NOW = datetime.now(UTC).replace(microsecond=0)


def ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


def date_in(days: int) -> str:
    """A date as the model writes it, ``days`` from today."""
    return (NOW.date() + timedelta(days=days)).isoformat()


def midnight(date: str) -> datetime:
    return datetime.fromisoformat(date).replace(tzinfo=UTC)
