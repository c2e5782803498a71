"""The one backoff rule: how long to wait before the next try, everywhere we retry.

Model calls, the runtime's transient retries and commits, the sweep's reconnects and the
admin client's lookups all wait ``Backoff.delay(attempt)``: exponential from ``base_s``,
capped at ``max_s``, with full jitter (uniform over [0, that]) unless ``jitter`` is off
for loops whose timing must be predictable (one process reconnecting). A delay the
server asked for (Retry-After, RetryInfo) wins, under the same cap.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    base_s: float
    max_s: float
    jitter: bool = True

    def ceiling(self, attempt: int) -> float:
        """The longest wait after failed attempt number ``attempt`` (1-based)."""
        # Retries may go on for a long time; bound the exponent (no overflow).
        return min(self.max_s, self.base_s * 2.0 ** min(max(attempt, 1) - 1, 60))

    def delay(
        self,
        attempt: int,
        rand: Callable[[], float] = random.random,
        server_delay_s: float | None = None,
    ) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        if server_delay_s is not None:
            return max(0.0, min(server_delay_s, self.max_s))
        ceiling = self.ceiling(attempt)
        # Full jitter (AWS architecture blog): uniform over [0, capped exponential].
        return float(rand()) * ceiling if self.jitter else ceiling
