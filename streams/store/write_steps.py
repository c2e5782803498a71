"""The steps of the writer's transaction, run under the tenant's advisory lock.

See :mod:`streams.store.writer` for the order, the closure representation and the
cascade rule. Every statement filters on the tenant; ``$1, $2, $3`` are always
dataset, project_id and the transaction's clock (taken right after the lock).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pgvector import Vector

from streams.events import USER_ENTITY, Candidate, Dropped, DropStage, FactKind, FactsJudged

Triple = tuple[str, str, str]

_TRIPLES = (
    "(subject, predicate, object) IN (SELECT * FROM unnest($4::text[], $5::text[], $6::text[]))"
)
_TENANT = "dataset = $1 AND project_id = $2"
_LIVE = "invalid_at IS NULL AND (valid_until IS NULL OR valid_until > $3)"
_COLUMNS = (
    "dataset, project_id, subject, predicate, object, kind, subject_entity_id,"
    " object_entity_id, confidence, source_quote, episode_id, embedding, valid_from,"
    " valid_until, created_at"
)
_ON_LIVE_CONFLICT = (
    " ON CONFLICT (dataset, project_id, subject, predicate, object) WHERE invalid_at IS NULL"
    " DO NOTHING RETURNING id"
)
_ENDED = "RETURNING id, subject, object, kind, object_entity_id"


@dataclass
class WriteResult:
    inserted: int = 0
    invalidated: int = 0
    closed: int = 0
    cascaded: int = 0
    dropped_by_recheck: int = 0
    renewed: int = 0
    redelivered: bool = False
    drops: list[Dropped] = field(default_factory=list)


@dataclass
class _Link:
    """A user→entity relationship this transaction ended."""

    name: str
    entity_id: int | None
    by: int | None  # the row that ended it
    until: datetime | None  # None: ended now (superseded); else closed at this time
    exclude: int | None = None  # the closed copy, which must not count as a remaining link


class EpisodeWriter:
    def __init__(self, conn: Any, event: FactsJudged, now: datetime) -> None:
        self.conn, self.event, self.now = conn, event, now
        self.t = (event.dataset, event.project_id, now)
        self.result = WriteResult()
        self.live_ids: dict[Triple, int] = {}  # triples live before this transaction

    async def run(self) -> WriteResult:
        survivors = await self._recheck()
        renewed = await self._renew([c for _, c in survivors])
        new_ids = await self._insert(survivors)
        by_triple = {self.event.inserts[i].fact.triple: new for i, new in new_ids.items()}
        for triple, old_ids in renewed.items():
            if (by := by_triple.get(triple)) is not None:
                await self.conn.execute(
                    "UPDATE facts SET invalidated_by = $2 WHERE id = ANY($1::bigint[])", old_ids, by
                )
        links = await self._invalidate_losers(new_ids)
        links += await self._apply_closures()
        await self._cascade(links)
        return self.result

    def _drop(self, c: Candidate, reason: str, detail: str) -> None:
        f = c.fact
        self.result.drops.append(
            Dropped(
                stage=DropStage.WRITE,
                reason=reason,
                detail=detail,
                subject=f.subject,
                predicate=f.predicate,
                object=f.object,
            )
        )

    def _triple_args(self, triples: Sequence[Triple]) -> list[list[str]]:
        return [[t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]]

    async def _recheck(self) -> list[tuple[int, Candidate]]:
        """Drop staged inserts whose triple a concurrent job committed meanwhile, and those
        this episode already wrote before, whatever became of them since: a reprocessed
        (replayed) episode must not bring back what a later episode ended, so replaying a
        history twice converges instead of appending the same rows again."""
        inserts = self.event.inserts
        # Two branches, not `live OR episode_id = $7`: the OR can use neither the live-triple
        # nor the episode index, and would read the tenant's whole fact table.
        select = f"SELECT id, subject, predicate, object, {_LIVE} AS live FROM facts"
        select += f" WHERE {_TENANT}"
        rows = await self.conn.fetch(
            f"{select} AND {_LIVE} AND {_TRIPLES}"
            f" UNION {select} AND episode_id = $7 AND {_TRIPLES} ORDER BY id",
            *self.t,
            *self._triple_args([c.fact.triple for c in inserts]),
            self.event.episode_id,
        )
        found = [((r["subject"], r["predicate"], r["object"]), r["id"], r["live"]) for r in rows]
        self.live_ids = {t: fact_id for t, fact_id, live in found if live}
        written = {t: fact_id for t, fact_id, live in found if not live}
        survivors: list[tuple[int, Candidate]] = []
        for index, c in enumerate(inserts):
            if (live := self.live_ids.get(c.fact.triple)) is not None:
                self.result.dropped_by_recheck += 1
                self._drop(c, "race_recheck", f"already live as fact #{live}")
            elif (own := written.get(c.fact.triple)) is not None:
                self.result.dropped_by_recheck += 1
                self._drop(c, "already_written", f"this episode already wrote it as fact #{own}")
            else:
                survivors.append((index, c))
        return survivors

    async def _renew(self, survivors: Sequence[Candidate]) -> dict[Triple, list[int]]:
        rows = await self.conn.fetch(
            "UPDATE facts SET invalid_at = $3, invalid_reason = 'renewed'"
            f" WHERE {_TENANT} AND invalid_at IS NULL AND valid_until <= $3 AND {_TRIPLES}"
            " RETURNING id, subject, predicate, object",
            *self.t,
            *self._triple_args([c.fact.triple for c in survivors]),
        )
        renewed: dict[Triple, list[int]] = {}
        for r in rows:
            renewed.setdefault((r["subject"], r["predicate"], r["object"]), []).append(r["id"])
        self.result.renewed = len(rows)
        return renewed

    async def _insert(self, survivors: Sequence[tuple[int, Candidate]]) -> dict[int, int]:
        """Insert survivors in one statement; returns the new ids by index into the
        event's inserts. Rows go in event order, so of two equal triples the first lands
        and the partial unique index refuses the second (DO NOTHING, as for a row a
        concurrent job made live)."""
        if not survivors:
            return {}
        facts = [c.fact for _, c in survivors]
        rows = await self.conn.fetch(
            f"INSERT INTO facts ({_COLUMNS}) SELECT $1, $2, s, p, o, k, se, oe, conf, q, $4,"
            " e, vf, vu, $3 FROM unnest($5::text[], $6::text[], $7::text[], $8::text[],"
            " $9::bigint[], $10::bigint[], $11::real[], $12::text[], $13::vector[],"
            " $14::timestamptz[], $15::timestamptz[]) WITH ORDINALITY"
            " AS t(s, p, o, k, se, oe, conf, q, e, vf, vu, n) ORDER BY n"
            + _ON_LIVE_CONFLICT
            + ", subject, predicate, object",
            *self.t,
            self.event.episode_id,
            [f.subject for f in facts],
            [f.predicate for f in facts],
            [f.object for f in facts],
            [FactKind(f.kind).value for f in facts],
            [f.subject_entity_id for f in facts],
            [f.object_entity_id for f in facts],
            [f.confidence for f in facts],
            [f.source_quote for f in facts],
            [Vector(c.embedding) if c.embedding else None for _, c in survivors],
            [f.valid_from for f in facts],
            [f.valid_until for f in facts],
        )
        landed = {(r["subject"], r["predicate"], r["object"]): r["id"] for r in rows}
        ids: dict[int, int] = {}
        for index, c in survivors:
            new_id = landed.pop(c.fact.triple, None)  # pop: a repeat of the triple did not land
            if new_id is None:  # the unique index's backstop (a duplicate in the batch)
                self._drop(c, "live_conflict", "the partial unique index refused a second live row")
                continue
            ids[index] = new_id
            self.result.inserted += 1
        return ids

    async def _invalidate_losers(self, new_ids: dict[int, int]) -> list[_Link]:
        """End every loser whose replacement landed, in one statement."""
        winners: dict[int, int] = {}  # loser -> the row that ends it; the first verdict wins
        for inv in self.event.invalidations:
            winner = self.event.inserts[inv.by_candidate].fact.triple
            # A winner dropped by the re-check is live anyway: end the loser in its name.
            by = new_ids.get(inv.by_candidate) or self.live_ids.get(winner)
            if by is not None:  # never end a fact whose replacement did not land
                winners.setdefault(inv.fact_id, by)
        if not winners:
            return []
        rows = await self.conn.fetch(
            "UPDATE facts SET invalid_at = $3, invalid_reason = 'superseded',"
            " invalidated_by = l.winner FROM unnest($4::bigint[], $5::bigint[]) AS l(loser, winner)"
            f" WHERE id = l.loser AND {_TENANT} AND invalid_at IS NULL {_ENDED}, l.winner",
            *self.t,
            list(winners),
            list(winners.values()),
        )
        order = {loser: i for i, loser in enumerate(winners)}
        links: list[_Link] = []
        for row in sorted(rows, key=lambda r: order[r["id"]]):
            self.result.invalidated += 1
            links += self._user_link(row, row["winner"], None)
        return links

    async def _apply_closures(self) -> list[_Link]:
        links: list[_Link] = []
        for closure in self.event.closures:
            ended = await self._close(closure.fact_id, closure.valid_until, "closed", least=False)
            if ended is not None:
                row, copy_id = ended
                self.result.closed += 1
                links += self._user_link(row, copy_id, closure.valid_until, exclude=copy_id)
        return links

    async def _close(
        self, fact_id: int, until: datetime, reason: str, *, least: bool
    ) -> tuple[Any, int | None] | None:
        """End a live row in transaction time and insert its copy ending at ``until``."""
        row = await self.conn.fetchrow(
            f"UPDATE facts SET invalid_at = $3, invalid_reason = $5"
            f" WHERE id = $4 AND {_TENANT} AND invalid_at IS NULL {_ENDED}",
            *self.t,
            fact_id,
            reason,
        )
        if row is None:
            return None  # already ended (by a loser above, or a concurrent job)
        until_sql = "LEAST(valid_until, $5)" if least else "$5::timestamptz"
        copy_id = await self.conn.fetchval(
            f"INSERT INTO facts ({_COLUMNS}) SELECT dataset, project_id, subject, predicate,"
            " object, kind, subject_entity_id, object_entity_id, confidence, source_quote, $6,"
            f" embedding, valid_from, {until_sql}, $3 FROM facts WHERE id = $4 AND {_TENANT}"
            + _ON_LIVE_CONFLICT,
            *self.t,
            fact_id,
            until,
            self.event.episode_id,
        )
        if copy_id is not None:
            await self.conn.execute(
                "UPDATE facts SET invalidated_by = $2 WHERE id = $1", fact_id, copy_id
            )
        return row, copy_id

    def _user_link(
        self, row: Any, by: int | None, until: datetime | None, exclude: int | None = None
    ) -> list[_Link]:
        if row["subject"] != USER_ENTITY or row["kind"] != FactKind.RELATIONSHIP.value:
            return []
        return [_Link(row["object"], row["object_entity_id"], by, until, exclude)]

    async def _cascade(self, links: Sequence[_Link]) -> None:
        """End the own facts of every entity whose last live user link ended here."""
        by_entity: dict[str, list[_Link]] = {}
        for link in links:
            by_entity.setdefault(link.name, []).append(link)
        excluded = [link.exclude for link in links if link.exclude is not None]
        for name, group in by_entity.items():
            entity_id = next((x.entity_id for x in group if x.entity_id is not None), None)
            remaining = await self.conn.fetchval(
                f"SELECT count(*) FROM facts WHERE {_TENANT} AND {_LIVE} AND subject = 'user'"
                " AND kind = 'relationship' AND (object = $4 OR object_entity_id = $5)"
                " AND NOT (id = ANY($6::bigint[]))",
                *self.t,
                name,
                entity_id,
                excluded,
            )
            if remaining:
                continue
            anchored = [
                r["id"]
                for r in await self.conn.fetch(
                    f"SELECT id FROM facts WHERE {_TENANT} AND {_LIVE} AND subject <> 'user'"
                    " AND (subject = $4 OR subject_entity_id = $5) ORDER BY id",
                    *self.t,
                    name,
                    entity_id,
                )
            ]
            ended_now = [x for x in group if x.until is None]
            if ended_now:  # a superseded link: its entity's facts end now
                status = await self.conn.execute(
                    "UPDATE facts SET invalid_at = $3, invalid_reason = 'cascade', invalidated_by"
                    f" = $5 WHERE id = ANY($4::bigint[]) AND {_TENANT} AND invalid_at IS NULL",
                    *self.t,
                    anchored,
                    ended_now[0].by,
                )
                self.result.cascaded += int(status.split()[-1])
                continue
            until = max(x.until for x in group if x.until is not None)
            for fact_id in anchored:
                if await self._close(fact_id, until, "cascade", least=True) is not None:
                    self.result.cascaded += 1
