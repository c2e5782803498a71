"""The steps of the writer's transaction, run under the tenant's advisory lock.

See :mod:`streams.store.writer` for the order, and :mod:`streams.store.valid_ends` for how
a fact's valid time ends (a copy carries the end) and the cascade. Every statement filters
on the tenant; ``$1, $2, $3`` are always dataset, project_id and the transaction's clock
(taken right after the lock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pgvector import Vector

from streams.domain.closures import ENDED_LATER
from streams.domain.time import effective_start, is_current, never_starts
from streams.events import Candidate, Dropped, DropStage, FactKind, FactsJudged
from streams.store import valid_ends
from streams.store.recheck import StoredRow, retire_told_ends, stored_rows, told_its_end
from streams.store.statements import Rider
from streams.store.valid_ends import COLUMNS, PENDING, EndedLink

Triple = tuple[str, str, str]

# Ids a record names are kept only when they are this tenant's rows: a forged or stale
# record may name another tenant's entity or fact (or none), which would link across
# tenants or fail the foreign key; such an id is stored as unknown (NULL).
_OWN_IDS = (
    "SELECT (SELECT id FROM entities WHERE id = t.se AND dataset = $1 AND project_id = $2) AS se,"
    " (SELECT id FROM entities WHERE id = t.oe AND dataset = $1 AND project_id = $2) AS oe,"
    " (SELECT id FROM facts WHERE id = t.eb AND dataset = $1 AND project_id = $2) AS eb"
)
# A fact anchored on an entity (its subject, not the user) is born with the end of the
# user's link to it when every live link ends ahead ("I'm selling my Volvo next month",
# then "it passed 45000 km"): it lasts as long as the Volvo is the user's, as the cascade
# ends the anchored facts said before. An open link (listed first), one already past, or
# one that ends before the fact starts ("insured by Geico from next month", after "selling
# it next week": a fact never ends before it starts) gives no end.
_LINK_END = (
    "SELECT CASE WHEN l.valid_until > $3 AND (t.vf IS NULL OR t.vf < l.valid_until)"
    " THEN l.valid_until END AS until,"
    " CASE WHEN l.valid_until > $3 AND (t.vf IS NULL OR t.vf < l.valid_until)"
    " THEN l.id END AS by"
    " FROM facts l WHERE t.s <> 'user' AND t.vu IS NULL AND l.dataset = $1"
    " AND l.project_id = $2 AND l.invalid_at IS NULL AND l.subject = 'user'"
    " AND l.kind = 'relationship' AND (l.object = t.s OR l.object_entity_id = own.se)"
    " ORDER BY l.valid_until DESC NULLS FIRST LIMIT 1"
)
_ON_OPEN_CONFLICT = (
    " ON CONFLICT (dataset, project_id, subject, predicate, object)"
    " WHERE invalid_at IS NULL AND valid_until IS NULL DO NOTHING RETURNING id"
)


@dataclass
class WriteResult:
    inserted: int = 0
    invalidated: int = 0
    closed: int = 0
    cascaded: int = 0
    dropped_by_recheck: int = 0
    redelivered: bool = False
    drops: list[Dropped] = field(default_factory=list)


class VectorsMissing(Exception):
    """Inserts whose embedding was neither given nor staged (a replayed or redriven record
    after the sweep purged them, or a Postgres restart emptied the unlogged table): the
    write stage embeds them and writes the episode again."""

    def __init__(self, inserts: Sequence[int]) -> None:
        super().__init__(f"no staged embedding for inserts {list(inserts)}")
        self.inserts = list(inserts)


class EpisodeWriter:
    def __init__(
        self, conn: Any, event: FactsJudged, now: datetime, stated_at: datetime,
        vectors: Mapping[int, list[float]] | None = None,
        finish: Callable[[Sequence[Dropped]], Rider] | None = None,
    ) -> None:  # fmt: skip
        """``finish``: the writes that end the episode, given the drops so far; they ride
        on the insert (one round trip less). ``finished_with`` then says how many of
        ``result.drops`` they stored; None: there was no insert to ride on."""
        self.conn, self.event, self.now, self.stated_at = conn, event, now, stated_at
        self.finish = finish
        self.finished_with: int | None = None
        self.vectors: Mapping[int, list[float]] = vectors or {}
        self.t = (event.dataset, event.project_id, now)
        self.result = WriteResult()
        self.live_ids: dict[Triple, int] = {}  # triples current before this transaction
        # Rows that only told an insert's end: retired, naming that insert (None: never true).
        self.retire: dict[int, int | None] = {}
        self.never_true: set[int] = set()  # inserts such a row ends before they start

    async def run(self) -> WriteResult:
        survivors = await self._recheck()
        new_ids = await self._insert(survivors)
        if self.retire:  # rare: one statement more
            named = [(row, None if i is None else new_ids.get(i)) for row, i in self.retire.items()]
            self.result.closed += await retire_told_ends(self.conn, self.t, named)
        links = await self._supersede(new_ids)
        links += await self._apply_closures()
        self.result.cascaded = await valid_ends.cascade(
            self.conn, self.t, self.event.episode_id, links, self.stated_at
        )
        return self.result

    def _drop(self, c: Candidate, reason: str, detail: str) -> None:
        f = c.fact
        dropped = Dropped(
            stage=DropStage.WRITE, reason=reason, detail=detail,
            subject=f.subject, predicate=f.predicate, object=f.object,
        )  # fmt: skip
        self.result.drops.append(dropped)
        self.result.dropped_by_recheck += 1

    async def _recheck(self) -> list[tuple[int, Candidate]]:
        """Drop staged inserts whose triple a concurrent job made current meanwhile, those
        stored already with the same validity, and those this episode wrote before, whatever
        became of them since: a reprocessed (replayed) episode must not bring back what a
        later episode ended, so replaying a history twice converges. An insert arriving
        after a row said later that only told where it ends is ended there instead."""
        inserts = self.event.inserts
        triples = [c.fact.triple for c in inserts]
        stored = await stored_rows(self.conn, self.t, triples, self.event.episode_id)
        survivors: list[tuple[int, Candidate]] = []
        for index, c in enumerate(inserts):
            rows = stored.get(c.fact.triple, [])
            if current := next((r for r in rows if r.current), None):
                self.live_ids[c.fact.triple] = current.id
            same = next((r for r in rows if r.believed and self._same_time(c, r)), None)
            own = next((r for r in rows if r.ours), None)
            if own is None and (told := told_its_end(rows, c.fact, self.stated_at)) is not None:
                self._end_where_told(index, c, told, survivors)
            elif current is not None and is_current(c.fact.valid_until, self.now):
                self._drop(c, "race_recheck", f"already live as fact #{current.id}")
            elif own is not None:
                self._drop(c, "already_written", f"this episode already wrote it as fact #{own.id}")
            elif same is not None:
                self._drop(c, "already_stored", f"stored with the same validity as fact #{same.id}")
            else:
                survivors.append((index, c))
        return survivors

    def _end_where_told(
        self, index: int, c: Candidate, told: StoredRow, survivors: list[tuple[int, Candidate]]
    ) -> None:
        """As if said in order: the insert ends where ``told`` says (closed), or, when that
        is at or before its start, is never true (dropped); ``told`` retires either way,
        its end carried by the insert."""
        end = told.valid_until
        assert end is not None
        never = never_starts(end, c.fact.valid_from)
        self.retire[told.id] = None if never else index
        if never:
            self.never_true.add(index)
            detail = f"fact #{told.id}, said later, ends it at {end.isoformat()}, before it starts"
            self._drop(c, ENDED_LATER, detail)
            return
        fact = c.fact.model_copy(update={"valid_until": end})
        survivors.append((index, c.model_copy(update={"fact": fact, "ended_by": told.id})))

    @staticmethod
    def _same_time(c: Candidate, row: StoredRow) -> bool:
        return c.fact.valid_until == row.valid_until and (
            c.fact.valid_from is None or c.fact.valid_from == row.valid_from
        )

    async def _insert(self, survivors: Sequence[tuple[int, Candidate]]) -> dict[int, int]:
        """Insert survivors in one statement; returns the new ids by index into the
        event's inserts. Rows go in event order, so of two equal open triples the first
        lands and the partial unique index refuses the second. Embeddings come from
        ``self.vectors`` (embedded by the write stage) or are consumed from where dedup
        staged them, in the same statement; a row left without one is refused
        (:class:`VectorsMissing`), so the whole transaction rolls back."""
        if not survivors:
            return {}
        facts = [c.fact for _, c in survivors]
        given = [self.vectors.get(i) for i, _ in survivors]
        query = (
            "WITH staged AS (DELETE FROM staged_vectors WHERE dataset = $1 AND project_id = $2"
            " AND event_id = $18 RETURNING ord, embedding)"
            f" INSERT INTO facts ({COLUMNS}) SELECT $1, $2, s, p, o, k, own.se, own.oe, conf, q,"
            " $4, COALESCE(e, staged.embedding), vf, COALESCE(vu, link.until), $3, $5, NULL,"
            " COALESCE(own.eb, link.by),"
            " CASE WHEN own.eb IS NOT NULL THEN COALESCE(er, 'superseded')"
            f" WHEN link.until IS NOT NULL THEN 'cascade' END, ut, {PENDING}"
            " FROM unnest($6::text[], $7::text[], $8::text[], $9::text[], $10::bigint[],"
            " $11::bigint[], $12::real[], $13::text[], $14::vector[], $15::timestamptz[],"
            " $16::timestamptz[], $17::bigint[], $19::text[], $20::int[], $21::text[])"
            " WITH ORDINALITY AS t(s, p, o, k, se, oe, conf, q, e, vf, vu, eb, ut, vr, er, n)"
            f" CROSS JOIN LATERAL ({_OWN_IDS}) AS own"
            f" LEFT JOIN LATERAL ({_LINK_END}) AS link ON true"
            " LEFT JOIN staged ON staged.ord = t.vr ORDER BY n"
            + _ON_OPEN_CONFLICT
            + ", subject, predicate, object, embedding IS NULL AS unembedded"
        )
        args: list[Any] = [
            *self.t,
            self.event.episode_id,
            self.stated_at,
            [f.subject for f in facts],
            [f.predicate for f in facts],
            [f.object for f in facts],
            [FactKind(f.kind).value for f in facts],
            [f.subject_entity_id for f in facts],
            [f.object_entity_id for f in facts],
            [f.confidence for f in facts],
            [f.source_quote for f in facts],
            [None if v is None else Vector(v) for v in given],
            [f.valid_from for f in facts],
            [f.valid_until for f in facts],
            [c.ended_by for _, c in survivors],
            self.event.vectors_from or "",
            [f.untrusted for f in facts],
            [
                None if v is not None else c.vector
                for v, (_, c) in zip(given, survivors, strict=True)
            ],
            # An insert that carries the end a row said later told: closed by it.
            ["closed" if i in self.retire.values() else None for i, _ in survivors],
        ]
        if self.finish is not None:
            query, args = self.finish(self.result.drops)(query, args)
            self.finished_with = len(self.result.drops)
        rows = await self.conn.fetch(query, *args)
        landed = {(r["subject"], r["predicate"], r["object"]): r for r in rows}
        unembedded = [
            i for i, c in survivors if (r := landed.get(c.fact.triple)) and r["unembedded"]
        ]
        if unembedded:
            raise VectorsMissing(unembedded)
        ids: dict[int, int] = {}
        for index, c in survivors:
            row = landed.pop(c.fact.triple, None)  # pop: a repeat of the triple did not land
            if row is None:  # the unique index's backstop (a duplicate in the batch)
                self._drop(c, "live_conflict", "the partial unique index refused a second live row")
                continue
            ids[index] = row["id"]
            self.result.inserted += 1
        return ids

    async def _supersede(self, new_ids: dict[int, int]) -> list[EndedLink]:
        """End every loser whose replacement landed, at the end the judge gave it."""
        winners: dict[int, tuple[datetime, int]] = {}  # loser -> (end, winner); first wins
        for inv in self.event.invalidations:
            if inv.by_candidate in self.never_true:
                continue  # a plan that never comes true ends nothing
            winner = self.event.inserts[inv.by_candidate].fact
            # A winner dropped by the re-check is live anyway: end the loser in its name.
            by = new_ids.get(inv.by_candidate) or self.live_ids.get(winner.triple)
            if by is None:  # never end a fact whose replacement did not land
                continue
            until = inv.valid_until or effective_start(winner.valid_from, self.stated_at)
            winners.setdefault(inv.fact_id, (until, by))
        ends = [(loser, until, by) for loser, (until, by) in winners.items()]
        done = await valid_ends.end_rows(
            self.conn, self.t, self.event.episode_id, ends, "superseded", keep_earlier_end=True
        )
        self.result.invalidated += len(done.copies)
        return valid_ends.user_links(done, {loser: by for loser, (_, by) in winners.items()})

    async def _apply_closures(self) -> list[EndedLink]:
        """The user said these facts ended: each ends at the date they gave."""
        ends = [(c.fact_id, c.valid_until, None) for c in self.event.closures]
        done = await valid_ends.end_rows(
            self.conn, self.t, self.event.episode_id, ends, "closed", keep_earlier_end=False,
            quotes=[c.quote for c in self.event.closures],
        )  # fmt: skip
        self.result.closed += len(done.copies)
        return valid_ends.user_links(done, {}, closed=True)
