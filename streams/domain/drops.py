"""A guard's drop, and the bound on how many drops one episode carries."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from streams.events import Dropped, DropStage

MAX_DROPPED = 60  # drops listed one by one per episode; the rest are counted in one more
MORE_DROPPED = "more_dropped"
_COUNT = re.compile(r"([a-z_]+) x(\d+)")


def drop(
    reason: str, detail: str, subject: str = "", predicate: str = "", obj: str = ""
) -> Dropped:
    return Dropped(
        stage=DropStage.GUARD, reason=reason[:100], detail=detail[:1000],
        subject=subject, predicate=predicate, object=obj,
    )  # fmt: skip


def bound_dropped(dropped: Sequence[Dropped], limit: int = MAX_DROPPED) -> list[Dropped]:
    """At most ``limit`` drops, the last one counting the rest by reason: a hostile answer
    of thousands of broken items must not overflow the event that carries them. A count
    from an earlier stage's bound is added in, not counted as one drop."""
    if len(dropped) <= limit:
        return list(dropped)
    kept, rest = list(dropped[: limit - 1]), dropped[limit - 1 :]
    counts: Counter[str] = Counter()
    for d in rest:
        counts.update(_counted(d))
    summary = ", ".join(f"{reason} x{n}" for reason, n in counts.most_common())
    total = sum(counts.values())
    return [*kept, drop(MORE_DROPPED, f"{total} more dropped: {summary}")]


def _counted(d: Dropped) -> Counter[str]:
    """The drops ``d`` stands for: itself, or those a ``more_dropped`` summary counts."""
    if d.reason != MORE_DROPPED:
        return Counter({d.reason: 1})
    counts = Counter({reason: int(n) for reason, n in _COUNT.findall(d.detail)})
    return counts or Counter({d.reason: 1})
