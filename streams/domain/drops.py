"""A guard's drop, and the bound on how many drops one episode carries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from streams.events import Dropped, DropStage

MAX_DROPPED = 60  # drops listed one by one per episode; the rest are counted in one more


def drop(
    reason: str, detail: str, subject: str = "", predicate: str = "", obj: str = ""
) -> Dropped:
    return Dropped(
        stage=DropStage.GUARD, reason=reason[:100], detail=detail[:1000],
        subject=subject, predicate=predicate, object=obj,
    )  # fmt: skip


def bound_dropped(dropped: Sequence[Dropped], limit: int = MAX_DROPPED) -> list[Dropped]:
    """At most ``limit`` drops, the last one counting the rest by reason: a hostile answer
    of thousands of broken items must not overflow the event that carries them."""
    if len(dropped) <= limit:
        return list(dropped)
    kept, rest = list(dropped[: limit - 1]), dropped[limit - 1 :]
    counts = Counter(d.reason for d in rest)
    summary = ", ".join(f"{reason} x{n}" for reason, n in counts.most_common())
    return [*kept, drop("more_dropped", f"{len(rest)} more dropped: {summary}")]
