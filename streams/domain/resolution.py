"""Entity resolution, the pure part: names in, a plan of reuses, merges and inserts out.

Seed, step 2. For each extracted entity, in order: an exact name match in the tenant is
reused; otherwise the nearest same-type neighbour is merged into when its cosine
similarity reaches the threshold; otherwise the entity is inserted. Neighbours include
entities inserted earlier in the same batch, so two aliases in one episode converge on
the first. The result maps raw names to canonical ones, applied to every fact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from streams.domain.names import canonical_name
from streams.domain.vectors import cosine
from streams.events import USER_ENTITY, Entity, EntityType, Fact, FactKind

Key = tuple[str, str]  # (canonical name, type)


@dataclass(frozen=True)
class EntityRow:
    """A stored entity of the tenant."""

    id: int
    name: str
    type: str


@dataclass(frozen=True)
class EntityNeighbour:
    """The stored same-type entity nearest to an incoming one, and how near."""

    id: int
    name: str
    type: str
    similarity: float


@dataclass(frozen=True)
class NewEntity:
    """An entity to insert, with the embedding of its name."""

    name: str
    type: str
    embedding: list[float] | None


@dataclass(frozen=True)
class Incoming:
    raw: Entity
    name: str  # normalised
    type: EntityType

    @property
    def is_user(self) -> bool:
        return self.name == USER_ENTITY


def incoming(entities: Sequence[Entity]) -> list[Incoming]:
    return [Incoming(e, canonical_name(e.name), e.type) for e in entities]


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
    how: Literal["exact", "merge", "insert"]
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
    batch_new: list[tuple[Target, list[float]]] = []  # inserted earlier in this batch
    for item in items:
        target = _decide(item, rows, vectors, neighbours, threshold, done, batch_new)
        if target.how == "insert" and target.entity_id is None and _is_new(target, result):
            vec = vectors.get((item.name, item.type))
            result.inserts.append(NewEntity(target.name, target.type, vec))
            if vec is not None:
                batch_new.append((target, vec))
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
    batch_new: Sequence[tuple[Target, list[float]]],
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
        for prev, prev_vec in batch_new:
            if prev.type != item.type:
                continue
            sim = cosine(vec, prev_vec)
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
    """Fill in ids of inserted rows, then rewrite every fact's subject and object.

    Raw names map by their exact text first, then by their normalised form; when two
    extracted entities share a raw name the first one wins (a fact names no type).
    """
    entities: list[Entity] = []
    by_name: dict[str, tuple[str, int | None]] = {}
    for item, target in zip(items, result.targets, strict=True):
        entity_id = target.entity_id
        if entity_id is None:
            entity_id = ids.get((target.name, target.type))
        entities.append(
            Entity(
                name=target.name,
                type=_entity_type(target.type),
                entity_id=entity_id,
                raw_name=item.raw.name,
            )
        )
        by_name.setdefault(item.raw.name, (target.name, entity_id))
        by_name.setdefault(item.name, (target.name, entity_id))

    def lookup(name: str) -> tuple[str, int | None] | None:
        return by_name.get(name) or by_name.get(canonical_name(name))

    out: list[Fact] = []
    for fact in facts:
        update: dict[str, object] = {}
        if (subj := lookup(fact.subject)) is not None:
            update["subject"], update["subject_entity_id"] = subj
        if fact.kind is FactKind.RELATIONSHIP and (obj := lookup(fact.object)) is not None:
            update["object"], update["object_entity_id"] = obj
        out.append(fact.model_copy(update=update) if update else fact)
    return entities, out
