"""One JSON object per log line, with the record's coordinates when there is one.

librdkafka repeats itself many times a second while a broker is down (every reconnect of
every client, and the error callbacks on top), so the Kafka clients' lines are
rate-limited: a line like an earlier one (same logger, level and text, numbers aside) is
dropped for ``REPEAT_WINDOW_S``; the next one that passes says how many were dropped
(``"suppressed": N``). Control characters and bidi overrides are escaped in every line,
so a hostile key or message cannot drive the terminal that tails the log.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, Any

FIELDS = (
    "stage",
    "group",
    "tenant",
    "episode_id",
    "topic",
    "partition",
    "offset",
    "attempt",
    "reason",
    "outcome",
    "error",
    "instance",
    "suppressed",
)
# librdkafka's lines (every client routes them to the "librdkafka" logger) and the
# runtime's error callback, which logs each error librdkafka reports.
RATE_LIMITED = ("librdkafka", "streams.runtime.kafka")
REPEAT_WINDOW_S = 30.0
# JSON escapes C0 controls itself; DEL, C1 controls (0x9b is a CSI) and bidi controls it
# leaves alone when ensure_ascii is off.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NUMBERS = re.compile(r"\d+")


def dumps(value: Any, **kwargs: Any) -> str:
    """json.dumps with non-ASCII text kept readable but no terminal control character left."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for name in FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                out[name] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return dumps(out, default=str)


class RepeatFilter(logging.Filter):
    """Drops a line of ``loggers`` that repeats an earlier one within ``window_s``."""

    def __init__(
        self,
        loggers: tuple[str, ...] = RATE_LIMITED,
        window_s: float = REPEAT_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = 1000,
    ) -> None:
        super().__init__()
        self._loggers = loggers
        self._window_s = window_s
        self._clock = clock
        self._max_keys = max_keys
        self._seen: dict[tuple[str, int, str], list[float]] = {}  # key -> [since, dropped]
        self._lock = threading.Lock()  # librdkafka logs from its own threads too

    def _limited(self, name: str) -> bool:
        return any(name == n or name.startswith(n + ".") for n in self._loggers)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._limited(record.name):
            return True
        key = (record.name, record.levelno, _NUMBERS.sub("#", record.getMessage()))
        now = self._clock()
        with self._lock:
            seen = self._seen.get(key)
            if seen is not None and now - seen[0] < self._window_s:
                seen[1] += 1
                return False
            if seen is not None and seen[1]:
                record.suppressed = int(seen[1])
            if len(self._seen) >= self._max_keys:
                self._seen.clear()
            self._seen[key] = [now, 0]
        return True


class _JsonHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``stream``, or to whatever sys.stderr is at the time of each line (a test
    runner swaps it)."""

    def __init__(self, stream: IO[str] | None) -> None:
        super().__init__(stream or sys.stderr)
        self._follow_stderr = stream is None
        self.setFormatter(JsonFormatter())
        self.addFilter(RepeatFilter())

    def emit(self, record: logging.LogRecord) -> None:
        if self._follow_stderr:
            self.stream = sys.stderr
        super().emit(record)


def configure(
    level: str | int = "INFO",
    stream: IO[str] | None = None,
    *,
    librdkafka_level: str | int = logging.WARNING,
) -> None:
    """Route the root logger through JsonFormatter (entry points call this; calling it
    again replaces the earlier JSON handler, and leaves other handlers alone).

    ``librdkafka_level``: the least level of librdkafka's own lines that is logged
    (operator commands pass CRITICAL: they report an unreachable broker in one line).
    """
    root = logging.getLogger()
    root.handlers[:] = [h for h in root.handlers if not isinstance(h, _JsonHandler)]
    root.addHandler(_JsonHandler(stream))
    root.setLevel(level)
    logging.getLogger("librdkafka").setLevel(librdkafka_level)
