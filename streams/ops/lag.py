"""`factstream lag`: how far each stage's consumer group is behind its input topic.

lag = log-end offset − committed offset, per partition. A partition where the group has
not committed yet counts from the earliest offset still in the log (the workers start
there), so its lag is everything retained. The log-end offset is the high watermark, the
number ``kafka-consumer-groups`` and KEDA use too; transaction markers occupy offsets,
and workers commit their consumer's position past them, so a drained group shows 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from streams import pipeline
from streams.kafka import admin as ka
from streams.pipeline import STAGES
from streams.settings import Settings


@dataclass(frozen=True)
class PartitionLag:
    partition: int
    earliest: int
    log_end: int
    committed: int | None

    @property
    def lag(self) -> int:
        start = self.earliest if self.committed is None else self.committed
        return max(0, self.log_end - start)


@dataclass(frozen=True)
class StageLag:
    stage: str
    group: str
    topic: str
    partitions: list[PartitionLag] = field(default_factory=list)
    error: str | None = None  # e.g. the topic does not exist yet

    @property
    def lag(self) -> int:
        return sum(p.lag for p in self.partitions)


def stage_lag(admin: ka.AdminClient, stage: str, group: str, topic: str) -> StageLag:
    try:
        partitions = ka.topic_partitions(admin, topic)
    except ka.TopicNotFoundError as exc:
        return StageLag(stage, group, topic, error=str(exc))
    marks = ka.watermarks(admin, topic, partitions)
    committed = ka.committed_offsets(admin, group, topic, partitions)
    rows = [PartitionLag(p, marks[p][0], marks[p][1], committed[p]) for p in partitions]
    return StageLag(stage, group, topic, rows)


def group_chooser(
    stages: Sequence[str], *, group: str | None = None, group_prefix: str | None = None
) -> Callable[[str], str]:
    """Which consumer group `lag` reads per stage (``--group`` / ``--group-prefix``).

    ``stages``: the stages the operator named with ``--stage`` (empty: every stage).
    Workers started with ``--group`` (the demo, the bench, an operator's own naming) are
    invisible under the default ``factstream-<stage>``. One group name can only mean one
    stage: each stage reads its own topic, so a group is tied to the stage it runs.
    """
    if group is not None and group_prefix is not None:
        raise ValueError("give --group or --group-prefix, not both")
    if group is not None:
        if not group:
            raise ValueError("--group must not be empty")
        if len(set(stages)) != 1:
            named = ", ".join(dict.fromkeys(stages))
            got = f"got --stage {named}" if named else "no --stage given"
            raise ValueError(
                f"--group {group} needs exactly one --stage ({got}); for one group per"
                " stage use --group-prefix PREFIX (groups <PREFIX><stage>)"
            )
        return lambda _stage: group
    if group_prefix is not None:
        return lambda stage: f"{group_prefix}{stage}"
    return _default_group


def collect_lag(
    settings: Settings,
    admin: ka.AdminClient,
    stages: Sequence[str] = STAGES,
    group_of: Callable[[str], str] | None = None,
) -> list[StageLag]:
    """Lag of every stage (``group_of`` lets tests and operators name other groups)."""
    group_of = group_of or _default_group
    return [
        stage_lag(admin, name, group_of(name), pipeline.stage(name).input_topic(settings))
        for name in stages
    ]


def _default_group(name: str) -> str:
    return pipeline.stage(name).group


def lag_as_json(report: Sequence[StageLag]) -> dict[str, Any]:
    """The machine-readable form of `factstream lag --json`."""
    return {
        "total_lag": sum(s.lag for s in report),
        "stages": [
            {
                "stage": s.stage,
                "group": s.group,
                "topic": s.topic,
                "lag": s.lag,
                "error": s.error,
                "partitions": [
                    {
                        "partition": p.partition,
                        "committed": p.committed,
                        "earliest": p.earliest,
                        "log_end": p.log_end,
                        "lag": p.lag,
                    }
                    for p in s.partitions
                ],
            }
            for s in report
        ],
    }
