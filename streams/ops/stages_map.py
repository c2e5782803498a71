"""Which consumer group reads which topic: the one map every operator command shares."""

from __future__ import annotations

from streams.settings import STAGES, Settings

# Stage -> short name of the topic it consumes. summarize and extract both read the
# application's input topic, each in its own group.
_STAGE_INPUTS: dict[str, str] = {
    "summarize": "episodes.completed",
    "extract": "episodes.completed",
    "resolve": "facts.extracted",
    "dedup": "facts.resolved",
    "judge": "facts.deduped",
    "write": "facts.judged",
}

# Stages whose input is EpisodeCompleted, so `replay --reprocess` can re-publish it.
EPISODE_STAGES: tuple[str, ...] = ("summarize", "extract")


class UnknownStageError(ValueError):
    pass


def check_stage(stage: str) -> str:
    if stage not in _STAGE_INPUTS:
        raise UnknownStageError(f"unknown stage {stage!r}; stages are: {', '.join(STAGES)}")
    return stage


def stage_group(stage: str) -> str:
    """The consumer group of a stage's workers (`factstream worker STAGE` joins it)."""
    return f"factstream-{check_stage(stage)}"


def stage_input_topic(settings: Settings, stage: str) -> str:
    """The full name of the topic a stage consumes."""
    return settings.topic(_STAGE_INPUTS[check_stage(stage)])
