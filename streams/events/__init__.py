"""Every topic's payload, as pydantic models: the contract for publishers and stages.

`factstream schemas export` writes their JSON Schema into `schemas/`; a test fails when
those files drift from these models, and another feeds good and bad events to both the
schema and the consumer and fails on any disagreement. The field types
(streams/event_fields.py) check what a schema can say; what it cannot say (rules across
fields) is accepted with a defined meaning on the input topic, and checked only on the
internal stage topics:

- messages may come in any order (they are read sorted by seq), and only those inside
  the window are read, so a reversed window holds none and the episode is skipped;
- ``event_id`` may be left out: it is then derived from the event's content, the same on
  every decode and in every consumer group;
- a stage event's fact never ends before it starts, and an invalidation names an insert.

The models live in the modules of this package (base, episode, graph, stage_events);
import them from here: ``from streams.events import ...`` is the contract's one path.
"""

from __future__ import annotations

from streams.event_fields import (
    INT4_MAX,
    INT8_MAX,
    MAX_EVENT_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_EPISODE,
    MAX_OBJECT_CHARS,
    MAX_QUOTE_CHARS,
    SCHEMA_VERSION,
    TENANT_ID_PATTERN,
)
from streams.events.base import EventModel, TenantEvent
from streams.events.episode import (
    MAX_CLOCK_SKEW,
    EpisodeCompleted,
    Message,
    Role,
    Window,
    decode_episode,
)
from streams.events.graph import USER_ENTITY, Dropped, DropStage, Entity, EntityType, Fact, FactKind
from streams.events.stage_events import (
    STAGED_VECTORS_REVISION,
    Candidate,
    Closure,
    DedupedCandidate,
    FactsDeduped,
    FactsExtracted,
    FactsJudged,
    FactsResolved,
    Invalidation,
    Revision2,
    StageOutput,
    Verdict,
)

__all__ = [
    "INT4_MAX", "INT8_MAX", "MAX_CLOCK_SKEW", "MAX_EVENT_BYTES", "MAX_MESSAGES_PER_EPISODE",
    "MAX_MESSAGE_CHARS", "MAX_OBJECT_CHARS", "MAX_QUOTE_CHARS", "SCHEMA_VERSION",
    "STAGED_VECTORS_REVISION", "TENANT_ID_PATTERN", "TOPIC_PAYLOADS", "USER_ENTITY",
    "Candidate", "Closure", "DedupedCandidate", "DropStage", "Dropped", "Entity", "EntityType",
    "EpisodeCompleted", "EventModel", "Fact", "FactKind", "FactsDeduped", "FactsExtracted",
    "FactsJudged", "FactsResolved", "Invalidation", "Message", "Revision2", "Role", "StageOutput",
    "TenantEvent", "Verdict", "Window", "decode_episode",
]  # fmt: skip

TOPIC_PAYLOADS: dict[str, type[TenantEvent]] = {
    "episodes.completed": EpisodeCompleted,
    "facts.extracted": FactsExtracted,
    "facts.resolved": FactsResolved,
    "facts.deduped": FactsDeduped,
    "facts.judged": FactsJudged,
}
