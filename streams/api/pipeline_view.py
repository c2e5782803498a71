"""The Playground's pipeline page: lag per stage over the last minutes, and dead letters.

Lag is sampled by the app itself (every ``interval_s`` while it runs) with the same
admin reads as `factstream lag` (streams/ops/lag.py), and kept in memory for
``window_s``: the chart needs no metrics stack. Dead letters are read with
streams/ops/dlq.py; dead-letter topics are small. Kafka calls block, so callers run
these in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from streams.kafka import admin as ka
from streams.ops import dlq
from streams.ops.lag import collect_lag
from streams.pipeline import STAGES
from streams.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LagSample:
    at: float  # unix seconds
    lag: dict[str, int | None]  # stage -> total lag; None: could not be read
    errors: dict[str, str]


class LagHistory:
    """The last ``window_s`` seconds of lag samples, one every ``interval_s``."""

    def __init__(
        self,
        settings: Settings,
        group_of: Callable[[str], str],
        *,
        interval_s: float = 5.0,
        window_s: float = 900.0,
    ) -> None:
        self.settings, self.group_of = settings, group_of
        self.interval_s, self.window_s = interval_s, window_s
        self.samples: deque[LagSample] = deque(maxlen=max(2, int(window_s / interval_s) + 1))
        self.groups = {stage: group_of(stage) for stage in STAGES}
        self._admin: Any = None

    def sample(self) -> LagSample:
        """Read every stage's lag now (blocking) and keep it."""
        try:
            if self._admin is None:
                self._admin = ka.admin_client(self.settings)
            report = collect_lag(self.settings, self._admin, STAGES, self.group_of)
            lag: dict[str, int | None] = {s.stage: None if s.error else s.lag for s in report}
            errors = {s.stage: s.error for s in report if s.error}
        except Exception as exc:  # the broker is away: the chart shows a gap, with why
            lag = dict.fromkeys(STAGES)
            errors = dict.fromkeys(STAGES, f"{type(exc).__name__}: {exc}")
        found = LagSample(time.time(), lag, errors)
        self.samples.append(found)
        return found

    async def run(self) -> None:
        """Sample until cancelled (the app's lifespan)."""
        while True:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.sample)
            await asyncio.sleep(self.interval_s)

    def as_json(self) -> dict[str, Any]:
        return {
            "stages": list(STAGES),
            "groups": self.groups,
            "interval_s": self.interval_s,
            "window_s": self.window_s,
            "samples": [{"at": s.at, "lag": s.lag, "errors": s.errors} for s in self.samples],
        }


def letter_json(letter: dlq.DeadLetter, full: bool = False) -> dict[str, Any]:
    r = letter.record
    out: dict[str, Any] = {
        "id": f"{r.partition}/{r.offset}",
        "partition": r.partition,
        "offset": r.offset,
        "timestamp_ms": r.timestamp_ms,
        "tenant": letter.tenant,
        "reason": letter.reason,
        "original": letter.original,
        "redrivable": letter.unroutable_reason() is None,
        "unroutable_reason": letter.unroutable_reason(),
    }
    if full:
        kind, text = dlq.render_payload(r.value, preview_bytes=4096)
        out["headers"] = [(k, dlq.bytes_as_text(v)) for k, v in r.headers]
        out["payload"] = {"kind": kind, "text": text, "bytes": len(r.value or b"")}
    return out


def dead_letter_counts(settings: Settings) -> dict[str, dict[str, Any]]:
    """Per stage: how many dead letters its topic holds now (or why it cannot say)."""
    counts: dict[str, dict[str, Any]] = {}
    for stage in STAGES:
        topic = settings.dlq_topic(stage)
        try:
            counts[stage] = {"topic": topic, "count": len(dlq.list_dead_letters(settings, stage))}
        except Exception as exc:  # a missing topic, an unreachable broker
            counts[stage] = {"topic": topic, "count": None, "error": f"{type(exc).__name__}: {exc}"}
    return counts


def redrive_one(settings: Settings, stage: str, partition: int, offset: int) -> dict[str, Any]:
    """Redrive exactly one dead letter (streams/ops/dlq.py records it: never sent twice)."""
    result = dlq.redrive(settings, stage, only=(partition, offset))
    return {
        "redriven": [
            {"id": f"{d.record.partition}/{d.record.offset}", "to": to} for d, to in result.redriven
        ],
        # The redrive ledger says this one was sent before: nothing was sent again.
        "already_redriven": result.already > 0,
        "unroutable": [{"id": d.original, "why": why} for d, why in result.unroutable],
        "failed": [{"id": d.original, "why": why} for d, why in result.failed],
    }
