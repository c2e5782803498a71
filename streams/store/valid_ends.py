"""Ending facts in valid time without editing them: a copy carries the end, the row retires.

A row is never changed in valid time in place. To end a believed fact at a date, its row
is ended in transaction time (``invalid_at``, with the reason) and a copy is inserted
with ``valid_until`` at that date, ``copy_of`` naming the row it continues, and
``end_reason`` / ``ended_by`` saying why and by which row its valid time ends. A query
as of before the change sees the row open; after it, the copy with its end. A copy whose
end has already passed is history, searched by no one as live: it carries no embedding
(the row it continues keeps one), so it costs no vector-index insert.

The cascade (seed "Step 3" and "Step 5"): when the user's last link to an entity ends
(a link retired as never true included: "I sold my car last year" against "driving it
since March"), the facts anchored on that entity end at the same date, unless they were
said after the statement that ended the link (a statement never ends a fact said later).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from streams.events import USER_ENTITY, FactKind
from streams.store.chain_vector import vector_up_chain
from streams.store.tenant_indexes import has_graph_sql

EndReason = Literal["superseded", "closed", "cascade"]

_TENANT = "dataset = $1 AND project_id = $2"
COLUMNS = (
    "dataset, project_id, subject, predicate, object, kind, subject_entity_id,"
    " object_entity_id, confidence, source_quote, episode_id, embedding, valid_from,"
    " valid_until, created_at, stated_at, copy_of, ended_by, end_reason, untrusted_reason,"
    " graph_pending"
)
# graph_pending of a fact row written now: streams/store/graph_tail.py
PENDING = has_graph_sql("facts", "$1", "$2")
# The vector of an ended row that keeps none (an end moved from the past into the future)
_UP_CHAIN_OF_ENDED = vector_up_chain("ended.copy_of", "$1", "$2")
# $1 dataset, $2 project, $3 the transaction's clock, $4 ids, $5 end dates, $6 the rows
# that ended them, $7 the reason, $8 the writing episode, $9 keep an earlier end. A row
# whose end comes at or before its own valid_from (a plan superseded, closed or cascaded
# before its date: time.never_starts) is retired with no copy: it is no longer believed,
# and a fact never ends before it starts. An earlier end is kept ($9) unless the row that
# gave it is one of those, retired here as never true: "moving to Berlin in June", then
# "Munich in July instead" ends Oslo in July, not in June.
_END_ROWS = f"""
WITH l AS (SELECT * FROM unnest($4::bigint[], $5::timestamptz[], $6::bigint[]) AS l(id, until, by)),
never AS (
    SELECT f.id FROM facts f JOIN l ON f.id = l.id
    WHERE f.valid_from IS NOT NULL
      AND (CASE WHEN $9 THEN LEAST(f.valid_until, l.until) ELSE l.until END) <= f.valid_from
),
ended AS (
    UPDATE facts f SET invalid_at = $3, invalid_reason = $7,
        invalidated_by = CASE WHEN $7 = 'superseded' THEN l.by END
    FROM l WHERE f.id = l.id AND f.{_TENANT.replace(" AND ", " AND f.")} AND f.invalid_at IS NULL
    RETURNING f.*,
        CASE WHEN $9 AND NOT EXISTS (SELECT 1 FROM never n WHERE n.id = f.ended_by)
            THEN LEAST(f.valid_until, l.until) ELSE l.until END AS new_until,
        l.by AS new_by
)
INSERT INTO facts ({COLUMNS})
SELECT dataset, project_id, subject, predicate, object, kind, subject_entity_id,
    object_entity_id, confidence, source_quote, $8,
    CASE WHEN new_until > $3 THEN coalesce(embedding, {_UP_CHAIN_OF_ENDED}) END, valid_from,
    new_until, $3, stated_at, id, new_by, $7, untrusted_reason, {PENDING}
