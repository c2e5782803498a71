"""Deterministic post-processing of an extraction (seed "Post-processing").

Applied regardless of what the model returned. Every guard is a pure function; what a
guard removes becomes a ``Dropped(stage=GUARD)`` so `factstream trace` can say why a
claim did not survive. Two phases: :func:`guard_claims` cleans each entity and claim in
the extract stage (names, predicate, lengths, confidence, dates, edge or attribute);
the user's world (allow-list, fact cap, orphans: streams/domain/users_world.py) is
decided in the resolve stage, on resolved names, so an alias of a linked entity counts
as that entity. :func:`apply_guards` composes both for one graph whose names need no
resolution.

A broken part of an answer loses only itself: an entity or claim that broke the schema
(``RawGraph.rejected``), an empty or over-long name, an unreadable date, an unstorable
character are dropped or sanitised one by one with a reason. A claim without a usable
confidence (missing, NaN, infinite) is kept at confidence 0 and marked untrusted: it is
never certain, and never ends another fact. The dropped list itself is bounded.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from streams.domain.confidence import read_confidence
from streams.domain.drops import bound_dropped, drop
from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.domain.names import canonical_name, canonical_value, fold, strip_unstorable
from streams.domain.users_world import cap_facts, keep_users_world, prune_orphans
from streams.domain.wording import cut_at_word
from streams.event_fields import EARLIEST_YEAR, LATEST_YEAR
from streams.events import USER_ENTITY, Dropped, Entity, EntityType, Fact, FactKind
from streams.settings import Settings

NAME_MAX_CHARS = 200  # Entity.name, Fact.subject and Fact.predicate limits
# Claims kept by the extract stage before the user's world is decided after resolution:
# room for the allow-list to drop, far above what an honest answer holds.
PRE_CAP_FACTOR = 4
_TYPE_ALIASES = {
    "ORGANIZATION": EntityType.ORG, "ORGANISATION": EntityType.ORG, "COMPANY": EntityType.ORG,
    "LOCATION": EntityType.PLACE, "CITY": EntityType.PLACE, "COUNTRY": EntityType.PLACE,
    "CAR": EntityType.VEHICLE, "PET": EntityType.ANIMAL, "HUMAN": EntityType.PERSON,
}  # fmt: skip
_APOSTROPHES = re.compile(r"['’`´]")
_PLACEHOLDER = re.compile(r"[yYmMdDxX?_]{2,}")  # YYYY-MM-DD, XXXX-XX-XX, ____-__-__
_YEAR_MONTH = re.compile(r"([0-9]{4})(?:-([0-9]{2}))?")  # "2015", "2015-06": a first day
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # a bare day, "2026-03-03"


@dataclass(frozen=True)
class KnownEntities:
    """What the tenant already holds, as far as the guards need it."""

    types: Mapping[str, EntityType] = field(default_factory=dict)  # stored name -> type
    user_linked: frozenset[str] = frozenset()  # objects of live user relationships


@dataclass(frozen=True)
class Claim:
    """A fact on its way through the guards (a Fact before its final validation)."""

    subject: str
    predicate: str
    object: str
    kind: FactKind
    confidence: float
    quote: str = ""
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    untrusted: str | None = None  # why this claim may never end another fact

    def to_fact(self) -> Fact:
        return Fact(
            subject=self.subject, predicate=self.predicate, object=self.object, kind=self.kind,
            confidence=self.confidence, source_quote=self.quote,
            valid_from=self.valid_from, valid_until=self.valid_until, untrusted=self.untrusted,
        )  # fmt: skip


def _drop_claim(reason: str, detail: str, c: Claim) -> Dropped:
    return drop(reason, detail, c.subject, c.predicate, c.object)


# --- single-value guards -----------------------------------------------------------------


def validate_entity_type(raw_type: str) -> EntityType:
    """A closed enum: anything unknown is THING."""
    key = raw_type.strip().upper()
    if key in EntityType.__members__:
        return EntityType[key]
    return _TYPE_ALIASES.get(key, EntityType.THING)


def normalise_predicate(predicate: str) -> str:
    """Lower-cased, punctuation stripped, whitespace collapsed ("Works-At!" -> "works at")."""
    text = fold(predicate)
    text = "".join(
        " " if unicodedata.category(ch)[0] in "PSC" else ch for ch in _APOSTROPHES.sub("", text)
    )
    return " ".join(text.split())


def cap_length(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip()


def sanitise_date(value: object, *, end: bool = False) -> tuple[datetime | None, bool]:
    """(parsed UTC datetime or None, rejected?). Null means "not stated", not a rejection;
    placeholders ("YYYY-MM-DD"), junk and non-strings (a number, an object) are rejected.
    RFC 3339's "t", "z" are read; a bare year or year-month ("since 2015") is its first
    day, or, as an ``end`` ("until 2019", "in Turin in March": from and until "2026-03"),
    the first day after it, so the period named is inside the fact's valid time."""
    if value is None:
        return None, False
    if not isinstance(value, str):
        return None, True
    text = value.strip()
    if text.lower() in {"", "null", "none", "n/a", "unknown"}:
        return None, False
    if _PLACEHOLDER.search(text):
        return None, True
    if partial := _YEAR_MONTH.fullmatch(text):  # month 00 or 13 stays unparseable
        text = _first_day(partial[1], partial[2], after=end)
    try:
        parsed = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
        # An offset can push year 1 or 9999 out of range (OverflowError).
        moment = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        return None, True
    if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:  # what an event may carry
        return None, True
    return moment, False


