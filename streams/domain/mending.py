"""What a close quote may change of the user's words and still be theirs.

A model that quotes the user mends a typo, drops a filler or adds a little word; it must
not swap a word for another (Bern for Berlin, brother for mother, Juli for Juni, billion
for million, employed for unemployed), add a content word ("two kids", "in May", "ex
wife"), or leave out a word that changes what was said ("used to", "almost", "would",
"ex-"). A typo is told from another word by its shape: one letter inserted, dropped,
changed for a key next to it, or two swapped, in a word of at
least six letters, the first letter kept, and not the other word with letters added at
its start or end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from streams.domain.negation import any_negator
from streams.domain.wording import is_unspaced, word_set

_MIN_TYPO_LETTERS = 6


# Words a quote may add: articles, fillers, the commonest function words (English).
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_MAY_ADD = _words(
    "a an the and i to of in on at is am are so that it uh um er like just really actually"
    " also very then now well oh yeah ok okay have has"
) | word_set("ich yo je io eu я 我 私 は 저는 나는")  # a subject pronoun languages leave out
# Sounds the user may have typed that a quote leaves out without counting them.
FILLERS = _words("uh um umm er erm ehm hmm ah eh ahm euh mm")
# Words a quote may not leave out: they make a statement past, unsure, wished or almost.
_CHANGES_MEANING = _words(
    "used ex former formerly late retired aspiring wannabe deceased future"
    " almost nearly would could might may maybe perhaps probably"
    " possibly if wish wished want wanted hope hoping plan planning thinking considering"
    " going soon barely hardly rarely seldom once until ehemalige ehemaliger fast beinahe"
    " würde wurde vielleicht wollte wollen früher presque peut etre voudrais voulais"
    " ancien ancienne casi quizas quizás tal vez quería quase talvez queria antigo quasi"
    " forse vorrei ne почти бы может хотел хотела раньше бывший бывшая 几乎 可能 也许"
    " 想 要 会 曾 经 以 前 差 点"
)


def mended(added: Sequence[str], theirs: Sequence[str], *, replacing: bool) -> bool:
    """Whether the quote's ``added`` words, where the user wrote ``theirs`` (the words
    they replace, or next to them), keep the user's meaning: a typo mended, or little
    words added where the user wrote nothing (``replacing`` False)."""
    if not added:
        return True
    if any_negator(added) and not any_negator(theirs):
        return False
    if typos(added, theirs):
        return True
    return not replacing and little(added)


def little(words: Sequence[str]) -> bool:
    """Whether ``words`` are all little words a quote may add."""
    return all(w in _MAY_ADD for w in words)


def may_leave_out(words: Sequence[str]) -> bool:
    """Whether a quote may skip these words of the user's: no negation, no number, none
    that makes the statement past, unsure, wished or almost."""
    return not (
        any_negator(words)
        or any(_DIGITS.search(w) for w in words)
        or _CHANGES_MEANING.intersection(words)
    )


def may_elide(words: Sequence[str]) -> bool:
    """Whether an ellipsis may stand for these words of the user's: no negation, none that
    makes the statement past, unsure or almost (numbers may go)."""
    return not (any_negator(words) or _CHANGES_MEANING.intersection(words))


_DIGITS = re.compile(r"\d")
# A contraction's ending spelled out another way than the folding's: "she's" for "she
# is" or "she has", "I'd" ("I would") for "I had".
_CONTRACTED = frozenset({("is", "s"), ("has", "s"), ("had", "would")})
# Keyboard rows of QWERTY, QWERTZ, AZERTY and ЙЦУКЕН, each row set off by half a key.
_KEYBOARDS = (
    ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    ("qwertzuiop", "asdfghjkl", "yxcvbnm"),
    ("azertyuiop", "qsdfghjklm", "wxcvbn"),
    ("йцукенгшщзхъ", "фывапролджэ", "ячсмитьбю"),
)
_KEYED = frozenset("".join(row for rows in _KEYBOARDS for row in rows))


# One letter that negates a verb: Turkish "sevmiyorum" is "seviyorum" ("I love") negated.
_NEGATING_INFIXES = ("miyor", "muyor")


def _neighbours() -> frozenset[frozenset[str]]:
    pairs: set[frozenset[str]] = set()
    for rows in _KEYBOARDS:
        for r, row in enumerate(rows):
            below = rows[r + 1] if r + 1 < len(rows) else ""
            for c, key in enumerate(row):
                near = row[c + 1 : c + 2] + below[max(c - 1, 0) : c + 1]
                pairs.update(frozenset((key, other)) for other in near)
    return frozenset(pairs)


_NEIGHBOURS = _neighbours()


def _next_key(ours: str, theirs: str) -> bool:
    """Whether one letter written for another is a typo: a key next to it. Another letter,
    even a vowel for a vowel, makes another word (Iceland and Ireland, Antonio and
    Antonia, estudio and estudié); in scripts without a keyboard here, any letter counts."""
    if ours not in _KEYED or theirs not in _KEYED:
        return True
    return frozenset((ours, theirs)) in _NEIGHBOURS


def typos(ours: Sequence[str], theirs: Sequence[str]) -> bool:
    """Whether ``ours`` are ``theirs`` word for word, each the same or with one typo."""
    return bool(ours) and len(ours) == len(theirs) and all(map(is_typo_of, ours, theirs))


def is_typo_of(ours: str, theirs: str) -> bool:
    """``ours`` is ``theirs`` with one typo (see the module doc)."""
    if ours == theirs or (ours, theirs) in _CONTRACTED:
        return True
    short = min(len(ours), len(theirs))
    if short < _MIN_TYPO_LETTERS or ours[0] != theirs[0] or abs(len(ours) - len(theirs)) > 1:
        return False
    if is_unspaced(ours) or _DIGITS.search(ours) or _DIGITS.search(theirs):
        return False
    longer, shorter = (ours, theirs) if len(ours) > len(theirs) else (theirs, ours)
    if longer.startswith(shorter) or longer.endswith(shorter):
        return False  # Daniel and Daniela, happy and unhappy
    return _one_edit(ours, theirs)


def _one_edit(a: str, b: str) -> bool:
    """One letter inserted, dropped or changed, or two neighbours swapped."""
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return _next_key(a[diff[0]], b[diff[0]])
        i = diff[0] if len(diff) == 2 else -1
        return i >= 0 and diff[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    i = next(
        (k for k, (x, y) in enumerate(zip(shorter, longer, strict=False)) if x != y), len(shorter)
    )
    return longer[i + 1 :] == shorter[i:] and not longer.startswith(_NEGATING_INFIXES, i)
