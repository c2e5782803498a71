"""Deterministic post-processing of an extraction (seed "Post-processing").

Applied regardless of what the model returned. Every guard is a pure function; what a
guard removes becomes a ``Dropped(stage=GUARD)`` so `factstream trace` can say why a
claim did not survive. :func:`apply_guards` composes them in a fixed order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from streams.domain.graph import RawClaim, RawEntity, RawGraph
from streams.domain.names import canonical_name, canonical_value
from streams.events import USER_ENTITY, Dropped, DropStage, Entity, EntityType, Fact, FactKind
from streams.settings import Settings

NAME_MAX_CHARS = 200  # Entity.name, Fact.subject and Fact.predicate limits
_TYPE_ALIASES = {
    "ORGANIZATION": EntityType.ORG, "ORGANISATION": EntityType.ORG, "COMPANY": EntityType.ORG,
    "LOCATION": EntityType.PLACE, "CITY": EntityType.PLACE, "COUNTRY": EntityType.PLACE,
    "CAR": EntityType.VEHICLE, "PET": EntityType.ANIMAL, "HUMAN": EntityType.PERSON,
}  # fmt: skip
_APOSTROPHES = re.compile(r"['’`´]")
_PLACEHOLDER = re.compile(r"[yYmMdDxX?_]{2,}")  # YYYY-MM-DD, XXXX-XX-XX, ____-__-__


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

    def to_fact(self) -> Fact:
        return Fact(
            subject=self.subject, predicate=self.predicate, object=self.object, kind=self.kind,
            confidence=self.confidence, source_quote=self.quote,
            valid_from=self.valid_from, valid_until=self.valid_until,
        )  # fmt: skip


def drop(
    reason: str, detail: str, subject: str = "", predicate: str = "", obj: str = ""
) -> Dropped:
    return Dropped(
        stage=DropStage.GUARD, reason=reason[:100], detail=detail[:1000],
        subject=subject, predicate=predicate, object=obj,
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
    text = _APOSTROPHES.sub("", unicodedata.normalize("NFKC", predicate).lower())
    text = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in text)
    return " ".join(text.split())


def cap_length(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip()


def clamp_confidence(value: float) -> float:
    """Into [0, 1]; a NaN is no confidence at all."""
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


def sanitise_date(value: str | None) -> tuple[datetime | None, bool]:
    """(parsed UTC datetime or None, rejected?). Null means "not stated" and is not a
    rejection; placeholders ("YYYY-MM-DD") and unparseable junk are rejected."""
    if value is None:
        return None, False
    text = value.strip()
    if text.lower() in {"", "null", "none", "n/a", "unknown"}:
        return None, False
    if _PLACEHOLDER.search(text):
        return None, True
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None, True
    if not 1 <= parsed.year <= 9998:
        return None, True
    return (parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)), False


# --- entity-list guards ------------------------------------------------------------------


def clean_entities(raw: Iterable[RawEntity]) -> tuple[list[Entity], list[Dropped]]:
    """Canonical names, validated types, one entity per name (the first listing wins)."""
    out: dict[str, Entity] = {}
    dropped: list[Dropped] = []
    for e in raw:
        name = canonical_name(e.name)
        if not name or len(name) > NAME_MAX_CHARS:
            dropped.append(drop("invalid_entity_name", f"entity name {e.name[:300]!r}"))
            continue
        etype = EntityType.PERSON if name == USER_ENTITY else validate_entity_type(e.type)
        out.setdefault(name, Entity(name=name, type=etype))
    return list(out.values()), dropped


def ensure_user_entity(entities: Sequence[Entity]) -> list[Entity]:
    """The synthetic "user" entity, added if the model forgot to list it."""
    if any(e.name == USER_ENTITY for e in entities):
        return list(entities)
    return [Entity(name=USER_ENTITY, type=EntityType.PERSON), *entities]


def prune_orphans(
    entities: Sequence[Entity], facts: Sequence[Claim]
) -> tuple[list[Entity], list[Dropped]]:
    """Entities no surviving fact references are not stored. "user" anchors any graph
    that has facts, so it stays whenever there is at least one."""
    referenced = {c.subject for c in facts}
    referenced |= {c.object for c in facts if c.kind is FactKind.RELATIONSHIP}
    if facts:
        referenced.add(USER_ENTITY)
    kept = [e for e in entities if e.name in referenced]
    dropped = [
        drop("orphan_entity", f"entity {e.name!r} ({e.type}) is referenced by no surviving fact",
             subject=e.name)
        for e in entities if e.name not in referenced
    ]  # fmt: skip
    return kept, dropped


# --- claim guards ------------------------------------------------------------------------


def clean_claim(
    raw: RawClaim, declared: FactKind, settings: Settings
) -> tuple[Claim | None, list[Dropped]]:
    """Names, predicate, length caps, confidence clamp and dates for one raw claim."""
    subject, obj = canonical_name(raw.subject), canonical_value(raw.object)
    predicate = normalise_predicate(raw.predicate)
    claim = Claim(
        subject, predicate, cap_length(obj, settings.object_max_chars), declared,
        clamp_confidence(raw.confidence),
        cap_length(raw.sourceQuote.strip(), settings.quote_max_chars),
    )  # fmt: skip
    if not subject or not predicate or not obj:
        return None, [_drop_claim("empty_field", "subject, predicate or object is empty", claim)]
    if len(subject) > NAME_MAX_CHARS or len(predicate) > NAME_MAX_CHARS:
        long = replace(claim, subject=subject[:200], predicate=predicate[:200])
        return None, [_drop_claim("too_long", "subject or predicate over 200 chars", long)]
    dropped: list[Dropped] = []
    dates: dict[str, datetime | None] = {}
    for label, value in (("validFrom", raw.validFrom), ("validUntil", raw.validUntil)):
        dates[label], rejected = sanitise_date(value)
        if rejected:
            dropped.append(_drop_claim("invalid_date", f"{label} {value!r} rejected", claim))
    return replace(claim, valid_from=dates["validFrom"], valid_until=dates["validUntil"]), dropped


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


def user_linked_entities(claims: Sequence[Claim], known_linked: frozenset[str]) -> frozenset[str]:
    """Entities the user is linked to: objects of the user's relationships, here or stored."""
    here = {
        c.object for c in claims if c.subject == USER_ENTITY and c.kind is FactKind.RELATIONSHIP
    }
    return frozenset(here) | known_linked