def through_the_day(until: datetime, since: datetime, written: object) -> datetime:
    """An end written as a bare date on or after the day a fact starts ("in Rome on March
    3": from and until "2026-03-03") names that day: the fact is true through it, not
    for no time at all. Any other end is as written."""
    day_long = isinstance(written, str) and _DATE.fullmatch(written.strip()) is not None
    if day_long and until <= since < until + timedelta(days=1):
        return until + timedelta(days=1)
    return until


def _first_day(year: str, month: str | None, *, after: bool) -> str:
    """The ISO date a bare year or year-month stands for: its first day, or (``after``)
    the first day after it."""
    y, m = int(year), int(month) if month else None
    if not after or (m is not None and not 1 <= m <= 12):
        return f"{year}-{month or '01'}-01"
    if m is None or m == 12:
        return f"{y + 1:04d}-01-01"
    return f"{y:04d}-{m + 1:02d}-01"


# --- entity-list guards ------------------------------------------------------------------


def clean_entities(raw: Iterable[RawEntity]) -> tuple[list[Entity], list[Dropped]]:
    """Canonical names, validated types, one entity per name (the first listing wins)."""
    out: dict[str, Entity] = {}
    dropped: list[Dropped] = []
    for e in raw:
        name = canonical_name(e.name)
        if not name or len(name) > NAME_MAX_CHARS:
            shown = strip_unstorable(e.name[:300])
            dropped.append(drop("invalid_entity_name", f"entity name {shown!r}"))
            continue
        etype = EntityType.PERSON if name == USER_ENTITY else validate_entity_type(e.type)
        out.setdefault(name, Entity(name=name, type=etype))
    return list(out.values()), dropped


def ensure_user_entity(entities: Sequence[Entity]) -> list[Entity]:
    """The synthetic "user" entity, added if the model forgot to list it."""
    if any(e.name == USER_ENTITY for e in entities):
        return list(entities)
    return [Entity(name=USER_ENTITY, type=EntityType.PERSON), *entities]


# --- claim guards ------------------------------------------------------------------------


