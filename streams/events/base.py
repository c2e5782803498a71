"""What every event is built on: a closed, frozen model, and the fields every payload carries.

The base of the payloads in streams/events/ (episode.py, graph.py, stage_events.py): a
payload refuses unknown fields, never changes once read, and names its tenant and episode.
"""

from __future__ import annotations

import json
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, model_validator

from streams.event_fields import SCHEMA_VERSION, EventId, ShortId, TenantId, check_version

_EVENT_ID_NAMESPACE = uuid.UUID("6b1f0c9e-3a57-4f0e-9d42-7c2e8a4b5d13")


class EventModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TenantEvent(EventModel):
    """What every payload carries: version, its own id, the tenant and the episode."""

    schema_version: Annotated[Literal[1], BeforeValidator(check_version)] = SCHEMA_VERSION
    event_id: EventId = Field(
        default_factory=lambda: str(uuid.uuid4()),
        description="unique per event; left out, it is derived from the event's content"
        " (a UUID5 of its canonical JSON), so every decode of the record gives the same id",
    )
    dataset: TenantId
    project_id: TenantId
    episode_id: ShortId

    @model_validator(mode="before")
    @classmethod
    def _derived_event_id(cls, data: Any, info: ValidationInfo) -> Any:
        """A record without event_id: the same id on every decode, in every group."""
        if info.mode != "json" or not isinstance(data, dict) or "event_id" in data:
            return data
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return {**data, "event_id": str(uuid.uuid5(_EVENT_ID_NAMESPACE, canonical))}

    @property
    def tenant(self) -> str:
        return f"{self.dataset}:{self.project_id}"

    def copy_size(self) -> int | None:
        """Bytes of the copies the pipeline makes of this event later (None: it makes none)."""
        return None
