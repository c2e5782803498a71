"""Stage names -> ``"package.module:factory"``; a factory takes StageDeps, returns a Stage.

Each stage's author adds one line here. ``--stage-factory`` on the worker command takes
any such spec directly (tests use ``streams.runtime.testing_stages:create_passthrough``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

STAGE_FACTORIES: dict[str, str] = {
    "summarize": "streams.stages.summarize:create_stage",
    "extract": "streams.stages.extract:create_stage",
    "resolve": "streams.stages.resolve:create_stage",
    "dedup": "streams.stages.dedup:create_stage",
    "judge": "streams.stages.judge:create_stage",
    "write": "streams.stages.write:create_stage",
}

StageFactory = Callable[..., Any]


def load_factory(spec: str) -> StageFactory:
    """Import ``package.module:attr`` and return the callable."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"stage factory must look like 'package.module:factory', got {spec!r}")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"{spec!r} is not callable")
    return obj


def resolve(stage: str, factory: str | None = None) -> StageFactory:
    spec = factory or STAGE_FACTORIES.get(stage)
    if spec is None:
        known = ", ".join(sorted(STAGE_FACTORIES)) or "none registered yet"
        raise KeyError(f"unknown stage {stage!r} (known: {known}); or pass --stage-factory")
    return load_factory(spec)