FROM ended WHERE valid_from IS NULL OR new_until > valid_from ORDER BY id
RETURNING id, copy_of, subject, object, kind, object_entity_id, valid_until
"""


# $1 rows just ended, $2 their copies, $3 the words that ended each (or NULL).
_NAME_COPIES = """
WITH c AS (
    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS c(original, copy, quote)
),
said AS (UPDATE facts SET end_quote = c.quote FROM c WHERE facts.id = c.copy AND c.quote <> '')
UPDATE facts SET invalidated_by = c.copy FROM c WHERE facts.id = c.original
"""


# Each retired row of ``back`` is copied again with the end it had before: that of the
# row ``before_id`` names (the row it continues, unless a retraction skips ends that are
# withdrawn), with that row's words for it (``end_quote``) and its episode, the one that
# gave the end, so that episode can still take the end back. Or it is copied at
# ``moved_until`` by ``moved_by``, when ``back`` gives an end that comes sooner (and
# after the row starts). A copy with no end, or a moved one, is written by this episode
# ($5). An open-ended copy gives way to an open-ended row of its triple. A ``back`` that
# moves no end returns NOT_MOVED with its rows.
NOT_MOVED = "NULL::timestamptz AS moved_until, NULL::bigint AS moved_by"
COPY_BACK = f"""
INSERT INTO facts ({COLUMNS}, end_quote)
SELECT b.dataset, b.project_id, b.subject, b.predicate, b.object, b.kind,
    b.subject_entity_id, b.object_entity_id, b.confidence, b.source_quote,
    CASE WHEN NOT m.moved AND o.valid_until IS NOT NULL THEN o.episode_id ELSE $5 END,
    CASE WHEN e.until IS NULL OR e.until > $3
        THEN coalesce(b.embedding, o.embedding, {vector_up_chain("o.copy_of", "$1", "$2")}) END,
    b.valid_from, e.until, $3, b.stated_at, b.id, e.by, e.reason, b.untrusted_reason, {PENDING},
    CASE WHEN m.moved THEN NULL ELSE o.end_quote END
FROM back b JOIN facts o ON o.id = b.before_id
CROSS JOIN LATERAL (SELECT coalesce(b.moved_until < o.valid_until, b.moved_until IS NOT NULL)
    AND (b.valid_from IS NULL OR b.moved_until > b.valid_from) AS moved) m
CROSS JOIN LATERAL (
    SELECT CASE WHEN m.moved THEN b.moved_until ELSE o.valid_until END AS until,
        CASE WHEN m.moved THEN b.moved_by ELSE o.ended_by END AS by,
        CASE WHEN m.moved THEN b.end_reason ELSE o.end_reason END AS reason) e
ORDER BY b.id
ON CONFLICT (dataset, project_id, subject, predicate, object)
    WHERE invalid_at IS NULL AND valid_until IS NULL DO NOTHING
RETURNING id
"""


def _reopen_sql(gone: str) -> str:
    return f"""
WITH gone AS ({gone}),
back AS (
    UPDATE facts f SET invalid_at = $3, invalid_reason = 'reopened'
    FROM gone WHERE f.ended_by = gone.id AND f.{_TENANT.replace(" AND ", " AND f.")}
      AND f.invalid_at IS NULL AND f.copy_of IS NOT NULL
    RETURNING f.*, f.copy_of AS before_id, {NOT_MOVED}
)
{COPY_BACK}"""


# $1 dataset, $2 project, $3 the transaction's clock, $4 rows just ended, $5 the writing
# episode. Of those, the ones retired with no copy (never true) gave ends they no longer
# stand behind: each live copy they ended is retired ('reopened') and copied again with
# the end it had before (its original's), so "moving to Berlin in June", then "not moving
# after all", leaves Oslo open-ended again (unless the episode itself just said so: its
# open-ended row stands, and the unique index keeps it one).
_OF_THESE = f"SELECT g.id FROM facts g WHERE g.{_TENANT.replace(' AND ', ' AND g.')}"
_REOPEN = _reopen_sql(
    f"{_OF_THESE} AND g.id = ANY($4::bigint[]) AND g.invalid_at IS NOT NULL"
    " AND NOT EXISTS (SELECT 1 FROM facts c WHERE c.copy_of = g.id AND c.invalid_at IS NULL)"
)


# $1 dataset, $2 project, $3 the transaction's clock, $4 ids, $5 their ends, $6 the reason.
# The user's links among them that this transaction retired with no copy (never true):
# what hangs on their entity ends all the same, at the end they were given.
_NEVER_TRUE_LINKS = f"""
SELECT f.id, f.id AS copy_of, f.subject, f.object, f.kind, f.object_entity_id,
    l.until AS valid_until
