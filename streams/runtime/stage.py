"""The contract between the runtime (which owns Kafka) and a stage (which owns logic).

A stage is a handler over pydantic models. The runtime decodes each record's value
(UTF-8 JSON) into ``input_model``; a record that cannot be decoded is poison and goes
to the stage's dead-letter topic. The handler returns the events to publish; the runtime
keys each by its tenant and produces them on ``output_topic`` in the same Kafka
transaction that commits the consumed offset.

A stage whose ``output_topic`` is None is a Postgres sink (the writer): it must record
``ctx.topic/partition/offset`` for ``ctx.group`` inside its own database transaction and
treat an already-recorded offset as a no-op; the runtime commits the Kafka offset only
after the handler returned. A sink may still return ``Routed`` events: the runtime
produces them after the handler returned, in one transaction with the consumed offset,
so a crash before that commit re-runs the handler, whose no-op path must return them
again if they are still due.

Outputs are keyed by the consumed record's key unless the stage's ``key_of(event)``
names another. A handler may also return ``Routed(topic, event, key)`` to send one output
to another topic than ``output_topic`` (still inside the same transaction).

The optional parts (``lane_by``, ``key_of``, ``on_dead_letter``) have defaults here: a
stage class subclasses :class:`Stage` and overrides what it needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from streams.settings import Settings

In = TypeVar("In", bound=BaseModel, contravariant=True)


@dataclass(frozen=True)
class RecordContext:
    """Where the record being handled came from, and how often it was tried."""

    group: str
    topic: str
    partition: int
    offset: int
    key: str | None
    timestamp_ms: int
    attempt: int = 1
    # True when the runtime dead-letters the record if this attempt fails transiently
    # (attempts AND time budget spent); a stage should decide "last try" on this, not on
    # ``attempt`` alone, since retries go on past transient_max_attempts for a while.
    final_attempt: bool = False
    # The consumed record's Kafka headers (control metadata, e.g. streams/stages/release.py).
    headers: tuple[tuple[str, bytes], ...] = ()


LaneBy = Literal["key", "partition"]


class Stage(Protocol[In]):
    name: str
    input_topic: str
    input_model: type[BaseModel]
    output_topic: str | None
    # Records of one lane run in offset order. None: per key for Kafka-to-Kafka stages, per
    # partition for sinks (a per-partition watermark needs offset order); "key" when a sink
    # keeps per-key watermarks or needs none.
    lane_by: LaneBy | None = None
    # Headers that steer one delivery of a record (a release of a claim): its dead
    # letter is stored without them, so a redriven copy is an ordinary record again.
    delivery_headers: tuple[str, ...] = ()

    async def handle(self, event: In, ctx: RecordContext) -> Sequence[BaseModel | Routed]:
        """Process one event; raise TransientError to retry, PoisonError to dead-letter."""
        ...

    def key_of(self, event: BaseModel) -> str | None:
        """The Kafka key of an output event; None: the consumed record's key."""
        return None

    async def on_dead_letter(
        self, event: In, ctx: RecordContext, reason: str, error: str
    ) -> Sequence[BaseModel | Routed]:
        """Runs when a decoded event is dead-lettered; what it returns is produced with the
        dead letter (in its Kafka transaction, or before the sink's offset commit). A
        failing hook is logged and ignored: the dead letter still goes out."""
        return []


@dataclass(frozen=True)
class Routed:
    """An output bound for ``topic`` instead of the stage's ``output_topic``.

    ``key`` None means the default key (``key_of(event)`` if the stage has one, else the
    consumed record's key). ``headers`` are Kafka headers for the produced record.
    """

    topic: str
    event: BaseModel
    key: str | None = None
    headers: tuple[tuple[str, bytes], ...] = ()


@dataclass(frozen=True)
class StageDeps:
    """What a stage factory receives from the worker entry point.

    Every stage module exposes ``def create_stage(deps: StageDeps) -> Stage`` and is named
    in ``streams.pipeline.PIPELINE``. ``pool`` is an asyncpg pool (see
    streams.store.db.create_pool) and ``models`` a streams.model.ports.Models; both are
    typed loosely here so this module stays free of those imports.
    """

    settings: Settings
    pool: Any
    models: Any
    worker_id: str
