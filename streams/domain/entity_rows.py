"""The tenant's stored entities as entity resolution reads them, and the ones it adds.

Shared by resolution (streams/domain/resolution.py), which plans on them, and the entity
store (streams/store/entities.py), which reads and writes them: the store needs none of
the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

ANY_TYPE = "*"  # the neighbour-search key of a probe: stored entities of every type


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
