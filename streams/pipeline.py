"""The topology, in one table: every stage, what it reads and writes, its group, its code.

Workers, operator commands (lag, replay, dlq), topic creation, the demo, the bench and
the deployment manifests all read this table, so adding a stage is one module under
``streams/stages`` plus one row here. Topic names are short (``facts.extracted``); the
settings' ``topic_prefix`` makes them full. Factories are ``package.module:function``
strings, imported only when a worker starts, so reading the table imports no stage.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from streams.errors import ConfigError
from streams.settings import Settings

EPISODES = "episodes.completed"


@dataclass(frozen=True)
class StageSpec:
    name: str
    factory: str  # "package.module:function" taking StageDeps and returning a Stage
    input: str  # short name of the topic it consumes
    output: str | None  # short name of the topic it produces; None: a Postgres sink
    # Every statement the stage runs finds a tenant's rows by key, no vector search, so
    # its best plan is the same for any values: its sessions plan each statement once
    # (Postgres' generic plan) rather than at every run. A vector search must be planned
    # for its tenant (its partial index, its size), so its stages leave it to Postgres.
    plans_once: bool = False

    @property
    def group(self) -> str:
        """The consumer group of its workers (`factstream worker STAGE` joins it)."""
        return f"factstream-{self.name}"

    @property
    def reads_episodes(self) -> bool:
        """Its input is EpisodeCompleted, so `replay --reprocess` can re-publish it."""
        return self.input == EPISODES

    def input_topic(self, settings: Settings) -> str:
        return settings.topic(self.input)

    def output_topic(self, settings: Settings) -> str | None:
        return None if self.output is None else settings.topic(self.output)


def _row(
    name: str, input_topic: str, output_topic: str | None, *, plans_once: bool = False
) -> StageSpec:
    factory = f"streams.stages.{name}:create_stage"
    return StageSpec(name, factory, input_topic, output_topic, plans_once)


PIPELINE: tuple[StageSpec, ...] = (
    _row("summarize", EPISODES, None, plans_once=True),
    _row("extract", EPISODES, "facts.extracted", plans_once=True),
    _row("resolve", "facts.extracted", "facts.resolved"),
    _row("dedup", "facts.resolved", "facts.deduped"),
    _row("judge", "facts.deduped", "facts.judged"),
    _row("write", "facts.judged", None, plans_once=True),
)
STAGES: tuple[str, ...] = tuple(s.name for s in PIPELINE)
_BY_NAME = {s.name: s for s in PIPELINE}


class UnknownStageError(ConfigError, ValueError):
    """A stage name that is not in the table (a usage error)."""


def stage(name: str) -> StageSpec:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownStageError(
            f"unknown stage {name!r}; stages are: {', '.join(STAGES)}"
        ) from None


def topics() -> tuple[str, ...]:
    """Short names of every topic stages read or write, the input topic first."""
    names = [EPISODES]
    for spec in PIPELINE:
        for name in (spec.input, spec.output):
            if name is not None and name not in names:
                names.append(name)
    return tuple(names)


StageFactory = Callable[..., Any]


def load_factory(spec: str) -> StageFactory:
    """Import ``package.module:attr`` and return the callable."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"stage factory must look like 'package.module:factory', got {spec!r}")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise ConfigError(f"{spec!r} is not callable")
    return obj  # type: ignore[no-any-return]


def factory_of(name: str, override: str | None = None) -> StageFactory:
    """The factory of a stage of the table, or ``override`` (any ``package.module:factory``)."""
    return load_factory(override or stage(name).factory)