FROM facts f JOIN unnest($4::bigint[], $5::timestamptz[]) AS l(id, until) ON l.id = f.id
WHERE f.{_TENANT.replace(" AND ", " AND f.")} AND f.invalid_at = $3 AND f.invalid_reason = $6
  AND f.subject = '{USER_ENTITY}' AND f.kind = '{FactKind.RELATIONSHIP.value}'
  AND NOT EXISTS (SELECT 1 FROM facts c WHERE c.copy_of = f.id)
ORDER BY f.id
"""


@dataclass(frozen=True)
class Ended:
    """What ending rows wrote: the copies carrying the ends, and the user's links retired
    with no copy (never true; each as its row with the end it was given as valid_until)."""

    copies: list[Any]
    never_true_links: list[Any]


@dataclass(frozen=True)
class EndedLink:
    """A user->entity relationship whose valid time this transaction ended."""

    name: str
    entity_id: int | None
    until: datetime
    by: int | None  # the row that ended it: the winner, or the closure's copy
    # A closure's: the row whose end it replaced (what that row's end cascaded to follows).
    moved_from: int | None = None


async def end_rows(
    conn: Any,
    tenant: tuple[str, str, datetime],
    episode_id: str,
    ends: Sequence[tuple[int, datetime, int | None]],
    reason: EndReason,
    *,
    keep_earlier_end: bool,
    quotes: Sequence[str] = (),
) -> Ended:
    """End each (row id, date, ended by) at its date; returns the copies inserted (a row
    already ended in transaction time, by a concurrent job or above, is left alone) and
    the user's links retired as never true. ``quotes``: the user's words that ended each
    row (closures), kept on its copy as ``end_quote``."""
    if not ends:
        return Ended([], [])
    copies: list[Any] = await conn.fetch(
        _END_ROWS,
        *tenant,
        [e[0] for e in ends],
        [e[1] for e in ends],
        [e[2] for e in ends],
        reason,
        episode_id,
        keep_earlier_end,
    )
    if reason != "superseded":  # the retired row names its copy, as a closure always did
        said = dict(zip([e[0] for e in ends], quotes, strict=False))
        await conn.execute(
            _NAME_COPIES, [c["copy_of"] for c in copies], [c["id"] for c in copies],
            [said.get(c["copy_of"]) for c in copies],
        )  # fmt: skip
    never: list[Any] = []
    if len(copies) < len(ends):  # some row ended with no copy: never true
        await reopen(conn, tenant, episode_id, [e[0] for e in ends])
        never = await conn.fetch(
            _NEVER_TRUE_LINKS, *tenant, [e[0] for e in ends], [e[1] for e in ends], reason
        )
    return Ended(copies, never)


async def reopen(
    conn: Any, tenant: tuple[str, str, datetime], episode_id: str, retired: Sequence[int]
) -> int:
    """Of ``retired``, the rows now retired with no copy (never true) no longer stand
    behind the ends they gave: each live copy they ended is believed again with the end it
    had before. Returns how many came back."""
    return len(await conn.fetch(_REOPEN, *tenant, list(retired), episode_id))


def user_links(ended: Ended, by: dict[int, int | None], *, closed: bool = False) -> list[EndedLink]:
    """The user's relationships to an entity that ended (copies, and links retired as
    never true): links whose end may cascade. ``by`` maps each ended row to what ended it
    (None: its copy, or for a link never true, the link itself); ``closed``: ended by the
    user's closures, whose date may move an end already given."""
    return [
        EndedLink(
            c["object"], c["object_entity_id"], c["valid_until"], by.get(c["copy_of"], c["id"]),
            c["copy_of"] if closed and c["copy_of"] != c["id"] else None,
        )
        for c in [*ended.copies, *ended.never_true_links]
        if c["subject"] == USER_ENTITY and c["kind"] == FactKind.RELATIONSHIP.value
    ]  # fmt: skip


