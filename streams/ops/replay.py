"""`factstream replay STAGE`: move a stage's consumer group back (or forward) in its topic.

The flags mirror `kafka-consumer-groups --reset-offsets`. A plan is computed first and
printed; nothing changes without ``--execute``. Execution refuses while the group has
active members, as Kafka's tool does: a running worker would overwrite the new offsets
with its next commit.

Offsets are clamped into [earliest, log-end], like Kafka. A partition the group never
committed counts as positioned at its earliest offset (the workers' reset policy), except
for ``--shift-by``: shifting needs a position, so a plan touching a never-committed
partition is refused, as `kafka-consumer-groups` refuses it, unless the operator asks to
shift those from their earliest offset.
``--to-datetime``/``--by-duration`` pick the first record at or after the time, or the
log end when there is none.

``--reprocess`` (summarize/extract only) does not move offsets: see streams/ops/reprocess.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from streams.errors import FactstreamError
from streams.kafka import admin as ka
from streams.ops.isotime import parse_datetime, parse_duration, to_millis


class ResetKind(StrEnum):
    EARLIEST = "to-earliest"
    LATEST = "to-latest"
    DATETIME = "to-datetime"
    DURATION = "by-duration"
    SHIFT = "shift-by"
    OFFSET = "to-offset"


@dataclass(frozen=True)
class ResetSpec:
    """One reset rule. ``value``: timestamp (ms) for DATETIME/DURATION, N for SHIFT/OFFSET."""

    kind: ResetKind
    value: int = 0
    label: str = ""

    def describe(self) -> str:
        return f"--{self.kind.value} {self.label}".strip()


class NeverCommittedError(FactstreamError, ValueError):
    """``--shift-by`` on partitions the group never committed (no position to shift)."""

    def __init__(self, group: str, topic: str, partitions: Sequence[int]) -> None:
        self.partitions = list(partitions)
        shown = ", ".join(map(str, partitions))
        super().__init__(
            f"cannot shift partition(s) {shown} of {topic}: group {group!r} never committed"
            " there (kafka-consumer-groups refuses this too); pick committed ones with"
            " --partitions, or add --uncommitted-from-earliest to shift them from their"
            " earliest offset"
        )


class GroupActiveError(FactstreamError, RuntimeError):
    def __init__(self, group: str, members: Sequence[ka.Member]) -> None:
        self.group = group
        self.members = list(members)
        names = ", ".join(str(m) for m in members)
        super().__init__(
            f"consumer group {group!r} has {len(members)} active member(s): {names}. "
            "Stop its workers (e.g. scale the Deployment to 0) and run again."
        )


def reset_spec(
    *,
    to_earliest: bool = False,
    to_latest: bool = False,
    to_datetime: str | None = None,
    by_duration: str | None = None,
    shift_by: int | None = None,
    to_offset: int | None = None,
    now: datetime,
) -> ResetSpec:
    """The one reset rule the flags name; exactly one flag must be given."""
    given = [
        name
        for name, value in (
            ("--to-earliest", to_earliest),
            ("--to-latest", to_latest),
            ("--to-datetime", to_datetime is not None),
            ("--by-duration", by_duration is not None),
            ("--shift-by", shift_by is not None),
            ("--to-offset", to_offset is not None),
        )
        if value
    ]
    if len(given) != 1:
        raise ValueError(
            "give exactly one of --to-earliest, --to-latest, --to-datetime, --by-duration,"
            f" --shift-by, --to-offset (got {', '.join(given) or 'none'})"
        )
    if to_earliest:
        return ResetSpec(ResetKind.EARLIEST)
    if to_latest:
        return ResetSpec(ResetKind.LATEST)
    if to_datetime is not None:
        when = parse_datetime(to_datetime)
        return ResetSpec(ResetKind.DATETIME, to_millis(when), when.isoformat(timespec="seconds"))
    if by_duration is not None:
        when = now - parse_duration(by_duration)
        label = f"{by_duration} (since {when.isoformat(timespec='seconds')})"
        return ResetSpec(ResetKind.DURATION, to_millis(when), label)
    if shift_by is not None:
        return ResetSpec(ResetKind.SHIFT, shift_by, str(shift_by))
    assert to_offset is not None
    if to_offset < 0:
        raise ValueError("--to-offset must be >= 0")
    return ResetSpec(ResetKind.OFFSET, to_offset, str(to_offset))


@dataclass(frozen=True)
class PartitionPlan:
    partition: int
    earliest: int
    log_end: int
    committed: int | None
    new_offset: int

    @property
    def current(self) -> int:
        """Where the group reads next; never committed counts as the earliest offset."""
        return self.earliest if self.committed is None else self.committed

    @property
    def to_replay(self) -> int:
        """Records the group reads again (moving back)."""
        return max(0, self.current - self.new_offset)

    @property
    def to_skip(self) -> int:
        """Records the group will never read (moving forward)."""
        return max(0, self.new_offset - self.current)


def new_offset(
    spec: ResetSpec, *, earliest: int, log_end: int, committed: int | None, at_time: int | None
) -> int:
    """Pure: where one partition goes. ``at_time``: offset for the spec's timestamp."""
    current = earliest if committed is None else committed
    if spec.kind is ResetKind.EARLIEST:
        target = earliest
    elif spec.kind is ResetKind.LATEST:
        target = log_end
    elif spec.kind in (ResetKind.DATETIME, ResetKind.DURATION):
        target = log_end if at_time is None else at_time
    elif spec.kind is ResetKind.SHIFT:
        target = current + spec.value
    else:
        target = spec.value
    return min(max(target, earliest), log_end)


