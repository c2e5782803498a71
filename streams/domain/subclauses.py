"""Clauses a negation before them does not reach (for streams/domain/negation.py).

"when I'm not coding I play guitar": the "not" is the "when" clause's, and "I play
guitar" opens a clause with its own subject, without a comma between. "You didn't know I
have a twin", "kamu belum tahu bahwa saya sudah menikah": what someone does not know is
still so (the verb is factive), so the quote after it stands. "gak tau ngaruh atau
nggak tapi aku kidal": "tapi" ("but") ends the negated clause.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from streams.domain.wording import word_set

# Conjunctions that after a negator are its own ("non è", folded as "e"; "not so", "not
# yet"); any other ends its clause ("nggak tapi aku kidal", "không nhưng mình").
NEGATORS_OWN = frozenset(["e", "a", "so", "yet", "then", "though", "however", "и", "а"])
_SUBORDINATORS = word_set("when whenever while once if after before because since although")
_SUBJECTS = word_set("i we he she they you")
_SCOPE = 6  # words looked back from the negator for the clause's opening
_FACTIVE = word_set(
    "know knew realize realise realized realised notice noticed tahu tau sabes sabías"
    " weißt wusstest sais savais"
)
_THAT = word_set("that bahwa kalau que dass")


def factive_before(words: Sequence[str], start: int) -> bool:
    """Whether "know", "realize" (maybe with "that") stands just before ``words[start]``."""
    if start > 0 and words[start - 1] in _FACTIVE:
        return True
    return start > 1 and words[start - 1] in _THAT and words[start - 2] in _FACTIVE


def in_a_clause_before(words: Sequence[str], end: int, start: int, breaks: Set[int]) -> bool:
    """Whether the negator ending before ``words[end]`` closes a "when", "if" clause of
    its own before a quote opening with a new subject, without a comma between: "when
    I'm not coding I play guitar" does not negate "I play guitar"."""
    if start - end < 1 or words[start] not in _SUBJECTS:
        return False
    at = end - 1
    while at > 0 and end - at <= _SCOPE and at not in breaks:
        at -= 1
        if words[at] in _SUBORDINATORS:
            return True
    return False
