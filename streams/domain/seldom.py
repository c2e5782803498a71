"""How seldom, told after what the user does (for streams/domain/hedges.py).

"I eat meat rarely", "I eat meat only rarely", "I eat meat once in a blue moon", "Mangio
carne raramente", "Je mange de la viande rarement", "Ich esse selten Fleisch" (before:
hedges.py): a quote cut before the word that says how seldom it happens is not the
user's statement of a habit, as one cut after "rarely" before it is not. The word counts
right after the quote (maybe after "only", "very"), not further on in another part of
the clause ("I eat meat that I rarely cook" says the user eats meat).
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.wording import phrase_ending, phrase_index, word_set

_SELDOM = phrase_index(
    "rarely seldom raramente rarement selten zelden rzadko редко nadiren sjelden sällan"
    " harvoin",
    phrases=(
        "hardly ever", "almost never", "once in a blue moon", "rara vez", "di rado",
        "muito raramente", "très rarement", "nur selten", "hiếm khi", "jarang sekali",
    ),
)  # fmt: skip
_BETWEEN = word_set("only very so quite pretty really just muy très sehr molto bardzo очень")
_LONGEST = 5  # words of the longest phrase


def seldom_after(words: Sequence[str], end: int, breaks: frozenset[int]) -> bool:
    """Whether a word of how seldom follows the quote ending at ``words[end]`` in its
    clause, maybe after "only" or "very"."""
    at = end
    while at < len(words) and at not in breaks and words[at] in _BETWEEN and at - end < 2:
        at += 1
    if at >= len(words) or at in breaks:
        return False
    hi = min(len(words), at + _LONGEST)
    for stop in range(at + 1, hi + 1):
        if any(b in breaks for b in range(at + 1, stop)):
            return False
        phrase = phrase_ending(words, stop, _SELDOM)
        if phrase is not None and stop - len(phrase) == at:
            return True
    return False
