"""Parameter types shared by commands: the stage names of streams/pipeline.py as choices,
so `--help` lists them and a wrong name is a usage error (exit 2) before anything runs;
likewise a tenant's dataset and project id."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

import typer

from streams.api.arguments import is_tenant_id
from streams.pipeline import STAGES

if TYPE_CHECKING:

    class StageChoice(StrEnum):
        """One of the stages of the pipeline table."""

else:
    # Built from the table, so a new stage's row is all a command needs.
    StageChoice = StrEnum("StageChoice", [(name, name) for name in STAGES])


def tenant_id(value: str | None) -> str | None:
    """A dataset or project id as events carry them (streams/event_fields.py). Any other
    text names no tenant that can exist: a usage error, not an empty answer."""
    if value is not None and not is_tenant_id(value):
        raise typer.BadParameter(
            f"{value!r} is not a tenant id: 1-128 ASCII letters, digits, '_', '.' or '-',"
            " starting with a letter or digit"
        )
    return value
