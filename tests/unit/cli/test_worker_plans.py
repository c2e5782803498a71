"""Which worker pools plan each statement once (streams/pipeline.py ``plans_once``)."""

from __future__ import annotations

from streams.cli.worker import plans_once
from streams.pipeline import PIPELINE


def test_only_stages_without_a_vector_search_plan_once() -> None:
    """Resolution, dedup and the judge search by vector: their plans must see the tenant."""
    once = {spec.name for spec in PIPELINE if plans_once(spec.name, None)}
    assert once == {"summarize", "extract", "write"}


def test_a_replacement_stage_never_plans_once() -> None:
    """A --stage-factory runs code the table knows nothing about."""
    assert not plans_once("write", "my_package.stages:create_write")
