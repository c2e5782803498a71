"""streams/pipeline.py: the one topology table every worker and operator command reads."""

from __future__ import annotations

import pytest

from streams import pipeline
from streams.errors import ConfigError
from streams.pipeline import PIPELINE, STAGES, UnknownStageError, factory_of, load_factory
from streams.settings import Settings


def test_every_stage_reads_the_topic_the_previous_stage_writes() -> None:
    s = Settings(topic_prefix="x.")
    assert {spec.name: spec.input_topic(s) for spec in PIPELINE} == {
        "summarize": "x.episodes.completed",
        "extract": "x.episodes.completed",
        "resolve": "x.facts.extracted",
        "dedup": "x.facts.resolved",
        "judge": "x.facts.deduped",
        "write": "x.facts.judged",
    }
    assert pipeline.stage("judge").group == "factstream-judge"
    outputs = [spec.output for spec in PIPELINE if spec.output is not None]
    inputs = {spec.input for spec in PIPELINE}
    assert set(outputs) <= inputs  # nothing is written that no stage reads
    assert pipeline.topics() == ("episodes.completed", *outputs)


def test_sinks_and_episode_readers() -> None:
    assert [s.name for s in PIPELINE if s.output is None] == ["summarize", "write"]
    assert [s.name for s in PIPELINE if s.reads_episodes] == ["summarize", "extract"]


def test_unknown_stage_lists_the_stages() -> None:
    with pytest.raises(UnknownStageError, match="summarize, extract"):
        pipeline.stage("extrakt")


def test_factories_load_and_build_stages_named_after_their_row() -> None:
    for name in STAGES:
        factory = factory_of(name)
        assert factory.__name__ == "create_stage"
    assert load_factory("tests.support.stages:create_passthrough").__name__ == (
        "create_passthrough"
    )
    assert factory_of("anything", "tests.support.stages:create_sink").__name__ == "create_sink"
    with pytest.raises(ConfigError):
        load_factory("no-colon")
    with pytest.raises(ConfigError):
        factory_of("surely-not-a-stage")
