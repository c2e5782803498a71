"""The judge stage: memory.facts.deduped → memory.facts.judged (seed "Step 4").

Reads the tenant's live facts near the episode's candidates, asks the model about every
conflicting pair in ONE batched call (none when there is no pair), and tells the writer
what to insert, which facts those inserts end, and what was discarded. Any model failure
means every verdict is `neither`: facts coexist and the pipeline continues, because
losing precision is recoverable and losing knowledge is not.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from streams.domain.contradictions import Pair, apply_verdicts, find_pairs
from streams.domain.facts import describe_fact, describe_live
from streams.events import FactsDeduped, FactsJudged, Verdict
from streams.model.ports import (
    CallRecord,
    CallScope,
    JudgeInput,
    JudgeOutput,
    JudgePair,
    ModelCallFailed,
)
from streams.runtime.stage import RecordContext, Stage, StageDeps
from streams.stages.embed_batch import derived_event_id, embed_batch, scope_of
from streams.stages.release import ReleasesClaimOnDeadLetter
from streams.store import staged_vectors
from streams.store.judge_reads import (
    ConflictLookup,
    conflicting_live_facts,
    conflicts_finder,
    search_bands,
)
from streams.store.llm_calls import record_calls

log = logging.getLogger(__name__)


class JudgeStage(ReleasesClaimOnDeadLetter[FactsDeduped]):
    name = "judge"
    input_model: type[BaseModel] = FactsDeduped

    def __init__(self, deps: StageDeps) -> None:
        super().__init__(deps)
        self.judge = deps.models.judge
        # Concurrent records' first reads share a statement (micro-batching).
        self._find_conflicts = conflicts_finder(self.pool)

    async def handle(self, event: FactsDeduped, ctx: RecordContext) -> Sequence[BaseModel]:
        s = self.settings
        now = datetime.now(UTC)
        candidates = list(event.candidates)
        live, watermark = await self._find_conflicts(
            ConflictLookup(event.dataset, event.project_id, tuple(candidates), now)
        )
        stale = watermark != event.live_facts_as_of
        # A band not handed over, or read before a write since: searched here.
        search = [i for i, c in enumerate(candidates) if stale or c.band_neighbours is None]
        if search:
            async with self.pool.acquire() as conn:
                vectors = await self._vectors(conn, event, search)
                found = await search_bands(
                    conn, event.dataset, event.project_id, [candidates[i] for i in search],
                    vectors, band_min=s.contradiction_band_min, now=now,
                )  # fmt: skip
                for i, banded in zip(search, found, strict=True):
                    candidates[i] = banded
                live, _ = await conflicting_live_facts(
                    conn, event.dataset, event.project_id, candidates, now=now
                )
        pairs = find_pairs(
            candidates,
            live,
            band_min=s.contradiction_band_min,
            dedup_threshold=s.fact_dedup_threshold,
            min_confidence=s.retrieval_min_confidence,
            now=now,
        )
        stated_at = event.stated_at or now
        verdicts = await self._verdicts(event, pairs, stated_at, now)
        judgement = apply_verdicts(candidates, pairs, verdicts, stated_at=stated_at)
        log.info(
            "judged: candidates=%d pairs=%d inserts=%d invalidations=%d discarded=%d",
            len(event.candidates), len(pairs), len(judgement.inserts),
            len(judgement.invalidations), len(judgement.dropped),
            extra={"tenant": event.tenant, "episode_id": event.episode_id},
        )  # fmt: skip
        return [
            FactsJudged(
                event_id=derived_event_id(self.name, event),
                **event.carried(),
                vectors_from=event.event_id,
                inserts=judgement.inserts,
                invalidations=judgement.invalidations,
                closures=event.closures,
                dropped=[*event.dropped, *judgement.dropped],
            )
        ]

    async def _vectors(
        self, conn: Any, event: FactsDeduped, which: Sequence[int]
    ) -> list[list[float] | None]:
        """The vectors of candidates ``which`` as dedup staged them; those no longer staged
        (a record replayed after its episode was written) are embedded and staged anew."""
        cands = [event.candidates[i] for i in which]
        staged = await staged_vectors.read(conn, event.dataset, event.project_id, event.event_id)
        vectors = [None if c.vector is None else staged.get(c.vector) for c in cands]
        missing = [i for i, v in enumerate(vectors) if v is None]
        if missing:
            fresh = await embed_batch(
                self.pool, self.deps.models.embedder, scope_of(event), self.name, "facts",
                [cands[i].fact.sentence() for i in missing], self.settings.embedding_dim,
            )  # fmt: skip
            restaged: dict[int, list[float]] = {}
            for i, vec in zip(missing, fresh, strict=True):
                vectors[i] = vec
                if (ord_ := cands[i].vector) is not None:
                    restaged[ord_] = vec
            await staged_vectors.stage_some(
                conn, event.dataset, event.project_id, event.event_id, restaged
            )
        return vectors

    async def _verdicts(
        self, event: FactsDeduped, pairs: Sequence[Pair], stated_at: datetime, now: datetime
    ) -> Mapping[int, Verdict]:
        """One batched call for all pairs; an empty mapping (all `neither`) on any failure."""
        if not pairs:
            return {}
        scope = CallScope(
            dataset=event.dataset, project_id=event.project_id, episode_id=event.episode_id
        )
        request = JudgeInput(
            scope=scope,
            pairs=[
                JudgePair(
                    pair_id=p.pair_id,
                    candidate=describe_fact(event.candidates[p.candidate].fact),
                    existing=describe_live(p.existing),
                    candidate_said_at=stated_at,
                    existing_said_at=p.existing.stated_at,
                )
                for p in pairs
            ],
            reference_time=now,
        )
        calls: list[CallRecord] = []
        verdicts: dict[int, Verdict] = {}
        try:
            result = await self.judge.judge(request)
            calls = list(result.calls)
            output = JudgeOutput.model_validate(result.value, from_attributes=True)
            verdicts = output.by_pair({p.pair_id for p in pairs})
        except ModelCallFailed as exc:
            calls = list(exc.calls)
            log.warning("judge call failed, all verdicts neither: %s", exc)
        except Exception as exc:  # any failure, a malformed answer included: facts coexist
            log.warning("judge failed, all verdicts neither: %r", exc)
            verdicts = {}
        await record_calls(self.pool, scope, "judge", calls)
        return verdicts


def create_stage(deps: StageDeps) -> Stage[FactsDeduped]:
    return JudgeStage(deps)
