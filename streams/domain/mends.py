"""What the guards silently changed in a model's answer, derived when a trace is read.

The guards (streams/domain/guards.py) drop what cannot be kept and say why; what they
mend they do not record: an unknown entity type read as THING, a predicate normalised, an
object or quote cut to its cap, a confidence clamped or read as untrusted, a date rejected
or moved, a relationship demoted to a literal (or a literal promoted), the synthetic user
added. :func:`derive_mends` finds those by running the guards' own pure functions on the
raw answer stored in llm_calls, so the pipeline computes and carries nothing more.

A claim the guards drop (empty or over-long subject or predicate) shows up as a drop, not
here. A literal promoted because the tenant already held the entity (not listed in the
answer) is found only when ``known`` names it: the trace does not know the tenant's
entities at extraction time.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from streams.domain.confidence import read_confidence
from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.domain.guards import (
    NAME_MAX_CHARS,
    cap_length,
    normalise_predicate,
    sanitise_date,
    through_the_day,
    validate_entity_type,
)
from streams.domain.lenient import read_reply
from streams.domain.names import canonical_name, canonical_value, strip_unstorable
from streams.domain.wording import cut_at_word
from streams.events import USER_ENTITY, EntityType
from streams.settings import Settings

_OBJECT_MAX_CHARS: int = Settings.model_fields["object_max_chars"].default
_QUOTE_MAX_CHARS: int = Settings.model_fields["quote_max_chars"].default
_YEAR_MONTH = re.compile(r"\s*[0-9]{4}(?:-[0-9]{2})?\s*")
_SHOWN_CHARS = 300


@dataclass(frozen=True)
class Caps:
    """The length caps the extract guards applied: the deployment's settings."""

    object_max_chars: int = _OBJECT_MAX_CHARS
    quote_max_chars: int = _QUOTE_MAX_CHARS

    @classmethod
    def of(cls, settings: Settings) -> Caps:
        return cls(settings.object_max_chars, settings.quote_max_chars)


DEFAULT_CAPS = Caps()


@dataclass(frozen=True)
class Mend:
    """One silent change: ``what`` (field), ``item`` (which entity or claim), the
    model's value, the stored value and why (all text as given: data, not markup)."""

    what: str
    item: str
    given: str
    stored: str
    why: str


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "…"


def _entity_mends(entities: Iterable[RawEntity]) -> Iterator[Mend]:
    seen: set[str] = set()
    for e in entities:
        name = canonical_name(e.name)
        if not name or len(name) > NAME_MAX_CHARS or name in seen:
            continue  # a drop, or a second listing (the first wins)
        seen.add(name)
        item, key = f"entity {name}", e.type.strip().upper()
        if name == USER_ENTITY:
            if key != EntityType.PERSON:
                yield Mend("entity type", item, e.type, "PERSON", "the user is always a PERSON")
            continue
        stored = validate_entity_type(e.type)
        if key == stored.value:
            continue
        why = (
            f"an alias of {stored.value}"
            if stored is not EntityType.THING or key == "THING"
            else "not a known type: THING"
        )
        yield Mend("entity type", item, e.type, stored.value, why)
    if USER_ENTITY not in seen:
        yield Mend("entity", f"entity {USER_ENTITY}", "", "user (PERSON)",
                   "the synthetic user entity, added as the answer did not list it")  # fmt: skip


def _confidence_mend(raw: RawClaim, item: str) -> Mend | None:
    value, untrusted = read_confidence(raw.confidence)
    if untrusted is not None:
        return Mend("confidence", item, _shown(raw.confidence), "0 (untrusted)", untrusted)
    given = raw.confidence
    number = float(given) if isinstance(given, int | float | str) else math.nan
    if value != number:
        return Mend("confidence", item, _shown(given), f"{value:g}", "clamped into [0, 1]")
    return None


