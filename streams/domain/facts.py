"""A live fact as the rules see it, what the rules compare facts by, and how a fact is
shown to the judge and in drop details."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from streams.events import Fact

Triple = tuple[str, str, str]

# A hair below the contradiction band's minimum when picking band members, so float4
# rounding of stored vectors never hides a pair at its edge.
BAND_SLACK = 1e-6


@dataclass(frozen=True)
class LiveFact:
    """A fact of the tenant that is live now (not ended in either clock)."""

    id: int
    subject: str
    predicate: str
    object: str
    kind: str = "relationship"
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    subject_entity_id: int | None = None
    object_entity_id: int | None = None
    episode_id: str = ""
    stated_at: datetime | None = None  # when the user said it (event time)
    end_reason: str | None = None  # why its valid time ends, when another row ended it
    similarity: float | None = None  # to the query that found it, when searched
    embedding: Sequence[float] | None = None  # when read for the contradiction band

    @property
    def triple(self) -> Triple:
        return (self.subject, self.predicate, self.object)

    def sentence(self) -> str:
        return f"{self.subject} {self.predicate} {self.object}"


def instant(value: datetime | None) -> datetime | None:
    """A naive timestamp is taken as UTC, as asyncpg stores it."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=UTC)


def same_validity(a: datetime | None, b: datetime | None) -> bool:
    return instant(a) == instant(b)


def trusted_to_end(fact: Fact, min_confidence: float) -> bool:
    """Whether ``fact`` may end another fact (supersede, close, cascade): the seed's "never
    trusted to destroy an existing fact" for a low-confidence claim, and the same for an
    untrusted one (no confidence given, a quote not in the user's messages)."""
    return fact.untrusted is None and fact.confidence >= min_confidence


def distrust(fact: Fact, min_confidence: float) -> str:
    """Why ``fact`` may not end another fact (for a drop's detail)."""
    if fact.untrusted is not None:
        return fact.untrusted
    return f"confidence {fact.confidence:.2f} below {min_confidence}"


def describe(
    subject: str,
    predicate: str,
    obj: str,
    valid_from: datetime | None = None,
    valid_until: datetime | None = None,
) -> str:
    """The text a fact is shown as to the judge and in drop details."""
    text = f"{subject} {predicate} {obj}"
    times = []
    if valid_from is not None:
        times.append(f"from {valid_from.date().isoformat()}")
    if valid_until is not None:
        times.append(f"until {valid_until.date().isoformat()}")
    return f"{text} ({' '.join(times)})" if times else text


def describe_fact(fact: Fact) -> str:
    return describe(fact.subject, fact.predicate, fact.object, fact.valid_from, fact.valid_until)


def describe_live(fact: LiveFact) -> str:
    return describe(fact.subject, fact.predicate, fact.object, fact.valid_from, fact.valid_until)
