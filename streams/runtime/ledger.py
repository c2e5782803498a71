"""Per-partition bookkeeping: which consumed offsets finished, and their held outputs.

Records finish out of order (different keys run concurrently), but a partition's offset
may only be committed — and a finished record's outputs only published — once every
lower offset consumed from it has finished too. ``ready()`` gives that contiguous
finished prefix; ``prune()`` forgets it once committed.

The consumer's position (``advance``) steps over offsets that hold no record: the commit
marker of every upstream transaction, aborted records. Once every record consumed from
the partition is finished, the plan carries that position, so the group commits past the
marker and a drained partition shows lag 0 (``kafka-consumer-groups``, KEDA, exporters),
not 1. A record still in flight keeps the commit at or below it: every record below the
position was delivered before the position was read, so it is tracked here.
"""

from __future__ import annotations

from collections import deque

from streams.runtime.records import OutRecord, PartitionPlan


class PartitionLedger:
    def __init__(self, topic: str, partition: int, epoch: int) -> None:
        self.topic = topic
        self.partition = partition
        self.epoch = epoch
        self._order: deque[int] = deque()
        self._done: dict[int, tuple[OutRecord, ...]] = {}
        self._last_seen = -1
        self._position = -1  # the consumer's position, once it passed every tracked record
        self._committed = -1  # the next offset committed (as far as this ledger knows)

    def add(self, offset: int) -> bool:
        """Track a consumed offset; False (ignore it) when it is not past the last one."""
        if offset <= self._last_seen:
            return False
        self._order.append(offset)
        self._last_seen = offset
        return True

    def advance(self, position: int) -> None:
        """The consumer's position, read after every record below it was ``add``-ed."""
        if position > self._last_seen and position > self._position:
            self._position = position

    def finish(self, offset: int, outputs: tuple[OutRecord, ...]) -> None:
        self._done[offset] = outputs

    def ready(self) -> PartitionPlan | None:
        """What may commit (not removed: see ``prune``), or None when nothing new."""
        entries: list[tuple[int, tuple[OutRecord, ...]]] = []
        for offset in self._order:
            outs = self._done.get(offset)
            if outs is None:
                break
            entries.append((offset, outs))
        position = None
        if len(entries) == len(self._order) and self._position > self._last_seen:
            position = self._position  # nothing unfinished below it
        if not entries and (position is None or position <= self._committed):
            return None
        return PartitionPlan(self.topic, self.partition, self.epoch, tuple(entries), position)

    def prune(self, next_offset: int) -> None:
        """Forget offsets below ``next_offset`` (they are committed)."""
        self._committed = max(self._committed, next_offset)
        while self._order and self._order[0] < next_offset:
            self._done.pop(self._order.popleft(), None)

    @property
    def unfinished(self) -> int:
        return len(self._order) - len(self._done)

    @property
    def held(self) -> int:
        """Finished records waiting for a lower offset or for the next commit."""
        return len(self._done)

    def __len__(self) -> int:
        return len(self._order)
