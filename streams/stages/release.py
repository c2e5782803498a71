"""Giving a tenant's gate back when an episode's record is dead-lettered after extraction.

An extracted episode holds its tenant's gate (``processing``) until the writer marks it
done, so that the tenant's next episode is extracted only after this one's facts are
written. If one of its records is dead-lettered on the way (resolve, dedup, judge or the
writer gave up on it, or extraction's own output was refused as too large), nothing would
ever mark it done: the gate stayed shut until the claim went stale, 10 minutes.

Instead, the stage's ``on_dead_letter`` hook returns a *release*: a copy of the episode
(rebuilt from its ledger row) on episodes.completed, with two headers naming the claim
(its token, carried on every stage event) and the reason. The runtime produces it with the
dead letter, in the same Kafka transaction, so it exists exactly when the dead letter
does. Extraction, consuming it, ends that claim as a failed extraction (retry counted).
Under ``max_retries`` the episode keeps its place in its tenant's queue (DESIGN "Time",
rule 2): it is queued again first in line and, after a backoff, extracted again before the
tenant's later episodes, so a late retry never lands after facts stated later. At the cap
it ends ``failed`` and the tenant's next queued episode starts. The ledger is only touched
after the dead letter committed, and only for that claim: a release of a claim that was
since taken over, or already ended, changes nothing, so a duplicate is harmless. The
summarize stage sees the copy too and, the summary being done, does nothing.

A release is honoured only while its token names the live claim of that very episode
(``processing`` under that token): any other record carrying the header (a client's, a
redriven copy, a duplicate of a release already applied) is handled as the ordinary
episode it is. Dead letters are stored without these headers (``delivery_headers``).

Not covered: a record that cannot be decoded carries no readable claim; its tenant waits
for the claim timeout as before.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, TypeVar

from streams.domain.names import strip_unstorable
from streams.events import EpisodeCompleted, StageOutput
from streams.runtime.stage import RecordContext, Routed
from streams.settings import Settings
from streams.stages.base import PipelineStage
from streams.store import claims

log = logging.getLogger(__name__)

StageOutputT = TypeVar("StageOutputT", bound=StageOutput)

CLAIM_HEADER = "factstream-release-claim"
REASON_HEADER = "factstream-release-reason"
RELEASE_HEADERS = (CLAIM_HEADER, REASON_HEADER)


@dataclass(frozen=True)
class Release:
    token: str
    reason: str


def release_of(ctx: RecordContext) -> Release | None:
    """The release an episodes.completed record carries, if it is one."""
    headers = dict(ctx.headers)
    token = headers.get(CLAIM_HEADER)
    if not token:
        return None
    reason = headers.get(REASON_HEADER, b"dead-lettered after extraction")
    # Headers are whatever a client sent: a NUL the ledger cannot store must not make
    # the episode a dead letter (a token with one names no claim: an ordinary episode).
    return Release(
        strip_unstorable(token.decode("utf-8", "replace")),
        strip_unstorable(reason.decode("utf-8", "replace")),
    )


def too_large_to_copy(episode: EpisodeCompleted, settings: Settings) -> str | None:
    """Why a copy of ``episode`` rebuilt from the ledger cannot be published (None: it can).
    Accepted events always fit (the runtime refuses one whose copy would not); a row
    stored by an older version, or a record limit lowered since, may not."""
    size = episode.copy_size()
    if size <= settings.max_record_bytes:
        return None
    return (
        f"its copy from the ledger is {size} bytes, over the record limit"
        f" max_record_bytes={settings.max_record_bytes}: it cannot be republished"
    )


def release_record(settings: Settings, episode: EpisodeCompleted, release: Release) -> Routed:
    return Routed(
        settings.topic("episodes.completed"),
        episode,
        episode.tenant,
        headers=(
            (CLAIM_HEADER, release.token.encode("utf-8")),
            (REASON_HEADER, release.reason[:1000].encode("utf-8")),
        ),
    )


async def release_after_dead_letter(
    pool: Any, settings: Settings, event: StageOutput, stage: str, reason: str, error: str
) -> list[Routed]:
    """``on_dead_letter`` of the stages after extraction: release the event's claim while
    it still holds the episode."""
    if event.claim_token is None:  # an event from before claim tokens
        return []
    async with pool.acquire() as conn:
        episode = await claims.claimed_episode(
            conn, event.dataset, event.project_id, event.episode_id, event.claim_token
        )
    fields = {"tenant": event.tenant, "episode_id": event.episode_id}
    if episode is None:
        log.info("dead letter in %s: its claim has already ended", stage, extra=fields)
        return []
    log.warning("dead letter in %s: releasing the episode's claim", stage, extra=fields)
    why = f"dead-lettered by {stage} ({reason}): {error}"
    return [release_record(settings, episode, Release(event.claim_token, why))]


class ReleasesClaimOnDeadLetter(PipelineStage[StageOutputT]):
    """The stages after extraction: their ``on_dead_letter`` hook releases the
    dead-lettered event's claim."""

    async def on_dead_letter(
        self, event: StageOutputT, ctx: RecordContext, reason: str, error: str
    ) -> list[Routed]:
        return await release_after_dead_letter(
            self.pool, self.settings, event, self.name, reason, error
        )
