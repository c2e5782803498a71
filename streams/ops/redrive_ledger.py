"""What `factstream dlq redrive` already redrove, per dead-letter partition (pure, no I/O).

It lives in the committed offsets of the consumer group ``factstream-dlq-redrive-<stage>``
(a group no process joins): the committed offset says "every dead letter below this was
redriven", and the offset's metadata string lists the offsets above it that a filtered
redrive (``--tenant``, ``--reason``, ``--offset``) already sent, as ranges. So a second
redrive, filtered or not, never sends a record twice, and records a filter left out stay
available to a later redrive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from streams.errors import FactstreamError

# Kafka's default offset.metadata.max.bytes is 4096; stay well under it.
MAX_METADATA_CHARS = 3500


def redrive_group(stage: str) -> str:
    return f"factstream-dlq-redrive-{stage}"


@dataclass
class PartitionLedger:
    """``low``: every offset below was redriven; ``done``: redriven offsets at or above it."""

    low: int = 0
    done: set[int] = field(default_factory=set)

    def is_done(self, offset: int) -> bool:
        return offset < self.low or offset in self.done

    def mark(self, offset: int) -> None:
        if offset >= self.low:
            self.done.add(offset)
        self._fold()

    def _fold(self) -> None:
        """Move the low mark over the contiguous run of redriven offsets above it."""
        while self.low in self.done:
            self.done.discard(self.low)
            self.low += 1

    def floor(self, log_start: int) -> None:
        """Records below the log start were deleted by retention: nothing left to redrive."""
        if log_start > self.low:
            self.low = log_start
            self.done = {o for o in self.done if o >= log_start}
            self._fold()

    def metadata(self) -> str:
        text = json.dumps({"done": _ranges(sorted(self.done))}, separators=(",", ":"))
        if len(text) > MAX_METADATA_CHARS:
            raise LedgerFullError(
                f"{len(self.done)} scattered redriven offsets do not fit in the group's"
                " offset metadata; run an unfiltered `dlq redrive` to fold them"
            )
        return text

    @classmethod
    def parse(cls, committed: int | None, metadata: str | None) -> PartitionLedger:
        ledger = cls(low=committed or 0)
        if metadata:
            try:
                ranges = json.loads(metadata).get("done", [])
                for first, last in ranges:
                    ledger.done.update(range(int(first), int(last) + 1))
            except (ValueError, TypeError, AttributeError):
                pass  # unreadable metadata: fall back to the committed offset alone
        ledger.done = {o for o in ledger.done if o >= ledger.low}
        return ledger


class LedgerFullError(FactstreamError, RuntimeError):
    pass


def _ranges(offsets: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for offset in offsets:
        if out and out[-1][1] == offset - 1:
            out[-1][1] = offset
        else:
            out.append([offset, offset])
    return out
