"""What a tenant already holds, for the extraction prompt and the guards.

Every query filters on (dataset, project_id): nothing of another tenant can reach a
prompt. "Live" is the DESIGN's definition: not invalidated and not past valid_until.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from streams.domain.versions import EarlierStatement
from streams.events import USER_ENTITY, EntityType
from streams.store.statements import Rider

# Live facts that name an entity other than the user alone; the predicate of the partial
# index facts_live_entity_links (migration 011), spelled the same so the planner uses it.
_NAMES_AN_ENTITY = "(object_entity_id IS NOT NULL OR subject <> 'user')"


def _live(alias: str = "") -> str:
    p = f"{alias}." if alias else ""
    return f"{p}invalid_at IS NULL AND ({p}valid_until IS NULL OR {p}valid_until > now())"


@dataclass(frozen=True)
class PromptContext:
    entity_names: list[str] = field(default_factory=list)
    recent_facts: list[str] = field(default_factory=list)  # "subject predicate object"
    # What an earlier version of the episode being extracted stated and is still believed.
    earlier_statements: list[EarlierStatement] = field(default_factory=list)


_CONTEXT = f"""
WITH RECURSIVE recent AS MATERIALIZED (
    SELECT created_at, subject_entity_id, object_entity_id FROM facts
    WHERE dataset = $1 AND project_id = $2 AND {_live()} AND {_NAMES_AN_ENTITY}
    ORDER BY created_at DESC LIMIT $3
), probe AS (
    SELECT created_at, subject_entity_id FROM facts
    WHERE dataset = $1 AND project_id = $2 AND {_live()} AND subject = 'user'
        AND subject_entity_id IS NOT NULL ORDER BY created_at DESC LIMIT 1
), seen AS (
    SELECT id, max(created_at) AS at FROM (
        SELECT subject_entity_id AS id, created_at FROM recent
        UNION ALL SELECT object_entity_id, created_at FROM recent
        UNION ALL SELECT subject_entity_id, created_at FROM probe
    ) x WHERE id IS NOT NULL GROUP BY id
), named AS MATERIALIZED (
    -- by primary key, one probe per id: a join scanned every entity name of the tenant
    SELECT e.name, max(s.at) AS at FROM seen s CROSS JOIN LATERAL (
        SELECT name FROM entities WHERE id = s.id AND dataset = $1 AND project_id = $2
    ) e GROUP BY e.name
), copied(start, id, copy_of) AS (
    -- the believed copies of what an older version of the episode stated and a later
    -- statement ended (a copy keeps its original's triple and stated_at), each with the
    -- rows up its chain: kept below when the chain leads back to this episode
    SELECT b.id, b.id, b.copy_of FROM facts o JOIN facts b ON b.dataset = $1
        AND b.project_id = $2 AND b.subject = o.subject AND b.predicate = o.predicate
        AND b.object = o.object AND b.invalid_at IS NULL AND b.copy_of IS NOT NULL
        AND b.stated_at = o.stated_at
    WHERE o.dataset = $1 AND o.project_id = $2 AND o.episode_id = $6 AND o.stated_at < $7
        AND o.copy_of IS NULL AND o.invalid_at IS NOT NULL
    UNION ALL
    SELECT c.start, f.id, f.copy_of FROM copied c JOIN facts f ON f.id = c.copy_of
    WHERE f.dataset = $1 AND f.project_id = $2
)
SELECT 'name' AS part, n.name AS text, n.at, (SELECT max(id) FROM entities
    WHERE dataset = $1 AND project_id = $2 AND name = n.name) AS num, NULL AS why FROM named n
UNION ALL SELECT 'window', NULL, min(created_at), count(*), NULL FROM recent
UNION ALL (SELECT 'unseen', name, NULL, max(id), NULL FROM entities
    -- fact-less names only fill a list the named ones leave short: not read otherwise
    WHERE dataset = $1 AND project_id = $2 AND (SELECT count(*) FROM named) < $4
        AND name NOT IN (SELECT name FROM named)
    GROUP BY name ORDER BY max(id) DESC LIMIT $4)
UNION ALL (SELECT 'fact', subject || ' ' || predicate || ' ' || object, created_at, id, NULL
    FROM facts WHERE dataset = $1 AND project_id = $2 AND {_live()}
    ORDER BY created_at DESC, id DESC LIMIT $5)
-- the episode's own statements from a version older than this one ($6 episode, $7 its
-- completed_at; none for a first version), and the ends its closures gave: facts_by_episode
UNION ALL SELECT 'said', source_quote, NULL, id, untrusted_reason FROM facts
    WHERE dataset = $1 AND project_id = $2 AND episode_id = $6 AND stated_at < $7
        AND copy_of IS NULL AND invalid_at IS NULL
