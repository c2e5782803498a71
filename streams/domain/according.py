"""Openings of another's view told around who holds it (for streams/domain/views.py).

"According to my boss" opens with its preposition (views.py); others put the holder
inside or before it: "In my mom's opinion I work too much", "Nach Meinung meiner Mutter
bin ich zu dünn", "À l'avis de mon chef, je suis lent", "Anneme göre çok zayıfım",
"上司によると私は怠け者です", "Menurut ibuku aku terlalu kurus". "In my opinion", "Meiner
Meinung nach" and "Bana göre" are the user's own.
"""

from __future__ import annotations

from collections.abc import Sequence

from streams.domain.wording import folded_words, is_unspaced, word_set

_IN = "in"
_OPINIONS = word_set("opinion view eyes")  # "in my mom's eyes"
_OWN = word_set("my our")
_MY_OPINION = _OPINIONS | word_set("humble honest personal")
_OPINION_REACH = 5  # words from "in" to "opinion": "in my mom's humble opinion"
# Prepositions before the holder: German "nach Meinung", French "à l'avis de".
_BEFORE_HOLDER = frozenset(
    tuple(w)
    for w in (
        ("nach", "meinung"),
        ("nach", "ansicht"),
        ("a", "l", "avis", "de"),
        ("a", "juicio", "de"),
        ("a", "en", "croire"),
    )
)
_GORE = "gore"  # Turkish "göre", folded
_FIRSTS = frozenset(["in", "nach", "a"])
_TR_SELF = word_set("bana bize bence")
_JA_ACCORDING = tuple("".join(w) for w in folded_words("によると によれば"))
_JA_SELF = frozenset("".join(w) for w in folded_words("私 僕 俺 自分"))
_JA_REACH = 6  # characters of who holds the view
# Indonesian possessive suffixes: "ibuku" (my mother), "bosmu", "suaminya".
_ID_SUFFIXES = ("ku", "mu", "nya")


def holder_of_opinion(words: Sequence[str], first: int) -> int | None:
    """Where the holder of a view opening the sentence from ``first`` begins ("my mom's"
    in "In my mom's opinion"), or None if the sentence opens with no such view."""
    word = words[first]
    if word not in _FIRSTS and _GORE not in words[first + 1 : first + 3]:
        return None if not is_unspaced(word) else _japanese(words, first)
    if word == _IN:
        own = words[first + 1 : first + 2] and words[first + 1] in _OWN
        if own and not _MY_OPINION.isdisjoint(words[first + 2 : first + 3]):
            return None  # "in my opinion", "in my humble opinion": the user's
        reach = words[first + 1 : first + 1 + _OPINION_REACH]
        return first + 1 if not _OPINIONS.isdisjoint(reach) else None
    for opening in _BEFORE_HOLDER:
        if tuple(words[first : first + len(opening)]) == opening:
            return first + len(opening)
    if _GORE in words[first + 1 : first + 3] and word not in _TR_SELF:
        return first  # "Anneme göre", "Benim doktoruma göre"
    return None


def _japanese(words: Sequence[str], first: int) -> int | None:
    """ "上司によると": who holds the view, then によると, opening the sentence."""
    joined = "".join(words[first : first + _JA_REACH + len(_JA_ACCORDING[0])])
    for mark in _JA_ACCORDING:
        at = joined.find(mark)
        if at > 0 and joined[:at] not in _JA_SELF:
            return first
    return None


def a_person_with_suffix(word: str, people: frozenset[str]) -> bool:
    """Whether ``word`` is a noun of a person with an Indonesian possessive ("ibuku")."""
    return any(word.endswith(s) and word[: -len(s)] in people for s in _ID_SUFFIXES)
