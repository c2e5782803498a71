"""Parameter types shared by commands: the stage names of streams/pipeline.py as choices,
so `--help` lists them and a wrong name is a usage error (exit 2) before anything runs."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from streams.pipeline import STAGES

if TYPE_CHECKING:

    class StageChoice(StrEnum):
        """One of the stages of the pipeline table."""

else:
    # Built from the table, so a new stage's row is all a command needs.
    StageChoice = StrEnum("StageChoice", [(name, name) for name in STAGES])