def clean_claim(
    raw: RawClaim, declared: FactKind, settings: Settings
) -> tuple[Claim | None, list[Dropped]]:
    """Names, predicate, length caps, confidence and dates for one raw claim."""
    subject, obj = canonical_name(raw.subject), canonical_value(raw.object)
    predicate = normalise_predicate(raw.predicate)
    confidence, untrusted = read_confidence(raw.confidence)
    claim = Claim(
        subject, predicate, cap_length(obj, settings.object_max_chars), declared, confidence,
        cut_at_word(strip_unstorable(raw.sourceQuote).strip(), settings.quote_max_chars),
        untrusted=untrusted,
    )  # fmt: skip
    if not subject or not predicate or not obj:
        return None, [_drop_claim("empty_field", "subject, predicate or object is empty", claim)]
    if len(subject) > NAME_MAX_CHARS or len(predicate) > NAME_MAX_CHARS:
        long = replace(claim, subject=subject[:200], predicate=predicate[:200])
        return None, [_drop_claim("too_long", "subject or predicate over 200 chars", long)]
    dropped: list[Dropped] = []
    dates: dict[str, datetime | None] = {}
    for label, value in (("validFrom", raw.validFrom), ("validUntil", raw.validUntil)):
        dates[label], rejected = sanitise_date(value, end=label == "validUntil")
        if rejected:
            dropped.append(_drop_claim("invalid_date", f"{label} {value!r} rejected", claim))
    since, until = dates["validFrom"], dates["validUntil"]
    if since is not None and until is not None:
        until = through_the_day(until, since, raw.validUntil)
    if since is not None and until is not None and until <= since:
        # Which end is wrong cannot be told: the claim is kept without either (a period of
        # no time, ending as it starts, is never true: as wrong).
        where = "before" if until < since else "at"
        detail = f"validUntil {raw.validUntil!r} is {where} validFrom {raw.validFrom!r}"
        dropped.append(_drop_claim("invalid_date", f"{detail}; both dropped", claim))
        since = until = None
    return replace(claim, valid_from=since, valid_until=until), dropped


def decide_kind(claims: Sequence[Claim], entity_names: frozenset[str]) -> list[Claim]:
    """Edge or attribute, by the entity list and not by the array the model used: an
    object naming a listed or known entity is a relationship (to that entity's name),
    anything else a literal (the value as written)."""
    out = []
    for c in claims:
        name = canonical_name(c.object)
        if name in entity_names:
            out.append(replace(c, kind=FactKind.RELATIONSHIP, object=name))
        else:
            out.append(replace(c, kind=FactKind.LITERAL))
    return out


# --- composition -------------------------------------------------------------------------


def guard_claims(
    raw: RawGraph, known_types: Mapping[str, EntityType], settings: Settings
) -> tuple[list[Entity], list[Claim], list[Dropped]]:
    """The extract stage's guards: clean entities and claims, edge or attribute, the
    synthetic user, a pre-cap; returns (entities, claims, dropped)."""
    entities, dropped = clean_entities(raw.entities)
    dropped = [drop("invalid_item", reason) for reason in raw.rejected] + dropped
    claims: list[Claim] = []
    tagged = [(c, FactKind.RELATIONSHIP) for c in raw.relationships]
    tagged += [(c, FactKind.LITERAL) for c in raw.literalFacts]
    for raw_claim, declared in tagged:
        claim, why = clean_claim(raw_claim, declared, settings)
        dropped += why
        if claim is not None:
            claims.append(claim)
    listed = {e.name for e in entities} | set(known_types) | {USER_ENTITY}
    claims = decide_kind(claims, frozenset(listed))
    cap, pre_cap = settings.max_facts_per_episode, settings.max_facts_per_episode * PRE_CAP_FACTOR
    claims, why = cap_facts(claims, pre_cap, f"beyond the answer's {pre_cap} most confident"
                            f" facts ({PRE_CAP_FACTOR}x the episode's cap of {cap})")  # fmt: skip
    dropped += why
    entities = _with_referenced_known(entities, claims, known_types)
    # Orphans already (resolution only renames): not worth an embedding.
    entities, why = prune_orphans(ensure_user_entity(entities), claims)
    return entities, claims, dropped + why


def apply_guards(
    raw: RawGraph, known: KnownEntities, settings: Settings
) -> tuple[list[Entity], list[Fact], list[Dropped]]:
    """Both phases for a graph whose names need no resolution: (entities, facts, dropped)."""
    entities, claims, dropped = guard_claims(raw, known.types, settings)
    entities, claims, why = keep_users_world(
        entities, claims, known.user_linked, settings.max_facts_per_episode
    )
    return entities, [c.to_fact() for c in claims], bound_dropped(dropped + why)


def _with_referenced_known(
    entities: Sequence[Entity], claims: Sequence[Claim], known_types: Mapping[str, EntityType]
) -> list[Entity]:
    """Stored entities a fact now points at (a promotion, a linked subject) join the
    graph with their stored type, so resolution reuses them instead of inventing one."""
    out = list(entities)
    names = {e.name for e in out}
    for c in claims:
        for name in (c.subject, c.object if c.kind is FactKind.RELATIONSHIP else None):
            if name and name not in names and name in known_types:
                out.append(Entity(name=name, type=known_types[name]))
                names.add(name)
    return out
