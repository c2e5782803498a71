"""What a newer version of an episode takes back.

An application re-sends an episode when it changed: the window grew, or the user edited
or deleted a message. The newer version replaces the stored one (DESIGN "Time", rule 4),
so a statement the earlier version made and the newer one no longer makes is no longer
the user's: its fact is retracted (ended in transaction time; the store keeps it as
history) and what it had ended is believed again. A statement is still made when its
quote is still the user's statement in the newer version's messages (the quote check,
streams/domain/quotes.py): "I live in Paris" edited to "I might move to Paris" takes the
fact back. A fact whose quote was never found in the user's words tells nothing by its
absence now, and is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from streams.domain.quotes import quote_found, user_texts
from streams.events import Message


@dataclass(frozen=True)
class EarlierStatement:
    """A believed fact an earlier version of the episode stated, with its quote."""

    fact_id: int
    quote: str
    untrusted_reason: str | None = None


# How the quote check's reasons begin (streams/domain/quotes.py check_quotes); a claim
# untrusted for more than one reason has them joined by "; ".
_QUOTE_REASONS = ("quote ", "no source quote")


def quote_was_doubted(untrusted_reason: str | None) -> bool:
    """Whether the fact was stored untrusted because of its quote (not found, not the
    user's statement, too short, none given): then its quote is no evidence either way."""
    parts = (untrusted_reason or "").split("; ")
    return any(part.startswith(_QUOTE_REASONS) for part in parts)


def withdrawn(earlier: Sequence[EarlierStatement], messages: Sequence[Message]) -> list[int]:
    """The ids of the earlier statements the newer version's ``messages`` no longer make."""
    said = user_texts(messages)
    return [
        s.fact_id
        for s in earlier
        if not quote_was_doubted(s.untrusted_reason) and not quote_found(s.quote, said)
    ]
