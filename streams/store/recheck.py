"""What the writer's race re-check reads: the stored rows of the inserts' triples; and
the retirement of the rows it finds only told where an insert ends.

One statement under the tenant's lock (streams/store/write_steps.py): the believed rows
of the inserts' triples, and those the writing episode wrote before, with when each was
said and why its valid time ends, so the re-check can also tell a row said later that
only gave an insert's end (time.gave_only_its_end).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from streams.domain.time import gave_only_its_end
from streams.events import Fact

Triple = tuple[str, str, str]

_TENANT = "dataset = $1 AND project_id = $2"
_TRIPLES = (
    "(subject, predicate, object) IN (SELECT * FROM unnest($4::text[], $5::text[], $6::text[]))"
)
# Two branches, not `believed OR episode_id = $7`: the OR can use neither the triple
# index nor the episode index, and would read the tenant's whole table.
_SELECT = (
    "SELECT id, subject, predicate, object, valid_from, valid_until, stated_at, end_reason,"
    " invalid_at IS NULL AS believed, (valid_until IS NULL OR valid_until > $3) AS current,"
    # a row this episode's earlier version said and a newer one took back is not its own
    f" (episode_id = $7 AND invalid_reason IS DISTINCT FROM 'retracted') AS ours"
    f" FROM facts WHERE {_TENANT}"
)
_STORED = (
    f"{_SELECT} AND invalid_at IS NULL AND {_TRIPLES}"
    f" UNION {_SELECT} AND episode_id = $7 AND {_TRIPLES} ORDER BY id"
)


@dataclass(frozen=True)
class StoredRow:
    id: int
    valid_from: datetime | None
    valid_until: datetime | None
    believed: bool
    current: bool
    ours: bool  # written by this episode before (a replay or a redelivered reprocess),
    # and not taken back since by a newer version of it (streams/store/retraction.py)
    stated_at: datetime | None = None
    end_reason: str | None = None


async def stored_rows(
    conn: Any, tenant: tuple[str, str, datetime], triples: Sequence[Triple], episode_id: str
) -> dict[Triple, list[StoredRow]]:
    """Believed rows of ``triples``, and those ``episode_id`` wrote before, oldest first."""
    columns = [[t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]]
    found: dict[Triple, list[StoredRow]] = {}
    for r in await conn.fetch(_STORED, *tenant, *columns, episode_id):
        row = StoredRow(
            r["id"], r["valid_from"], r["valid_until"], r["believed"],
            r["believed"] and r["current"], r["ours"], r["stated_at"], r["end_reason"],
        )  # fmt: skip
        found.setdefault((r["subject"], r["predicate"], r["object"]), []).append(row)
    return found


def told_its_end(rows: Sequence[StoredRow], fact: Fact, stated_at: datetime) -> StoredRow | None:
    """A believed row of an open-ended insert's triple, said after it, that only told
    where it ends ("no longer moving to Berlin", stored before the plan arrived)."""
    if fact.valid_until is not None:
        return None
    return next((
        r for r in reversed(rows)
        if r.believed and gave_only_its_end(
            r.valid_from, r.valid_until, r.stated_at, r.end_reason, fact.valid_from, stated_at
        )
    ), None)  # fmt: skip


# $1 dataset, $2 project, $3 the transaction's clock, $4 rows, $5 the insert each names.
_RETIRE_TOLD = """
UPDATE facts f SET invalid_at = $3, invalid_reason = 'closed', invalidated_by = r.by
FROM unnest($4::bigint[], $5::bigint[]) AS r(id, by)
WHERE f.id = r.id AND f.dataset = $1 AND f.project_id = $2 AND f.invalid_at IS NULL
"""


async def retire_told_ends(
    conn: Any, tenant: tuple[str, str, datetime], rows: Sequence[tuple[int, int | None]]
) -> int:
    """Retire rows that only told where a fact said before them ends (a cancellation
    stored before its plan arrived: time.gave_only_its_end), each naming the insert that
    now carries its end (None: the fact was never true); returns how many retired."""
    status: str = await conn.execute(
        _RETIRE_TOLD, *tenant, [r[0] for r in rows], [r[1] for r in rows]
    )
    return int(status.rsplit(" ", 1)[-1])
