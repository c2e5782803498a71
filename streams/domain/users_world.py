"""The user's world (seed "Post-processing": allow-list, fact cap, orphans), on resolved names.

The resolve stage runs these after entity resolution, so a subject is judged by the
entity it resolved to: "civic" merged into the stored "honda civic" is the user's car,
"acme corporation" merged into "acme corp" is the user's employer. An entity is linked to
the user when
- the user has a relationship to it, here or stored and live ("user drives honda civic");
- it has a relationship to the user ("anna is sister of user": a reversed edge);
- its name says so ("user's sister", as the names normaliser writes "my sister").
A fact's subject must be "user" or a linked entity; then the most confident facts are
kept up to the cap (ties: the model's order), the allow-list runs again (a link may have
been capped away), and entities no surviving fact references are not stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from streams.domain.drops import drop
from streams.domain.names import is_owned_by_user
from streams.events import USER_ENTITY, Dropped, Entity, FactKind


class ClaimLike(Protocol):
    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def kind(self) -> FactKind: ...
    @property
    def confidence(self) -> float: ...


C = TypeVar("C", bound=ClaimLike)


def _drop_claim(reason: str, detail: str, c: ClaimLike) -> Dropped:
    return drop(reason, detail, c.subject, c.predicate, c.object)


def user_linked_entities(claims: Sequence[ClaimLike], stored: frozenset[str]) -> frozenset[str]:
    """Entities linked to the user, by this batch's edges in either direction or stored."""
    edges = [c for c in claims if c.kind is FactKind.RELATIONSHIP]
    here = {c.object for c in edges if c.subject == USER_ENTITY}
    here |= {c.subject for c in edges if c.object == USER_ENTITY}
    return frozenset(here) | stored


def allow_subjects(
    claims: Sequence[C], stored_linked: frozenset[str]
) -> tuple[list[C], list[Dropped]]:
    """The user's world: subject is "user" or an entity the user is linked to."""
    linked = user_linked_entities(claims, stored_linked)
    kept, dropped = [], []
    for c in claims:
        if c.subject == USER_ENTITY or c.subject in linked or is_owned_by_user(c.subject):
            kept.append(c)
        else:
            detail = f"subject {c.subject!r} is not the user nor an entity the user is linked to"
            dropped.append(_drop_claim("subject_not_allowed", detail, c))
    return kept, dropped


def cap_facts(claims: Sequence[C], limit: int, why: str = "") -> tuple[list[C], list[Dropped]]:
    """At most ``limit`` facts, the most confident ones (ties: the model's order). ``why``
    names the cap in each drop (default: an episode's cap of ``limit`` facts)."""
    ranked = sorted(range(len(claims)), key=lambda i: -claims[i].confidence)
    keep = set(ranked[:limit])
    cap = why or f"over the episode's cap of {limit} facts"
    dropped = [
        _drop_claim("over_cap", f"{cap}; confidence {c.confidence:.2f}", c)
        for i, c in enumerate(claims) if i not in keep
    ]  # fmt: skip
    return [c for i, c in enumerate(claims) if i in keep], dropped


def prune_orphans(
    entities: Sequence[Entity], facts: Sequence[ClaimLike]
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


def keep_users_world(
    entities: Sequence[Entity], claims: Sequence[C], stored_linked: frozenset[str], limit: int
) -> tuple[list[Entity], list[C], list[Dropped]]:
    """Allow-list, cap, allow-list again, orphans: (entities, claims, dropped)."""
    kept, dropped = allow_subjects(claims, stored_linked)
    kept, why = cap_facts(kept, limit)
    dropped += why
    # A fact anchored on an entity whose user link was just capped away goes too.
    kept, why = allow_subjects(kept, stored_linked)
    dropped += why
    out, why = prune_orphans(entities, kept)
    return out, kept, dropped + why
