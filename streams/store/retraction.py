"""Taking back what an earlier version of an episode stated (streams/domain/versions.py).

One transaction under the tenant's writer lock (the one the writer takes, so no write of
the tenant runs meanwhile). A fact the newer version no longer states is ended in
transaction time with ``invalid_reason = 'retracted'`` and no copy (as far as the store
now believes, it was never said; ``--as-of`` before now still shows it). A fact a later
statement already ended is believed as the copy carrying that end: the copy is taken back
the same way. An end it no longer gives (a closure: "I sold my Civic", deleted) is taken
back too: the copy that carried the end is retracted and the fact is copied again with
the end it had before. A fact or an end another episode has stated again since stays.
Every row what was taken back had ended (a fact superseded, what a closure or a
supersession cascaded to; not what the fact itself had replaced, when only its end is
taken back) is believed again: with the end it had before, or, when a later
statement had replaced the withdrawn fact, ended where that one ended it (London, then
Paris, then Rome, with Paris deleted: London was true until Rome). It runs when the
extract stage starts the newer version, before the model is asked, so the rest of the
pipeline judges the newer version against the memory without what it took back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from streams.domain.closures import ENDED_LATER, ENDS_FACT
from streams.domain.dedup import EXACT, MATCHES_LIVE, NEAR, SIMILAR_TO_LIVE
from streams.store.locks import writer_lock
from streams.store.valid_ends import COPY_BACK, NOT_MOVED

_LOCK = (
    "SELECT set_config('lock_timeout', $2, true), set_config('statement_timeout', $3, true),"
    f" {writer_lock('$1')}, clock_timestamp() AS now"
)


def _said_elsewhere(row_id: str, *, end: bool = False) -> str:
    """A row another episode stated again while it was believed (its claim dropped by dedup
    as an exact or near duplicate of the row: the drop's detail begins with the row's id)
    is still the user's statement, a fact or an end alike: it stays. An ``end`` also stays
    when another episode said the fact ended, in a closure dropped because this end was
    said later ("sold it last week", arriving after "sold it 3 days ago"): the fact stays
    ended, if at the later statement's date."""

    def names_it(prefix: str) -> str:
        return f"starts_with(d.detail, '{prefix}' || {row_id} || ' ')"

    restated = f"d.reason IN ('{EXACT}', '{NEAR}')"
    restated += f" AND ({names_it(MATCHES_LIVE)} OR {names_it(SIMILAR_TO_LIVE)})"
    if end:
        restated = f"({restated}) OR (d.reason = '{ENDED_LATER}' AND {names_it(ENDS_FACT)})"
    return f"""EXISTS (
      SELECT 1 FROM fact_drops d
      WHERE d.dataset = $1 AND d.project_id = $2 AND d.episode_id <> $5 AND d.stage = 'dedup'
        AND ({restated}))"""


# $1 dataset, $2 project, $3 the transaction's clock, $4 ids, $5 the episode. Only what is
# still believed and was said by this episode itself: its facts, and its closures' ends.
_RETRACT = f"""
UPDATE facts SET invalid_at = $3, invalid_reason = 'retracted'
WHERE dataset = $1 AND project_id = $2 AND id = ANY($4::bigint[]) AND episode_id = $5
  AND copy_of IS NULL AND invalid_at IS NULL AND NOT {_said_elsewhere("facts.id")}
RETURNING id
"""
# The believed copies among the ids, each with every row up its chain to the original
# statement (a copy's own episode is the one that ended it; its original's, who said it).
_CHAINS = """
up(start, id, copy_of) AS (
    SELECT id, id, copy_of FROM facts
    WHERE dataset = $1 AND project_id = $2 AND id = ANY($4::bigint[]) AND copy_of IS NOT NULL
      AND invalid_at IS NULL
    UNION ALL
    SELECT up.start, f.id, f.copy_of FROM up JOIN facts f ON f.id = up.copy_of
    WHERE f.dataset = $1 AND f.project_id = $2
)"""
# A fact this episode stated and a later statement ended: its copy goes, unless another
# episode stated it again while any row of its chain was believed.
_RETRACT_ENDED = f"""
WITH RECURSIVE {_CHAINS}
UPDATE facts SET invalid_at = $3, invalid_reason = 'retracted'
WHERE dataset = $1 AND project_id = $2 AND invalid_at IS NULL
  AND id IN (SELECT up.start FROM up JOIN facts o ON o.id = up.id
             WHERE up.copy_of IS NULL AND o.episode_id = $5)
  AND NOT EXISTS (SELECT 1 FROM up u WHERE u.start = facts.id AND {_said_elsewhere("u.id")})
RETURNING id
"""


def _closed_by_this_episode(row: str) -> str:
    """Whether ``row`` carries an end this episode's closure gave ($5: the episode)."""
    return (
        f"({row}.episode_id = $5 AND {row}.end_reason = 'closed' AND {row}.end_quote IS NOT NULL)"
    )


def _end_withdrawn(row: str) -> str:
    """Whether ``row``'s end no longer stands: the row is taken back, its end is one this
    episode's closure gave, or the row that gave its end is either."""
    return f"""({row}.invalid_reason = 'retracted' OR {_closed_by_this_episode(row)}
        OR EXISTS (SELECT 1 FROM facts g WHERE g.id = {row}.ended_by
            AND (g.invalid_reason = 'retracted' OR {_closed_by_this_episode("g")})))"""


