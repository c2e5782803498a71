"""Waiting for dead letters on a stage's DLQ topic (e2e and scenario tests)."""

from __future__ import annotations

import asyncio
import time

from streams.ops.dlq import DeadLetter, list_dead_letters
from streams.settings import Settings


async def wait_for_dead_letters(
    settings: Settings, stage: str, *, tenant: str | None = None, at_least: int = 1
) -> list[DeadLetter]:
    """The stage's dead letters (of ``tenant`` if given) once there are ``at_least``;
    fails after 30 s."""
    deadline = time.monotonic() + 30
    while True:
        found = await asyncio.to_thread(list_dead_letters, settings, stage, tenant=tenant)
        if len(found) >= at_least:
            return found
        assert time.monotonic() < deadline, f"{stage}: {len(found)} dead letters, not {at_least}"
        await asyncio.sleep(0.2)
