"""Taking back what an earlier version of an episode stated (streams/domain/versions.py).

One transaction under the tenant's writer lock (the one the writer takes, so no write of
the tenant runs meanwhile). A fact the newer version no longer states is ended in
transaction time with ``invalid_reason = 'retracted'`` and no copy (as far as the store
now believes, it was never said; ``--as-of`` before now still shows it). An end it no
longer gives (a closure: "I sold my Civic", deleted) is taken back the same way: the copy
that carried the end is retracted and the fact is copied again with the end it had
before. A fact another episode has stated again since stays. Either way every row they
had ended (a fact superseded, what a closure or a supersession cascaded to) is believed
again with its earlier end (streams/store/valid_ends.py ``reopen``). It runs when the
extract stage starts the newer version, before the model is asked, so the rest of the
pipeline judges the newer version against the memory without what it took back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from streams.domain.dedup import EXACT, MATCHES_LIVE, NEAR, SIMILAR_TO_LIVE
from streams.store.locks import writer_lock
from streams.store.valid_ends import COPY_BACK, reopen

_LOCK = (
    "SELECT set_config('lock_timeout', $2, true), set_config('statement_timeout', $3, true),"
    f" {writer_lock('$1')}, clock_timestamp() AS now"
)
# A row another episode stated again while it was believed (its claim dropped by dedup as
# an exact or near duplicate of the row: the drop's detail begins with the row's id) is
# still the user's statement, a fact or an end alike: it stays.
_NOT_SAID_ELSEWHERE = f"""NOT EXISTS (
      SELECT 1 FROM fact_drops d
      WHERE d.dataset = $1 AND d.project_id = $2 AND d.episode_id <> $5
        AND d.stage = 'dedup' AND d.reason IN ('{EXACT}', '{NEAR}')
        AND (starts_with(d.detail, '{MATCHES_LIVE}' || facts.id || ' ')
             OR starts_with(d.detail, '{SIMILAR_TO_LIVE}' || facts.id || ' ')))"""
# $1 dataset, $2 project, $3 the transaction's clock, $4 ids, $5 the episode. Only what is
# still believed and was said by this episode itself: its facts, and its closures' ends.
_RETRACT = f"""
UPDATE facts SET invalid_at = $3, invalid_reason = 'retracted'
WHERE dataset = $1 AND project_id = $2 AND id = ANY($4::bigint[]) AND episode_id = $5
  AND copy_of IS NULL AND invalid_at IS NULL AND {_NOT_SAID_ELSEWHERE}
RETURNING id
"""
_UNCLOSE = f"""
WITH back AS (
    UPDATE facts SET invalid_at = $3, invalid_reason = 'retracted'
    WHERE dataset = $1 AND project_id = $2 AND id = ANY($4::bigint[]) AND episode_id = $5
      AND end_reason = 'closed' AND end_quote IS NOT NULL AND invalid_at IS NULL
      AND {_NOT_SAID_ELSEWHERE}
    RETURNING *
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
        gone = len(await conn.fetch(_RETRACT, *tenant, ids, episode_id))
        gone += len(await conn.fetch(_UNCLOSE, *tenant, ids, episode_id))
        back = await reopen(conn, tenant, episode_id, ids, retracted=True) if gone else 0
    return Retracted(gone, back)
