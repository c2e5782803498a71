"""What a tenant already holds, for the extraction prompt and the guards.

Every query filters on (dataset, project_id): nothing of another tenant can reach a
prompt. "Live" is the DESIGN's definition: not invalidated and not past valid_until.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from streams.events import USER_ENTITY, EntityType


def _live(alias: str = "") -> str:
    p = f"{alias}." if alias else ""
    return f"{p}invalid_at IS NULL AND ({p}valid_until IS NULL OR {p}valid_until > now())"


@dataclass(frozen=True)
class PromptContext:
    entity_names: list[str] = field(default_factory=list)
    recent_facts: list[str] = field(default_factory=list)  # "subject predicate object"


async def load_prompt_context(
    conn: Any, dataset: str, project_id: str, entity_limit: int, fact_limit: int
) -> PromptContext:
    """Up to ``entity_limit`` entity names (those with recent live facts first) and the
    ``fact_limit`` most recent live facts, so names and predicates stay consistent."""
    names = await conn.fetch(
        "SELECT e.name FROM entities e LEFT JOIN LATERAL ("
        "  SELECT max(f.created_at) AS last FROM facts f"
        "  WHERE f.dataset = e.dataset AND f.project_id = e.project_id"
        f"    AND {_live('f')}"
        "    AND (f.subject_entity_id = e.id OR f.object_entity_id = e.id)"
        ") l ON true"
        " WHERE e.dataset = $1 AND e.project_id = $2"
        " GROUP BY e.name ORDER BY max(l.last) DESC NULLS LAST, max(e.id) DESC LIMIT $3",
        dataset, project_id, entity_limit,
    )  # fmt: skip
    facts = await conn.fetch(
        "SELECT subject, predicate, object FROM facts"
        f" WHERE dataset = $1 AND project_id = $2 AND {_live()}"
        " ORDER BY created_at DESC, id DESC LIMIT $3",
        dataset, project_id, fact_limit,
    )  # fmt: skip
    return PromptContext(
        entity_names=[r["name"] for r in names],
        recent_facts=[f"{r['subject']} {r['predicate']} {r['object']}" for r in facts],
    )


async def load_known_entities(
    conn: Any, dataset: str, project_id: str, names: Collection[str]
) -> tuple[dict[str, EntityType], frozenset[str]]:
    """For the guards, about exactly the names a graph mentions: their stored types, and
    which of them the user is linked to by a live relationship."""
    wanted = sorted(set(names))
    if not wanted:
        return {}, frozenset()
    rows = await conn.fetch(
        # A name stored under two types: the most recently created one wins.
        "SELECT DISTINCT ON (name) name, type FROM entities"
        " WHERE dataset = $1 AND project_id = $2 AND name = ANY($3::text[])"
        " ORDER BY name, id DESC",
        dataset, project_id, wanted,
    )  # fmt: skip
    types = {r["name"]: _entity_type(r["type"]) for r in rows}
    linked = await conn.fetch(
        "SELECT DISTINCT object FROM facts WHERE dataset = $1 AND project_id = $2"
        f" AND subject = $3 AND kind = 'relationship' AND object = ANY($4::text[]) AND {_live()}",
        dataset, project_id, USER_ENTITY, wanted,
    )  # fmt: skip
    return types, frozenset(r["object"] for r in linked)


def _entity_type(value: str) -> EntityType:
    try:
        return EntityType(value)
    except ValueError:
        return EntityType.THING
