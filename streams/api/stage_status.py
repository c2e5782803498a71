"""Each stage's status for one episode, read from what the ledger and llm_calls say.

The ledger keeps two statuses (the summary and the extraction path); the extraction path
runs through extract, resolve, dedup, judge and write. Which of those an episode in
flight has passed is told by the model calls each stage records (an embedding batch for
resolve and dedup, the judge's call), and a dead letter names its stage in the error.
A stage that makes no call for this episode (a judge with no pair) shows as done once a
later stage has recorded one or the episode is done. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from streams.pipeline import STAGES

SEMANTIC = tuple(s for s in STAGES if s != "summarize")
_DEAD_LETTERED = re.compile(r"dead-lettered by (\w+)")


def _failed_at(row: Mapping[str, Any], failed_stages: set[str]) -> str:
    found = _DEAD_LETTERED.search(row.get("semantic_last_error") or "")
    if found and found.group(1) in SEMANTIC:
        return found.group(1)
    for stage in SEMANTIC:
        if stage in failed_stages:
            return stage
    return "extract"


def _semantic(row: Mapping[str, Any], called: set[str], failed: set[str]) -> dict[str, str]:
    status = row.get("semantic_status") or "pending"
    if status in ("done", "skipped"):
        return dict.fromkeys(SEMANTIC, status)
    if status in ("pending", "queued"):
        return {s: (status if s == "extract" else "waiting") for s in SEMANTIC}
    if status == "failed":
        at = SEMANTIC.index(_failed_at(row, failed))
    else:  # processing: the stage after the last one that recorded a call is at work
        reached = [SEMANTIC.index(s) for s in called if s in SEMANTIC]
        at = max(reached) + 1 if reached else 0
        at = min(at, len(SEMANTIC) - 1)
    here = "failed" if status == "failed" else "running"
    after = "not run" if status == "failed" else "waiting"
    return {s: ("done" if i < at else here if i == at else after) for i, s in enumerate(SEMANTIC)}


def stage_statuses(row: Mapping[str, Any]) -> dict[str, str]:
    """stage -> done | running | waiting | queued | pending | failed | skipped | not run."""
    called = set(_names(row.get("call_stages")))
    failed = set(_names(row.get("failed_stages")))
    return {"summarize": row.get("status") or "pending", **_semantic(row, called, failed)}


def _names(value: Iterable[str] | None) -> list[str]:
    return [] if value is None else [v for v in value if v]