def allow_subjects(
    claims: Sequence[Claim], known_linked: frozenset[str]
) -> tuple[list[Claim], list[Dropped]]:
    """The user's world: subject is "user" or an entity the user is linked to."""
    linked = user_linked_entities(claims, known_linked)
    kept, dropped = [], []
    for c in claims:
        if c.subject == USER_ENTITY or c.subject in linked:
            kept.append(c)
        else:
            detail = f"subject {c.subject!r} is not the user nor an entity the user is linked to"
            dropped.append(_drop_claim("subject_not_allowed", detail, c))
    return kept, dropped


def cap_facts(claims: Sequence[Claim], limit: int) -> tuple[list[Claim], list[Dropped]]:
    """At most ``limit`` facts, the most confident ones (ties: the model's order)."""
    ranked = sorted(range(len(claims)), key=lambda i: -claims[i].confidence)
    keep = set(ranked[:limit])
    dropped = [
        _drop_claim("over_cap", f"more than {limit} facts; confidence {c.confidence:.2f}", c)
        for i, c in enumerate(claims) if i not in keep
    ]  # fmt: skip
    return [c for i, c in enumerate(claims) if i in keep], dropped


# --- composition -------------------------------------------------------------------------


def apply_guards(
    raw: RawGraph, known: KnownEntities, settings: Settings
) -> tuple[list[Entity], list[Fact], list[Dropped]]:
    """All nine guards plus the fact cap, in order; returns (entities, facts, dropped)."""
    entities, dropped = clean_entities(raw.entities)
    claims: list[Claim] = []
    tagged = [(c, FactKind.RELATIONSHIP) for c in raw.relationships]
    tagged += [(c, FactKind.LITERAL) for c in raw.literalFacts]
    for raw_claim, declared in tagged:
        claim, why = clean_claim(raw_claim, declared, settings)
        dropped += why
        if claim is not None:
            claims.append(claim)
    listed = {e.name for e in entities} | set(known.types) | {USER_ENTITY}
    claims = decide_kind(claims, frozenset(listed))
    claims, why = allow_subjects(claims, known.user_linked)
    dropped += why
    claims, why = cap_facts(claims, settings.max_facts_per_episode)
    dropped += why
    # A fact anchored on an entity whose user link was just capped away goes too.
    claims, why = allow_subjects(claims, known.user_linked)
    dropped += why
    entities = _with_referenced_known(entities, claims, known)
    entities, why = prune_orphans(ensure_user_entity(entities), claims)
    dropped += why
    return entities, [c.to_fact() for c in claims], dropped


def _with_referenced_known(
    entities: Sequence[Entity], claims: Sequence[Claim], known: KnownEntities
) -> list[Entity]:
    """Stored entities a fact now points at (a promotion, a linked subject) join the
    graph with their stored type, so resolution reuses them instead of inventing one."""
    out = list(entities)
    names = {e.name for e in out}
    for c in claims:
        for name in (c.subject, c.object if c.kind is FactKind.RELATIONSHIP else None):
            if name and name not in names and name in known.types:
                out.append(Entity(name=name, type=known.types[name]))
                names.add(name)
    return out
