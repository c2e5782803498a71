"""Plain data the runtime passes around, free of confluent_kafka types (so it is testable)."""

from __future__ import annotations

from dataclasses import dataclass

TP = tuple[str, int]  # (topic, partition)
Headers = tuple[tuple[str, bytes], ...]


def bytes_as_text(raw: bytes) -> str:
    """A key or header value as text: UTF-8, and each byte that is not as ``\\xff``, so a
    publisher's binary key stays tellable (and usable as ``--tenant``) instead of turning
    into U+FFFD marks that every such key shares."""
    return raw.decode("utf-8", "backslashreplace")


@dataclass(frozen=True, slots=True)
class Record:
    """One consumed record; ``epoch`` names the assignment it was consumed under."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: Headers = ()
    timestamp_ms: int = 0
    epoch: int = 0

    @property
    def tp(self) -> TP:
        return (self.topic, self.partition)

    @property
    def key_text(self) -> str | None:
        """The key as text, a byte that is not UTF-8 as ``\\xff`` (see bytes_as_text)."""
        return None if self.key is None else bytes_as_text(self.key)


@dataclass(frozen=True, slots=True)
class OutRecord:
    """A record to produce when the consumed record's offset commits."""

    topic: str
    key: bytes | None
    value: bytes
    headers: Headers = ()


@dataclass(frozen=True, slots=True)
class PartitionPlan:
    """What one partition may commit: its contiguous finished prefix, (offset, outputs) in
    offset order, and, when every record consumed from it is finished, the consumer's
    position (``position``), which may lie past offsets that hold no record (transaction
    markers, aborted records). Committing the position is what gives a drained group lag
    0; a plan may carry a position and no entries (only the offset moves)."""

    topic: str
    partition: int
    epoch: int
    entries: tuple[tuple[int, tuple[OutRecord, ...]], ...]
    position: int | None = None

    @property
    def tp(self) -> TP:
        return (self.topic, self.partition)

    @property
    def next_offset(self) -> int:
        """The offset to commit: past the last finished record, or the position."""
        after_last = self.entries[-1][0] + 1 if self.entries else -1
        return max(after_last, -1 if self.position is None else self.position)