# $1 dataset, $2 project, $3 the transaction's clock, $4 link rows a closure just ended
# again, $5 their new copies, $6 the new ends, $7 the writing episode. What the old row's
# end cascaded to ends where the link now ends, when that is later ("sold it 2 weeks ago",
# then "no, 3 days ago": the mileage was true until 3 days ago); an earlier end moves by
# the cascade itself.
_FOLLOW = f"""
WITH m AS (
    SELECT * FROM unnest($4::bigint[], $5::bigint[], $6::timestamptz[]) AS m(old, new, until)
),
back AS (
    UPDATE facts f SET invalid_at = $3, invalid_reason = 'reopened'
    FROM m WHERE f.ended_by = m.old AND f.{_TENANT.replace(" AND ", " AND f.")}
      AND f.invalid_at IS NULL AND f.end_reason = 'cascade' AND f.valid_until < m.until
    RETURNING f.*, m.new AS new_by, m.until AS new_until
)
INSERT INTO facts ({COLUMNS})
SELECT b.dataset, b.project_id, b.subject, b.predicate, b.object, b.kind,
    b.subject_entity_id, b.object_entity_id, b.confidence, b.source_quote, $7,
    CASE WHEN b.new_until > $3
        THEN coalesce(b.embedding, o.embedding, {vector_up_chain("o.copy_of", "$1", "$2")}) END,
    b.valid_from, b.new_until, $3, b.stated_at, b.id, b.new_by, 'cascade',
    b.untrusted_reason, {PENDING}
FROM back b LEFT JOIN facts o ON o.id = b.copy_of
ORDER BY b.id
RETURNING id
"""


_REMAINING = (
    f"SELECT count(*) FROM facts WHERE {_TENANT} AND invalid_at IS NULL AND subject = 'user'"
    " AND kind = 'relationship' AND (object = $3 OR object_entity_id = $4)"
    " AND (valid_until IS NULL OR valid_until > $5)"
)
_ANCHORED = (
    f"SELECT id FROM facts WHERE {_TENANT} AND invalid_at IS NULL AND subject <> 'user'"
    " AND (subject = $3 OR subject_entity_id = $4) AND (valid_until IS NULL OR valid_until > $5)"
    " AND stated_at <= $6 ORDER BY id"
)


async def cascade(
    conn: Any,
    tenant: tuple[str, str, datetime],
    episode_id: str,
    links: Sequence[EndedLink],
    stated_at: datetime,
) -> int:
    """End the facts anchored on every entity whose last user link ended here, at the
    link's end; returns how many ended. ``stated_at``: when the ending was said."""
    moved = [x for x in links if x.moved_from is not None]
    ended = len(await conn.fetch(
        _FOLLOW, *tenant, [x.moved_from for x in moved], [x.by for x in moved],
        [x.until for x in moved], episode_id,
    )) if moved else 0  # fmt: skip
    by_entity: dict[str, list[EndedLink]] = {}
    for link in links:
        by_entity.setdefault(link.name, []).append(link)
    for name, group in by_entity.items():
        entity_id = next((x.entity_id for x in group if x.entity_id is not None), None)
        last = max(group, key=lambda x: x.until)
        # A link still valid after this one ends keeps the entity in the user's world.
        if await conn.fetchval(_REMAINING, tenant[0], tenant[1], name, entity_id, last.until):
            continue
        anchored = await conn.fetch(
            _ANCHORED, tenant[0], tenant[1], name, entity_id, last.until, stated_at
        )
        ends = [(r["id"], last.until, last.by) for r in anchored]
        done = await end_rows(conn, tenant, episode_id, ends, "cascade", keep_earlier_end=True)
        ended += len(done.copies)
    return ended
