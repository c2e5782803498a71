"""Time clauses the rest of time_clauses.py does not see (for streams/domain/mood.py).

A quote inside the time clause itself, when what follows it is a future: "When I have
kids I'll teach them Spanish" does not say the user has kids, nor "cuando tenga hijos
les enseñaré inglés" ("I have kids", "tenga hijos" quoted); a past or a habit after it
leaves the clause the user's ("When I had kids I quit smoking", "When I get home I
usually cook"). And a time clause opening mid-sentence, after a clause of its own: "ok so
my gf thinks I'm a workaholic, anyway when the project ends ill take a vacation".
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.time_clauses import (
    FIRST_WORDS,
    a_future,
    future_after_time,
    main_opens,
    time_opening,
)
from streams.domain.wording import word_set

_LEADING = word_set("so and but then well also anyway anyways y et mais pero und aber")
_SUBJECTS = word_set("i we ich je yo eu io ik я ja")
_REACH = 4  # clauses looked at before the quote: a hostile message stays cheap
_FIRST_WORDS = FIRST_WORDS | _LEADING
_OPENING_REACH = 5  # words before a quote opening the time clause: "so as soon as I"


def inside_a_future_time(words: Sequence[str], span: tuple[int, int, int, int],
                         breaks: frozenset[int]) -> bool:  # fmt: skip
    """Whether the quote at ``span[1]:span[2]`` opens the time clause of the sentence
    ``span[0]:span[3]`` (right after "when", or after "when I") and a future follows."""
    first, start, end, last = span
    if start - first > _OPENING_REACH or _FIRST_WORDS.isdisjoint(words[first : first + 2]):
        return False  # the common case: the quote does not open a time clause
    at = first + (words[first] in _LEADING and first + 1 < start)
    found = time_opening(words, at)
    if found is None:
        return False
    opening, lang = found
    lo = at + len(opening)
    if not (start == lo or (start == lo + 1 and words[lo] in _SUBJECTS)):
        return False
    clause = next((b for b in sorted(breaks) if end <= b < last), None)
    if clause is None and lang.startswith("en"):
        clause = next((i for i in range(end, last) if main_opens(words, i)), None)
    elif clause is None and end < last:
        clause = end  # "cuando tenga hijos les enseñaré inglés": the quote ends the clause
    if clause is None or clause < end:
        return False
    main_end = next((b for b in sorted(breaks) if clause < b <= last), last)
    return a_future(lang, words[lo:clause], words[clause:main_end])


def after_a_time_clause_mid_sentence(words: Sequence[str], span: tuple[int, int, int, int],
                                     breaks: frozenset[int]) -> bool:  # fmt: skip
    """Whether a time clause opening after a clause of its own, in the quote's sentence,
    makes the quote a future ("..., anyway when the project ends ill take a vacation")."""
    first, start, end, last = span
    if _FIRST_WORDS.isdisjoint(words[first:start]):
        return False  # the common case: no time clause before the quote
    lows = sorted(b for b in breaks if first < b < start)[-_REACH:]
    return any(future_after_time(words, (b, start, end, last), breaks) for b in lows)