def _before(rows: str) -> str:
    """CTEs ``before(start, id)``: for each row of ``rows`` (a query of ids), the row whose
    end it had before what is taken back, the nearest up its chain whose end still
    stands. A row the chain skips carried an end taken back earlier (say "sold it a week
    ago", then "no, ten days ago", the second deleted: the week stands again) or given by
    this episode."""
    return f"""
chain(start, id, depth) AS (
    SELECT f.id, f.copy_of, 1 FROM facts f
    WHERE f.id IN ({rows}) AND f.dataset = $1 AND f.project_id = $2 AND f.copy_of IS NOT NULL
    UNION ALL
    SELECT c.start, f.copy_of, c.depth + 1 FROM chain c JOIN facts f ON f.id = c.id
    WHERE f.dataset = $1 AND f.project_id = $2 AND f.copy_of IS NOT NULL
      AND {_end_withdrawn("f")}
),
before AS (
    SELECT DISTINCT ON (c.start) c.start, c.id FROM chain c JOIN facts f ON f.id = c.id
    WHERE NOT {_end_withdrawn("f")} ORDER BY c.start, c.depth
)"""


_BEFORE_ID = "coalesce((SELECT w.id FROM before w WHERE w.start = {0}.id), {0}.copy_of)"
_UNCLOSE = f"""
WITH RECURSIVE {_before("SELECT unnest($4::bigint[])")},
back AS (
    UPDATE facts SET invalid_at = $3, invalid_reason = 'retracted'
    WHERE dataset = $1 AND project_id = $2 AND id = ANY($4::bigint[]) AND episode_id = $5
      AND end_reason = 'closed' AND end_quote IS NOT NULL AND invalid_at IS NULL
      AND NOT {_said_elsewhere("facts.id", end=True)}
    RETURNING *, {_BEFORE_ID.format("facts")} AS before_id, {NOT_MOVED}
)
{COPY_BACK}"""
# $1 dataset, $2 project, $3 the transaction's clock, $4 the rows taken back, $5 the
# episode, $6 those of them whose statement was withdrawn (not only their end). What a
# taken-back row had ended (``ended_by``) is retired ('reopened') and copied again with
# the end it had before; so is what any row up a withdrawn statement's chain had ended,
# and what the earlier copies of a withdrawn end (the same end, given by this episode)
# had ended. A withdrawn end leaves the fact, and what the fact replaced stays replaced.
# When the withdrawn fact had itself been superseded, the end moves to that
# supersession's if earlier (what replaced the withdrawn fact replaces what it had
# replaced).
_GONE = f"""
gone(id, taken, counts) AS (
    SELECT id, id, true FROM facts WHERE dataset = $1 AND project_id = $2
      AND id = ANY($4::bigint[]) AND invalid_reason = 'retracted'
    UNION ALL
    SELECT p.id, g.taken, g.taken = ANY($6::bigint[]) OR {_closed_by_this_episode("p")}
    FROM gone g JOIN facts f ON f.id = g.id JOIN facts p ON p.id = f.copy_of
    WHERE f.dataset = $1 AND f.project_id = $2
      AND (g.taken = ANY($6::bigint[]) OR p.copy_of IS NOT NULL)
)"""
_ENDED_BY_GONE = """SELECT f.id FROM facts f JOIN gone g ON f.ended_by = g.id AND g.counts
    WHERE f.dataset = $1 AND f.project_id = $2 AND f.invalid_at IS NULL
      AND f.copy_of IS NOT NULL"""
_REOPEN = f"""
WITH RECURSIVE {_GONE}, {_before(_ENDED_BY_GONE)},
back AS (
    UPDATE facts f SET invalid_at = $3, invalid_reason = 'reopened'
    FROM gone g JOIN facts w ON w.id = g.taken
    WHERE f.ended_by = g.id AND g.counts AND f.dataset = $1 AND f.project_id = $2
      AND f.invalid_at IS NULL AND f.copy_of IS NOT NULL
    RETURNING f.*, {_BEFORE_ID.format("f")} AS before_id,
        CASE WHEN w.end_reason = 'superseded' THEN w.valid_until END AS moved_until,
        w.ended_by AS moved_by
)
{COPY_BACK}"""


@dataclass(frozen=True)
class Retracted:
    facts: int  # taken back
    reopened: int  # believed again: what they had ended


async def retract(
    conn: Any, dataset: str, project_id: str, episode_id: str, fact_ids: Sequence[int],
    *, lock_timeout_ms: int, statement_timeout_ms: int,
) -> Retracted:  # fmt: skip
    """Take back ``fact_ids`` (facts ``episode_id`` stated in an earlier version) and
    believe again what they had ended."""
    if not fact_ids:
        return Retracted(0, 0)
    async with conn.transaction(isolation="read_committed"):
        now = (await conn.fetchrow(
            _LOCK, f"{dataset}:{project_id}", f"{lock_timeout_ms}ms", f"{statement_timeout_ms}ms"
        ))["now"]  # fmt: skip
        tenant, ids = (dataset, project_id, now), list(fact_ids)
        statements = [
            r["id"]
            for statement in (_RETRACT, _RETRACT_ENDED)
            for r in await conn.fetch(statement, *tenant, ids, episode_id)
        ]
        gone = len(statements) + len(await conn.fetch(_UNCLOSE, *tenant, ids, episode_id))
        back = len(await conn.fetch(_REOPEN, *tenant, ids, episode_id, statements)) if gone else 0
    return Retracted(gone, back)
