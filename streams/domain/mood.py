"""Words the user asked or supposed rather than said.

"Do I work at Google?", "Should I move to Berlin?" and "我住在北京吗？" hold the words of
a statement the user did not make, and so does the second half of "If I get the offer I
will move to Berlin". A quote that is a question with its first words or its closing
particle cut off, or that follows a condition in its sentence, is not the user's claim.
A whole question quoted stands ("What should I get my wife for our anniversary?" says
the user has a wife), as does a quote inside a longer question ("Any tips now that I
live in Berlin?"), one before a tag ("I live in Berlin, right?"), after a concession
("Even if it rains, I cycle to work") or a manner of speaking ("If I remember right, I
moved here in 2019").
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.wording import (
    Wording,
    ends_with_phrase,
    folded_words,
    is_unspaced,
    phrase_index,
)

# Words of a question a quote may have cut off: "Should I" before it, 吗 or か after it.
_ASKED_BEFORE = 2
_ASKED_AFTER = 1

_CONDITIONS = phrase_index(
    "if unless suppose supposing assuming wenn falls sofern jeśli jeżeli если якщо eğer"
    " jika nếu 如果 假如 要是 倘若 もし 만약 만일 إذا لو اگر אם अगर यदि εάν αν jos"
)
# Where the condition's reach ends, looking back from the quote: the conjunctions that
# join two statements (not "then", which introduces what a condition leads to).
_JOINS = phrase_index(
    "but and or so because although though however yet aber und oder denn weil sondern"
    " doch mais et ou car donc pero y o porque sino pues e ma ed però perché mas porém но и"
    " а или потому ale oraz lecz fakat ama ve tapi dan atau nhưng và 但 而 和 并 且 แต่"
    " และ لكن אבל लेकिन और 하지만 그리고 でも しかし そして"
)
_CONCEDING = frozenset(t for p in folded_words("even selbst auch") for t in p)
# A condition about the telling, not the told: "if I remember right", "if I'm honest".
_MANNER = frozenset(
    t
    for p in folded_words(
        "remember recall memory honest honestly ask mistaken matters helps understand"
        " erinnere ehrlich помню честно"
    )
    for t in p
)
_CONDITION_REACH = 20  # tokens looked back for a condition (characters, in CJK)
_MANNER_REACH = 4


def asked(said: Wording, start: int, end: int) -> bool:
    """Whether ``said.words[start:end]`` is a question with its opening words ("Do",
    "Should I") or its closing particle (吗, か) cut off: a statement made of a question."""
    sentence = said.sentence_of(start)
    if sentence != said.sentence_of(end - 1) or sentence not in said.asked:
        return False
    first, last = said.sentence_span(sentence)
    opening, closing = start - first, last - end
    if opening > _ASKED_BEFORE or closing > _ASKED_AFTER or opening + closing == 0:
        return False
    return closing == 0 or (is_unspaced(said.words[end]) and end not in said.breaks)


def supposed(said: Wording, start: int) -> bool:
    """Whether a condition comes before ``said.words[start]`` in its sentence, reaching
    it (no conjunction between them), and is not a concession or a manner of speaking."""
    first, _ = said.sentence_span(said.sentence_of(start))
    words = said.words
    for end in range(start, max(first, start - _CONDITION_REACH), -1):
        if ends_with_phrase(words, end, _JOINS):
            return False
        if ends_with_phrase(words, end, _CONDITIONS):
            return not _conceding_or_manner(words, end, start)
    return False


def _conceding_or_manner(words: Sequence[str], end: int, start: int) -> bool:
    """Whether the condition ending before ``words[end]`` is "even if" or a manner of
    speaking ("if I remember right")."""
    before = end - len(_phrases_ending(words, end)[0]) - 1
    if before >= 0 and words[before] in _CONCEDING:
        return True
    return bool(_MANNER.intersection(words[end : min(start, end + _MANNER_REACH)]))


def _phrases_ending(words: Sequence[str], end: int) -> list[tuple[str, ...]]:
    return [
        p
        for p in _CONDITIONS.get(words[end - 1], ())
        if len(p) <= end and tuple(words[end - len(p) : end]) == p
    ]