UNION ALL SELECT 'said', end_quote, NULL, id, NULL FROM facts
    WHERE dataset = $1 AND project_id = $2 AND episode_id = $6 AND end_reason = 'closed'
        AND end_quote IS NOT NULL AND invalid_at IS NULL
UNION ALL SELECT 'said', b.source_quote, NULL, b.id, b.untrusted_reason FROM copied c
    JOIN facts o ON o.id = c.id JOIN facts b ON b.id = c.start
    WHERE c.copy_of IS NULL AND o.episode_id = $6
"""


async def load_prompt_context(
    conn: Any, dataset: str, project_id: str, entity_limit: int, fact_limit: int,
    episode: tuple[str, datetime] | None = None,
) -> PromptContext:  # fmt: skip
    """Up to ``entity_limit`` entity names (those with recent live facts first) and the
    ``fact_limit`` most recent live facts, so names and predicates stay consistent; with
    ``episode`` (its id and completed_at), the believed facts an older version of it
    stated (streams/domain/versions.py).

    One statement reads the first window of :func:`_entity_names` together with the
    tie-break, the fact-less names and the recent facts; only a window that does not
    settle the names (a tenant whose newest facts name few entities) reads on."""
    window = max(2 * entity_limit, 64)
    episode_id, completed_at = episode if episode is not None else (None, None)
    rows = await conn.fetch(
        _CONTEXT, dataset, project_id, window, max(entity_limit, 0), max(fact_limit, 0),
        episode_id, completed_at,
    )  # fmt: skip
    parts: dict[str, list[Any]] = {"name": [], "window": [], "unseen": [], "fact": [], "said": []}
    for r in rows:
        parts[r["part"]].append(r)
    facts = sorted(parts["fact"], key=lambda r: (r["at"], r["num"]), reverse=True)
    recent_facts = [r["text"] for r in facts]
    earlier = [EarlierStatement(r["num"], r["text"], r["why"]) for r in parts["said"]]
    return PromptContext(
        await _names(conn, dataset, project_id, entity_limit, window, parts),
        recent_facts, earlier,
    )  # fmt: skip


async def _names(
    conn: Any, dataset: str, project_id: str, limit: int, window: int,
    parts: dict[str, list[Any]],
) -> list[str]:  # fmt: skip
    """The prompt's entity names from the context statement's first window, reading on
    only when it does not settle them."""
    if limit <= 0:
        return []
    [span] = parts["window"]
    everything = span["num"] < window
    last = {r["text"]: r["at"] for r in parts["name"]}
    certain = {n: t for n, t in last.items() if everything or t > span["at"]}
    if not everything and len(certain) < limit:
        return await _entity_names(conn, dataset, project_id, limit)
    newest = {r["text"]: r["num"] for r in parts["name"]}
    ranked = _ranked(certain, newest, limit)
    if len(ranked) < limit:  # every live fact was read: the rest have none
        ranked += [r["text"] for r in parts["unseen"]][: limit - len(ranked)]
    return ranked


def _ranked(certain: dict[str, Any], newest: dict[str, int], limit: int) -> list[str]:
    """Names by their latest live fact, ties by newest entity id, at most ``limit``."""
    return sorted(certain, key=lambda n: (certain[n], newest.get(n, 0)), reverse=True)[:limit]


async def _entity_names(conn: Any, dataset: str, project_id: str, limit: int) -> list[str]:
    """Names ordered by their entities' latest live fact (as subject or object), newest
    first, ties and then fact-less names by newest entity id.

    Most facts are about the user alone (subject "user", no object entity): they only
    date the user, so one probe reads the newest of them. The other live facts, those
    naming some other entity (``facts_live_entity_links``), are read newest first,
    ``2 * limit`` of them; when they do not settle ``limit`` names (each newer than
    anything unread), 8x more, and so on, then all of them: the same result as ranking
    every live fact, without reading them all on a big tenant."""
    if limit <= 0:
        return []
    user_rows = await conn.fetch(
        "SELECT created_at, subject_entity_id, NULL::bigint AS object_entity_id FROM facts"
        f" WHERE dataset = $1 AND project_id = $2 AND {_live()} AND subject = $3"
        " AND subject_entity_id IS NOT NULL ORDER BY created_at DESC LIMIT 1",
        dataset, project_id, USER_ENTITY,
    )  # fmt: skip
    # Nearly every one of these rows names an entity of its own: twice the limit is
    # usually enough, and the window grows when it is not.
    window: int | None = max(2 * limit, 64)
    while True:
        rows = await conn.fetch(
            "SELECT created_at, subject_entity_id, object_entity_id FROM facts"
            f" WHERE dataset = $1 AND project_id = $2 AND {_live()} AND {_NAMES_AN_ENTITY}"
            " ORDER BY created_at DESC LIMIT $3",
            dataset, project_id, window,
        )  # fmt: skip
        last_by_id: dict[int, Any] = {}
        for r in [*user_rows, *rows]:
            for entity_id in (r["subject_entity_id"], r["object_entity_id"]):
                if entity_id is not None:
                    seen = r["created_at"]
                    last_by_id[entity_id] = max(seen, last_by_id.get(entity_id, seen))
        everything = window is None or len(rows) < window
        cutoff = rows[-1]["created_at"] if rows else None
        last: dict[str, Any] = {}
        for e in await conn.fetch(
            "SELECT id, name FROM entities WHERE dataset = $1 AND project_id = $2"
            " AND id = ANY($3::bigint[])",
            dataset, project_id, list(last_by_id),
        ):  # fmt: skip
            seen = last_by_id[e["id"]]
            last[e["name"]] = max(seen, last.get(e["name"], seen))
        certain = {n: t for n, t in last.items() if everything or t > cutoff}
        if everything or window is None or len(certain) >= limit:
            break
        # A writer's facts share one created_at, so a window can end inside a tie.
        window = 8 * window if window < 128 * limit else None  # LIMIT NULL: all
    # Only names that can make the cut need the tie-break: those at least as recent as
    # the limit-th most recent.
    by_time = sorted(certain.values(), reverse=True)
    bar = by_time[limit - 1] if len(by_time) >= limit else None
    contenders = [n for n, t in certain.items() if bar is None or t >= bar]
    newest = {
        r["name"]: r["top"]
        for r in await conn.fetch(
            "SELECT name, max(id) AS top FROM entities WHERE dataset = $1 AND project_id = $2"
            " AND name = ANY($3::text[]) GROUP BY name",
            dataset, project_id, contenders,
        )
    }  # fmt: skip
    ranked = sorted(contenders, key=lambda n: (certain[n], newest.get(n, 0)), reverse=True)[:limit]
    if len(ranked) < limit:  # every live fact was read: the rest have none
        ranked += [
            r["name"]
            for r in await conn.fetch(
                "SELECT name FROM entities WHERE dataset = $1 AND project_id = $2"
                " AND NOT (name = ANY($3::text[])) GROUP BY name ORDER BY max(id) DESC LIMIT $4",
                dataset, project_id, list(last), limit - len(ranked),
            )
        ]  # fmt: skip
    return ranked


async def load_entity_types(
    conn: Any, dataset: str, project_id: str, names: Collection[str],
    record: Rider | None = None,
) -> dict[str, EntityType]:  # fmt: skip
    """For the guards, about exactly the names a graph mentions: their stored types.
    ``record`` (streams/store/llm_calls.py with_calls) stores model calls in the same
    round trip."""
    query = (
        # One probe per name, whatever the plan: as `name = ANY($3)` the generic plan a
        # prepared statement falls back to read all of a big tenant's entities by type.
        # A name stored under two types: the most recently created one wins.
        "SELECT n.name, e.type FROM unnest($3::text[]) AS n(name) CROSS JOIN LATERAL"
        " (SELECT type FROM entities WHERE dataset = $1 AND project_id = $2"
        "  AND name = n.name ORDER BY id DESC LIMIT 1) e"
    )
    args: list[Any] = [dataset, project_id, sorted(set(names))]
    if record is not None:
        query, args = record(query, args)
    rows = await conn.fetch(query, *args)
    return {r["name"]: _entity_type(r["type"]) for r in rows}


async def load_user_linked(
    conn: Any, dataset: str, project_id: str, names: Collection[str],
    record: Rider | None = None,
) -> frozenset[str]:  # fmt: skip
    """Which of ``names`` the user is linked to by a live stored relationship; ``record``
    as for :func:`load_entity_types`."""
    query = (
        "SELECT DISTINCT object FROM facts WHERE dataset = $1 AND project_id = $2"
        f" AND subject = $3 AND kind = 'relationship' AND object = ANY($4::text[]) AND {_live()}"
    )
    args: list[Any] = [dataset, project_id, USER_ENTITY, sorted(set(names))]
    if record is not None:
        query, args = record(query, args)
    linked = await conn.fetch(query, *args)
    return frozenset(r["object"] for r in linked)


def _entity_type(value: str) -> EntityType:
    try:
        return EntityType(value)
    except ValueError:
        return EntityType.THING
