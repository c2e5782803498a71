"""What every stage of the pipeline shares: built from StageDeps, topics from its row.

A stage of :data:`streams.pipeline.PIPELINE` subclasses :class:`PipelineStage`, sets
``name`` (its row) and ``input_model``, and implements ``handle``. The constructor takes
the worker's StageDeps, the one shape every factory passes.
"""

from __future__ import annotations

from typing import Any

from streams import pipeline
from streams.runtime.stage import In, Stage, StageDeps


class PipelineStage(Stage[In]):
    name: str

    def __init__(self, deps: StageDeps) -> None:
        self.deps = deps
        self.settings = deps.settings
        self.pool: Any = deps.pool
        row = pipeline.stage(self.name)
        self.input_topic = row.input_topic(deps.settings)
        self.output_topic = row.output_topic(deps.settings)
