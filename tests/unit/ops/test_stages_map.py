"""Stage -> (consumer group, input topic): the one map lag, replay and dlq share."""

from __future__ import annotations

import pytest

from streams.ops.stages_map import UnknownStageError, stage_group, stage_input_topic
from streams.settings import STAGES, Settings


def test_every_stage_reads_the_topic_the_previous_stage_writes() -> None:
    s = Settings(topic_prefix="x.")
    assert {stage: stage_input_topic(s, stage) for stage in STAGES} == {
        "summarize": "x.episodes.completed",
        "extract": "x.episodes.completed",
        "resolve": "x.facts.extracted",
        "dedup": "x.facts.resolved",
        "judge": "x.facts.deduped",
        "write": "x.facts.judged",
    }
    assert stage_group("judge") == "factstream-judge"


def test_unknown_stage_lists_the_stages() -> None:
    with pytest.raises(UnknownStageError, match="summarize, extract"):
        stage_group("extrakt")
