"""One user message as the quote check searches it, and whether words in it are said.

The message's words, where its clauses and sentences part, and where each pair of words
occurs (for anchoring a close match, streams/domain/quotes.py); and whether words found in
it are the user's statement: not negated around them (streams/domain/negation.py),
asked, supposed or wished (streams/domain/mood.py), hedged, taken back, another's view,
or one word picked out of a longer sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from streams.domain.hedges import hedged
from streams.domain.mood import asked, supposed, wished
from streams.domain.negation import negated_after, negated_before
from streams.domain.scope import framed_earlier, viewed_after
from streams.domain.takeback import taken_back
from streams.domain.wording import Wording, is_unspaced, word_set, wording

# A quote of one word is the user's only as (nearly) a clause of its own ("Vegan.", "I'm
# vegan", "Tom, 34, nurse"), not picked out of a longer one.
_LONE_WORD_CLAUSE = 3
# Positions of one pair of words kept for anchoring a close match: a repetitive message
# stays cheap.
_MAX_SPOTS = 32
_BECAUSE = word_set("because cuz bc çünkü weil donde where wo où onde dove ama fakat ve que che")


@dataclass(frozen=True)
class Rules:
    """What besides negation makes words the user wrote not their statement."""

    moods: bool = True  # asked or supposed (streams/domain/mood.py)
    lone: bool = False  # the quote is one word: picked out of a longer sentence


class Said:
    """One user message as tokens, the words after punctuation, and lookups over them."""

    __slots__ = ("_spots", "breaks", "offsets", "padded", "wording", "words")

    def __init__(self, text: str) -> None:
        self.wording = wording(text)
        self.words = self.wording.words
        self.breaks = self.wording.breaks
        self.padded = f" {' '.join(self.words)} "
        self.offsets: list[int] = []  # where " word" of each token begins in padded
        at = 0
        for word in self.words:
            self.offsets.append(at)
            at += len(word) + 1
        self._spots: dict[tuple[str, str], list[int]] | None = None

    def sentence_of(self, word: int) -> int:
        """Which sentence of the message the word at (or the gap before) ``word`` is in."""
        return self.wording.sentence_of(word)

    def unsaid(self, start: int, end: int, rules: Rules) -> bool:
        """Whether the words at ``start:end`` are not a statement of the user's: negated
        around them, or (by ``rules``) asked, supposed, or one word picked out of a longer
        sentence ("Berlin" from "Berlin was too expensive")."""
        if negated_before(self.words, start, self.breaks, self.wording.names):
            return True
        if negated_after(self.words, end, self.breaks):
            return True
        if rules.moods and _moody(self.wording, start, end):
            return True
        return rules.lone and self._picked_out(start)

    def _picked_out(self, word: int) -> bool:
        """Whether the one word at ``word`` was asked ("Vegan?", "Berlin or Munich?") or
        picked out of a longer clause than an item of a list ("Tom, 34, nurse, Leeds")."""
        if word > 0 and self.words[word - 1] in _BECAUSE:
            return False  # "arayacağım çünkü işteyim", "donde nací": a clause of its own
        if self.sentence_of(word) in self.wording.asked:
            return True
        first = max((b for b in self.breaks if b <= word), default=0)
        last = min((b for b in self.breaks if b > word), default=len(self.words))
        stretch = self.words[first:last]
        return len(stretch) > _LONE_WORD_CLAUSE and not any(map(is_unspaced, stretch))

    def spots(self) -> dict[tuple[str, str], list[int]]:
        """Where each pair of consecutive words occurs (the first few times)."""
        if self._spots is None:
            self._spots = {}
            for i, pair in enumerate(pairwise(self.words)):
                seen = self._spots.setdefault(pair, [])
                if len(seen) < _MAX_SPOTS:
                    seen.append(i)
        return self._spots


def _moody(said: Wording, start: int, end: int) -> bool:
    return (
        asked(said, start, end)
        or supposed(said, start, end)
        or wished(said, start, end)
        or hedged(said, start, end)
        or taken_back(said, start, end)
        or framed_earlier(said, start)
        or viewed_after(said, start, end)
    )