@dataclass(frozen=True)
class ReplayPlan:
    stage: str
    group: str
    topic: str
    spec: ResetSpec
    partitions: list[PartitionPlan]
    members: list[ka.Member] = field(default_factory=list)

    @property
    def to_replay(self) -> int:
        return sum(p.to_replay for p in self.partitions)

    @property
    def to_skip(self) -> int:
        return sum(p.to_skip for p in self.partitions)

    def new_offsets(self) -> dict[int, int]:
        return {p.partition: p.new_offset for p in self.partitions}


def plan_replay(
    admin: ka.AdminClient,
    *,
    stage: str,
    group: str,
    topic: str,
    spec: ResetSpec,
    partitions: Sequence[int] | None = None,
    uncommitted_from_earliest: bool = False,
) -> ReplayPlan:
    """Read watermarks and committed offsets and compute every partition's new offset.

    Raises NeverCommittedError for ``--shift-by`` on a partition the group never
    committed, unless ``uncommitted_from_earliest``.
    """
    chosen = ka.topic_partitions(admin, topic, partitions)
    marks = ka.watermarks(admin, topic, chosen)
    committed = ka.committed_offsets(admin, group, topic, chosen)
    never = [p for p in chosen if committed[p] is None]
    if spec.kind is ResetKind.SHIFT and never and not uncommitted_from_earliest:
        raise NeverCommittedError(group, topic, never)
    at_time: dict[int, int | None] = {}
    if spec.kind in (ResetKind.DATETIME, ResetKind.DURATION):
        at_time = ka.offsets_for_timestamp(admin, topic, chosen, spec.value)
    rows = [
        PartitionPlan(
            partition=p,
            earliest=marks[p][0],
            log_end=marks[p][1],
            committed=committed[p],
            new_offset=new_offset(
                spec,
                earliest=marks[p][0],
                log_end=marks[p][1],
                committed=committed[p],
                at_time=at_time.get(p),
            ),
        )
        for p in chosen
    ]
    members = ka.active_members(admin, group)
    return ReplayPlan(stage, group, topic, spec, rows, members)


def execute_plan(admin: ka.AdminClient, plan: ReplayPlan) -> None:
    """Apply the plan's offsets; refuses while the group has members (checked again now)."""
    members = ka.active_members(admin, plan.group)
    if members:
        raise GroupActiveError(plan.group, members)
    ka.alter_offsets(admin, plan.group, plan.topic, plan.new_offsets())
