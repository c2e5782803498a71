"""memory.episodes.completed: the input topic's payload, which applications publish.

The one event from outside the pipeline, so the one whose limits a JSON Schema cannot
state are checked here on every read: its size as the pipeline re-encodes it, a
completed_at too far ahead of the reader's clock, and which messages the window reads.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool, field_validator, model_validator
from pydantic_core import PydanticCustomError

from streams.event_fields import (
    MAX_EVENT_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES_PER_EPISODE,
    EventTime,
    Seq,
    ShortId,
    no_nul,
    text_field,
)
from streams.events.base import EventModel, TenantEvent


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class Message(EventModel):
    seq: Seq
    role: Role
    content: Annotated[str, text_field(MAX_MESSAGE_CHARS), AfterValidator(no_nul)]
    created_at: EventTime


class Window(EventModel):
    """The seqs of the episode, both ends included; a reversed window holds none."""

    from_seq: Seq
    to_seq: Seq

    def holds(self, seq: int) -> bool:
        return self.from_seq <= seq <= self.to_seq


# How far a publisher's clock may run ahead of a worker's (unsynchronised clocks drift).
MAX_CLOCK_SKEW = timedelta(minutes=15)


class EpisodeCompleted(TenantEvent):
    """An application finished a window of chat: extract facts from these messages.

    Limits a JSON Schema cannot state: the event is at most 1,000,000 bytes, both as sent
    and as re-encoded with every default filled in (the copies the pipeline republishes);
    completed_at is at most 15 minutes ahead of the reader's clock (a statement
    dated in the future would outrank every true later one: event time beats arrival
    order); messages are read in seq order, and only those inside the window."""

    session_id: ShortId
    window: Window
    messages: list[Message] = Field(max_length=MAX_MESSAGES_PER_EPISODE)
    completed_at: EventTime
    # Set by replays and the sweep: run extraction again even if the episode is done.
    reprocess: StrictBool = False

    @field_validator("messages")
    @classmethod
    def _in_seq_order(cls, messages: list[Message]) -> list[Message]:
        return sorted(messages, key=lambda m: m.seq)

    @field_validator("completed_at")
    @classmethod
    def _not_in_the_future(cls, completed_at: datetime) -> datetime:
        ahead = completed_at - datetime.now(UTC)
        if ahead > MAX_CLOCK_SKEW:
            raise PydanticCustomError(
                "completed_in_future",
                "completed_at {at} is {ahead} ahead of this clock; more than {skew} ahead is"
                " refused, as a statement from the future would outrank every later one",
                {
                    "at": completed_at.isoformat(),
                    "ahead": str(ahead).split(".")[0],
                    "skew": str(MAX_CLOCK_SKEW),
                },
            )
        return completed_at

    @model_validator(mode="after")
    def _copies_fit(self) -> EpisodeCompleted:
        size = self.copy_size()
        if size > MAX_EVENT_BYTES:
            raise PydanticCustomError(
                "event_too_large",
                "event is {size} bytes once encoded with every default filled in, as the"
                " pipeline's copies of it are; the limit is {limit}",
                {"size": size, "limit": MAX_EVENT_BYTES},
            )
        return self

    def copy_size(self) -> int:
        """Bytes of the copy rebuilt from the ledger (wake-ups, the sweep, releases): this
        event with every default filled in and reprocess false; its completed_at comes
        back in UTC, which is never longer."""
        return len(self.model_copy(update={"reprocess": False}).model_dump_json().encode())

    def window_messages(self) -> list[Message]:
        """The messages the episode is about: those inside its window, in seq order."""
        return [m for m in self.messages if self.window.holds(m.seq)]

    def why_empty(self) -> str:
        """Why the window holds no message (for the ledger's skip reason)."""
        low, high = self.window.from_seq, self.window.to_seq
        if high < low:
            return f"no messages in the window: it is reversed (to_seq {high} < from_seq {low})"
        if self.messages:
            count = len(self.messages)
            return f"no messages in the window [{low}, {high}]: all {count} lie outside it"
        return "no messages in the window"


def decode_episode(raw: bytes) -> EpisodeCompleted:
    """Bytes → EpisodeCompleted, with the byte limit checked before parsing."""
    if len(raw) > MAX_EVENT_BYTES:
        raise ValueError(f"event is {len(raw)} bytes, over the limit of {MAX_EVENT_BYTES}")
    return EpisodeCompleted.model_validate_json(raw)
