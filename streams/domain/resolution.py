"""Entity resolution, the pure part: names in, a plan of reuses, merges and inserts out.

Seed, step 2. For each extracted entity, in order: an exact name match in the tenant is
reused; otherwise the nearest same-type neighbour is merged into when its cosine
similarity reaches the threshold; otherwise the entity is inserted. Neighbours include
entities inserted earlier in the same batch, so two aliases in one episode converge on
the first. The result maps raw names to canonical ones, applied to every fact.

Names a fact uses that the model did not list as entities go through the same rules as
*probes*: a subject, or a literal object that reads like a name ("acme corporation",
not "20000 usd"). A probe has no type of its own, so it meets stored entities of any
type; it is never inserted. A subject probe that resolves takes the stored name (so the
allow-list sees "honda civic" for "civic"); a literal probe that resolves becomes an
edge to that entity (edge-or-attribute promotion through resolution, not only by exact
name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from streams.domain.entity_rows import ANY_TYPE, EntityNeighbour, NewEntity
from streams.domain.entity_rows import EntityRow as EntityRow  # the resolve stage's annotation
from streams.domain.names import canonical_name
from streams.domain.vectors import Normed, similarity
from streams.events import USER_ENTITY, Entity, EntityType, Fact, FactKind

Key = tuple[str, str]  # (canonical name, type)

# A literal object reads like a name when it is short and has no digits ("20000 usd",
# "3 kids" and "2026-03-01" are values; "acme corporation" may be an entity).
_PROBE_MAX_WORDS = 5
_PROBE_MAX_CHARS = 80


@dataclass(frozen=True)
class Incoming:
    raw: Entity
    name: str  # normalised
    type: EntityType
    probe: bool = False  # a name facts use that was not listed: resolved, never inserted

    @property
    def is_user(self) -> bool:
        return self.name == USER_ENTITY

    @property
    def search_type(self) -> str:
        return ANY_TYPE if self.probe else self.type.value


def incoming(entities: Sequence[Entity]) -> list[Incoming]:
    return [Incoming(e, canonical_name(e.name), e.type) for e in entities]


def _reads_like_name(value: str) -> bool:
    return (
        len(value) <= _PROBE_MAX_CHARS
        and len(value.split()) <= _PROBE_MAX_WORDS
        and not any(ch.isdigit() for ch in value)
    )


def probes(facts: Sequence[Fact], listed: Sequence[Incoming]) -> list[Incoming]:
    """Unlisted subjects and name-like literal objects, one probe per name."""
    seen = {i.name for i in listed} | {USER_ENTITY}
    out: list[Incoming] = []
    for fact in facts:
        names = [fact.subject]
        if fact.kind is FactKind.LITERAL and _reads_like_name(fact.object):
            names.append(fact.object)
        for raw in names:
            name = canonical_name(raw)
            if name and name not in seen:
                seen.add(name)
                entity = Entity(name=name, type=EntityType.THING)
                out.append(Incoming(entity, name, EntityType.THING, probe=True))
    return out


def exact_match(item: Incoming, rows: Sequence[EntityRow]) -> EntityRow | None:
    """Same name and type; "user" and THING (an unknown type) take a same-name row of any type.

    Among several same-name rows a THING prefers a THING row, then the oldest (lowest id).
    """
    same_name = [r for r in rows if r.name == item.name]
    for r in same_name:
        if r.type == item.type:
            return r
    if (item.is_user or item.type is EntityType.THING) and same_name:
        return min(same_name, key=lambda r: r.id)
    return None


@dataclass(frozen=True)
class Target:
    """What one incoming entity resolved to. ``entity_id`` is None for a pending insert."""

    name: str
    type: str
    entity_id: int | None
    how: Literal["exact", "merge", "insert", "unresolved"]  # unresolved: a probe, kept as is
    similarity: float | None = None


@dataclass
class Plan:
    targets: list[Target] = field(default_factory=list)
    inserts: list[NewEntity] = field(default_factory=list)


def _same_entity_name(prev: Incoming, item: Incoming) -> bool:
    """An earlier entity of the batch that ``item`` reuses as an exact match."""
    return prev.name == item.name and (
        prev.type == item.type or item.type is EntityType.THING or item.is_user
    )


def _earlier_same_name(item: Incoming, done: Sequence[tuple[Incoming, Target]]) -> Target | None:
    return next((t for prev, t in done if _same_entity_name(prev, item)), None)


def needs_search(items: Sequence[Incoming], rows: Sequence[EntityRow]) -> list[Incoming]:
    """Entities that need an embedding and a neighbour search, one per (name, type)."""
    out: list[Incoming] = []
    for i, item in enumerate(items):
        if item.is_user or exact_match(item, rows) is not None:
            continue
        if any(_same_entity_name(prev, item) for prev in items[:i]):
            continue
        out.append(item)
    return out


def plan(
    items: Sequence[Incoming],
    rows: Sequence[EntityRow],
    vectors: Mapping[Key, list[float]],
    neighbours: Mapping[Key, EntityNeighbour | None],
    threshold: float,
) -> Plan:
    """Walk the entities in order and decide reuse / merge / insert for each."""
    result = Plan()
    done: list[tuple[Incoming, Target]] = []
    batch_new: list[tuple[Target, Normed]] = []  # inserted earlier in this batch
    for item in items:
        target = _decide(item, rows, vectors, neighbours, threshold, done, batch_new)
        if item.probe and target.how == "insert":
            target = replace(target, how="unresolved")
        elif target.how == "insert" and target.entity_id is None and _is_new(target, result):
            vec = vectors.get((item.name, item.type))
            result.inserts.append(NewEntity(target.name, target.type, vec))
            if vec is not None:
                batch_new.append((target, Normed(vec)))
        done.append((item, target))
        result.targets.append(target)
    return result


def _is_new(target: Target, result: Plan) -> bool:
    return all((n.name, n.type) != (target.name, target.type) for n in result.inserts)


def _decide(
    item: Incoming,
    rows: Sequence[EntityRow],
    vectors: Mapping[Key, list[float]],
    neighbours: Mapping[Key, EntityNeighbour | None],
    threshold: float,
    done: Sequence[tuple[Incoming, Target]],
    batch_new: Sequence[tuple[Target, Normed]],
) -> Target:
    if (row := exact_match(item, rows)) is not None:
        return Target(row.name, row.type, row.id, "exact", 1.0)
    if (earlier := _earlier_same_name(item, done)) is not None:
        return earlier
    key = (item.name, item.type)
    vec = vectors.get(key)
    best: Target | None = None
    if not item.is_user and vec is not None:
        db = neighbours.get(key)
        if db is not None and db.similarity >= threshold:
            best = Target(db.name, db.type, db.id, "merge", db.similarity)
        normed = Normed(vec)
        for prev, prev_vec in batch_new:
            if prev.type != item.type and not item.probe:
                continue
            sim = similarity(normed, prev_vec)
            if sim >= threshold and (best is None or sim > (best.similarity or 0.0)):
                best = Target(prev.name, prev.type, None, "merge", sim)
    if best is not None:
        return best
    return Target(item.name, item.type.value, None, "insert")


def _entity_type(value: str) -> EntityType:
    try:
        return EntityType(value)
    except ValueError:  # a stored row of a type this version does not know
        return EntityType.THING


def apply(
    items: Sequence[Incoming],
    result: Plan,
    ids: Mapping[Key, int],
    facts: Sequence[Fact],
) -> tuple[list[Entity], list[Fact]]:
    """:func:`rename`, then :func:`fill_ids` with the ids of the inserted rows."""
    entities, renamed = rename(items, result, facts)
    return fill_ids(entities, renamed, ids)


def rename(
    items: Sequence[Incoming], result: Plan, facts: Sequence[Fact]
) -> tuple[list[Entity], list[Fact]]:
    """The resolved entities and every fact's subject and object rewritten to them; a
    literal whose object resolved becomes an edge. Rows still to insert have no id yet.

    Raw names map by their exact text first, then by their normalised form; when two
    extracted entities share a raw name the first one wins (a fact names no type).
    """
    entities: list[Entity] = []
    by_name: dict[str, tuple[str, int | None]] = {}
    for item, target in zip(items, result.targets, strict=True):
        if target.how == "unresolved":
            continue
        entity = Entity(
            name=target.name, type=_entity_type(target.type), entity_id=target.entity_id,
            raw_name=item.raw.name,
        )  # fmt: skip
        if not item.probe or all((e.name, e.type) != (entity.name, entity.type) for e in entities):
            entities.append(entity)
        by_name.setdefault(item.raw.name, (target.name, target.entity_id))
        by_name.setdefault(item.name, (target.name, target.entity_id))

    def lookup(name: str) -> tuple[str, int | None] | None:
        return by_name.get(name) or by_name.get(canonical_name(name))

    out: list[Fact] = []
    for fact in facts:
        update: dict[str, object] = {}
        if (subj := lookup(fact.subject)) is not None:
            update["subject"], update["subject_entity_id"] = subj
        if (obj := lookup(fact.object)) is not None:
            update["object"], update["object_entity_id"] = obj
            update["kind"] = FactKind.RELATIONSHIP
        out.append(fact.model_copy(update=update) if update else fact)
    return entities, out


def fill_ids(
    entities: Sequence[Entity], facts: Sequence[Fact], ids: Mapping[Key, int]
) -> tuple[list[Entity], list[Fact]]:
    """The ids of rows just inserted, on the entities and on the facts naming them."""
    out = [
        e
        if e.entity_id is not None
        else e.model_copy(update={"entity_id": ids.get((e.name, e.type))})
        for e in entities
    ]
    by_name: dict[str, int] = {}
    for e in out:
        if e.entity_id is not None:
            by_name.setdefault(e.name, e.entity_id)
    filled = []
    for fact in facts:
        update: dict[str, object] = {}
        if fact.subject_entity_id is None and fact.subject in by_name:
            update["subject_entity_id"] = by_name[fact.subject]
        edge = fact.kind is FactKind.RELATIONSHIP
        if edge and fact.object_entity_id is None and fact.object in by_name:
            update["object_entity_id"] = by_name[fact.object]
        filled.append(fact.model_copy(update=update) if update else fact)
    return out, filled
