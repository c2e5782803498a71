"""Per-partition bookkeeping: which consumed offsets finished, and their held outputs.

Records finish out of order (different keys run concurrently), but a partition's offset
may only be committed — and a finished record's outputs only published — once every
lower offset consumed from it has finished too. ``ready()`` gives that contiguous
finished prefix; ``prune()`` forgets it once committed.
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

    def add(self, offset: int) -> bool:
        """Track a consumed offset; False (ignore it) when it is not past the last one."""
        if offset <= self._last_seen:
            return False
        self._order.append(offset)
        self._last_seen = offset
        return True

    def finish(self, offset: int, outputs: tuple[OutRecord, ...]) -> None:
        self._done[offset] = outputs

    def ready(self) -> PartitionPlan | None:
        """The contiguous finished prefix (not removed: see ``prune``), or None."""
        entries: list[tuple[int, tuple[OutRecord, ...]]] = []
        for offset in self._order:
            outs = self._done.get(offset)
            if outs is None:
                break
            entries.append((offset, outs))
        if not entries:
            return None
        return PartitionPlan(self.topic, self.partition, self.epoch, tuple(entries))

    def prune(self, next_offset: int) -> None:
        """Forget offsets below ``next_offset`` (they are committed)."""
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