def _date_mends(raw: RawClaim, item: str) -> Iterator[Mend]:
    since, bad_since = sanitise_date(raw.validFrom)
    until, bad_until = sanitise_date(raw.validUntil, end=True)
    for label, value, moment, bad in (
        ("validFrom", raw.validFrom, since, bad_since),
        ("validUntil", raw.validUntil, until, bad_until),
    ):
        if bad:
            yield Mend(label, item, _shown(value), "none", "not a date: rejected")
        elif isinstance(value, str) and moment is not None and _YEAR_MONTH.fullmatch(value):
            why = "a bare year or month ends" if label == "validUntil" else "a bare year or month"
            why += " on the first day after it" if label == "validUntil" else " is its first day"
            yield Mend(label, item, value, moment.date().isoformat(), why)
    if since is None or until is None:
        return
    through = through_the_day(until, since, raw.validUntil)
    if through != until:
        yield Mend("validUntil", item, _shown(raw.validUntil), through.date().isoformat(),
                   "an end on the day it starts lasts through that day")  # fmt: skip
    elif through <= since:
        for label, value in (("validFrom", raw.validFrom), ("validUntil", raw.validUntil)):
            yield Mend(label, item, _shown(value), "none",
                       "validUntil is not after validFrom: both dropped")  # fmt: skip


def _claim_mends(
    raw: RawClaim, relationship: bool, names: frozenset[str], caps: tuple[int, int]
) -> Iterator[Mend]:
    subject, predicate = canonical_name(raw.subject), normalise_predicate(raw.predicate)
    obj = canonical_value(raw.object)
    if not subject or not predicate or not obj or max(len(subject), len(predicate)) > 200:
        return  # dropped by the guards: a drop, not a mend
    item = f"{subject} · {predicate} · {_shown(obj)}"
    if predicate != raw.predicate:
        yield Mend("predicate", item, raw.predicate, predicate, "normalised")
    if (capped := cap_length(obj, caps[0])) != obj:
        yield Mend("object", item, _shown(raw.object), _shown(capped), f"cut to {caps[0]} chars")
    quote = strip_unstorable(raw.sourceQuote).strip()
    if (cut := cut_at_word(quote, caps[1])) != quote:
        yield Mend("quote", item, _shown(raw.sourceQuote), cut, f"cut to {caps[1]} chars")
    if (mend := _confidence_mend(raw, item)) is not None:
        yield mend
    yield from _date_mends(raw, item)
    named = canonical_name(capped) in names
    if relationship and not named:
        yield Mend("kind", item, "relationship", "literal",
                   "the object names no listed entity: a literal")  # fmt: skip
    elif not relationship and named:
        yield Mend("kind", item, "literal", f"relationship to {canonical_name(capped)}",
                   "the object names a listed entity: a relationship")  # fmt: skip


def derive_mends(
    raw: RawGraph,
    known: Iterable[str] = (),
    limits: Caps = DEFAULT_CAPS,
) -> list[Mend]:
    """Every silent change the extract guards make to ``raw``; ``known``: entity names
    the tenant held (a literal naming one is promoted too)."""
    mends = list(_entity_mends(raw.entities))
    names = frozenset({canonical_name(e.name) for e in raw.entities} | set(known) | {USER_ENTITY})
    caps = (limits.object_max_chars, limits.quote_max_chars)
    tagged = [(c, True) for c in raw.relationships] + [(c, False) for c in raw.literalFacts]
    for claim, relationship in tagged:
        mends += _claim_mends(claim, relationship, names, caps)
    return mends


def read_stored_answer(response: Any) -> RawGraph | None:
    """The extract answer as an llm_calls row stores it: the reply text as received
    (read as the extract stage reads it), else the parsed value; None if unreadable."""
    if isinstance(response, str):
        try:
            response = json.loads(response)
        except ValueError:
            return None
    if not isinstance(response, dict):
        return None
    try:
        if isinstance(response.get("text"), str):
            return read_reply(RawGraph, response["text"])
        return RawGraph.model_validate(response.get("parsed", response))
    except (ValidationError, ValueError):
        return None
