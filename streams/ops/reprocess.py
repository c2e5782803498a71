"""`factstream replay summarize|extract ... --reprocess`: run episodes through extraction again.

Moving the offsets back would not be enough: the stages skip an episode that is already
done. So reprocess leaves the group's offsets alone and instead re-publishes every
episode in the chosen range — from the plan's new offset up to the group's committed
offset, i.e. the episodes the stage already handled — as a copy with ``reprocess=true``
and a fresh event id, on the same input topic with the same key. Copies of one partition
are produced in offset order by an idempotent producer to the same partition, so each
tenant's order is kept. Workers may keep running (nothing to stop, nothing to refuse).

Both summarize and extract read the input topic, so both see the copies. Replaying the
same range twice converges: dedup and the partial unique index on live facts drop what
is already stored. A record in the range that is not a valid EpisodeCompleted, or whose
key is not its tenant (no key, another tenant's: streams/runtime/keys.py), was
dead-lettered the first time: it is counted and not copied. An event is copied once: the
topic also holds repeats of an event with its own event id (the writer's wake-ups of a
tenant's queued episode, the sweep's republishes), which are counted and skipped.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from streams.events import decode_episode
from streams.kafka.publisher import Publisher
from streams.kafka.range_reader import RangeRecord, read_ranges
from streams.ops.replay import ReplayPlan
from streams.runtime.keys import wrong_key
from streams.settings import Settings

# Links a copy to the record it copies: "<topic>/<partition>/<offset>".
REPROCESS_OF_HEADER = "factstream-reprocess-of"


@dataclass
class ReprocessResult:
    copied: int = 0
    not_episodes: list[str] = field(default_factory=list)  # "<partition>/<offset>: reason"
    repeats: int = 0  # records of an event id already copied (wake-ups, sweep republishes)


def reprocess_ranges(plan: ReplayPlan) -> dict[int, tuple[int, int]]:
    """partition -> [start, end): from the new offset up to what the group already read."""
    return {
        p.partition: (p.new_offset, p.current) for p in plan.partitions if p.current > p.new_offset
    }


def reprocess(
    settings: Settings,
    plan: ReplayPlan,
    *,
    on_progress: Callable[[int], None] | None = None,
) -> ReprocessResult:
    """Copy the plan's already-consumed episodes back onto the topic with reprocess=true.

    ``on_progress(n)`` is called with the number of offsets passed since the last call.
    """
    result = ReprocessResult()
    ranges = reprocess_ranges(plan)
    if not ranges:
        return result
    seen: set[str] = set()
    with Publisher(settings, topic=plan.topic) as publisher:
        for record in read_ranges(settings, plan.topic, ranges, on_progress=on_progress):
            _copy(publisher, record, result, seen)
    return result


def _copy(
    publisher: Publisher, record: RangeRecord, result: ReprocessResult, seen: set[str]
) -> None:
    try:
        episode = decode_episode(record.value or b"")
    except ValueError as exc:  # includes pydantic's ValidationError
        reason = str(exc).splitlines()[0]
        result.not_episodes.append(f"{record.partition}/{record.offset}: {reason}")
        return
    wrong = wrong_key(record.key, episode)
    if wrong is not None:  # dead-lettered the first time (no_key, key_mismatch), never handled
        result.not_episodes.append(f"{record.partition}/{record.offset}: {wrong.reason}: {wrong}")
        return
    if episode.event_id in seen:
        result.repeats += 1
        return
    seen.add(episode.event_id)
    copy = episode.model_copy(update={"reprocess": True, "event_id": str(uuid.uuid4())})
    source = f"{record.topic}/{record.partition}/{record.offset}".encode()
    publisher.publish(copy, headers=[(REPROCESS_OF_HEADER, source)])
    result.copied += 1
