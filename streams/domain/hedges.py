"""A statement the user only holds possible (for streams/domain/quotes.py).

"Maybe I'll move to Denver", "I might move to Denver", "I'm thinking about moving to
Denver", "Quizás me mude a Barcelona", "Возможно, я перееду в Казань", "也许我会搬到上海",
"デンバーに引っ越すかもしれない": a quote cut after the word that makes it a possibility
is not the user's statement, nor is one inside a "whether" ("I wonder if I should move",
"Do you know if I need a visa", "ob ich nach Berlin ziehe") or a doubt ("I doubt I'll
move"). The word counts in the quote's own clause before it (back to
a conjunction joining another statement: "Maybe I'll go hiking, and I live in Denver"),
or as a clause of its own just before ("Возможно, я ..."). A quote that keeps the word
("Maybe I'll move to Denver" quoted whole) is the claim's business, as a negation kept in
its quote is. A plan ("I'm planning to move"), a belief ("I think I have ADHD") and a
likelihood ("I'll probably move") stand.
"""

from __future__ import annotations

from streams.domain.mood import JOINS, POSSESSIVES
from streams.domain.wording import Wording, ends_with_phrase, phrase_ending, phrase_index

_POSSIBLY = phrase_index(
    "maybe perhaps possibly might quizás quizá vielleicht eventuell talvez forse возможно"
    " może misschien belki mungkin barangkali 也许 也許 或许 或許 可能 多分 たぶん 아마 शायद ربما"
    " אולי kanske måske kanskje ehkä",
    phrases=(
        "tal vez", "a lo mejor", "peut-être", "peut être", "se calhar", "может быть",
        "być może", "có lẽ", "thinking about", "thinking of", "pensando en", "pensando em",
        "pensando di", "wonder if", "wondering if", "wonder whether", "wondering whether",
        "know if", "know whether", "sure if", "sure whether", "decide if",
        "decide whether", "deciding if", "deciding whether", "doubt", "whether", "ob",
        "dudo que", "doute que", "bezweifle",
    ),
)  # fmt: skip
# After the quote: Japanese かもしれない, かも.
_AFTER = "かも"


def hedged(said: Wording, start: int, end: int) -> bool:
    """Whether a possibility word stands before ``said.words[start:end]`` in its clause or
    as the clause just before it, or one follows it (かもしれない)."""
    words, breaks = said.words, said.breaks
    if words[start] in POSSESSIVES:
        return False  # "Can you check if my flight to Rome is delayed?": "my flight"
    first, _ = said.sentence_span(said.sentence_of(start))
    at = start
    while at > first:
        if ends_with_phrase(words, at, _POSSIBLY):
            return True
        if at in breaks:
            return _a_hedge_alone(said, first, at)
        if ends_with_phrase(words, at, JOINS):
            return False  # "..., and I live in Denver": another statement
        at -= 1
    return end not in breaks and "".join(words[end : end + 4]).startswith(_AFTER)


def _a_hedge_alone(said: Wording, first: int, clause_start: int) -> bool:
    """Whether the clause ending at ``clause_start`` is only a possibility word
    ("Возможно,", "Maybe,")."""
    hedge = phrase_ending(said.words, clause_start, _POSSIBLY)
    if hedge is None:
        return False
    opening = clause_start - len(hedge)
    return opening <= first or opening in said.breaks
