"""A clause of its own before a quote, without a comma (for streams/domain/negation.py).

"when I'm not coding I play guitar": the "not" is the "when" clause's, and "I play
guitar" opens a clause with its own subject, so the negation does not reach it.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from streams.domain.wording import word_set

_SUBORDINATORS = word_set("when whenever while once if after before because since although")
_SUBJECTS = word_set("i we he she they you")
_SCOPE = 6  # words looked back from the negator for the clause's opening


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
