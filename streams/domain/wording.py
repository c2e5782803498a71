"""Text folded to words, the same way for what the user wrote and what a model quotes.

Compatibility-decomposed, case folded, accents and other combining marks dropped,
invisible format characters removed, punctuation and symbols parting words, whitespace
collapsed, in any script; digit groups joined ("80,000" and "80000" are one number).
A character is a word of its own in scripts written without spaces, and so is an emoji
(a heart is not a broken heart). The characters are folded in streams/domain/folding.py;
here they become words, clauses and sentences.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from streams.domain.folding import (
    ASK,
    BREAK,
    EMOJI,
    MARKS,
    STOP,
    TOKEN,
    UNSPACED,
    fold,
    fold_keeping_case,
)

_UNMARKED = str.maketrans(dict.fromkeys(MARKS, " "))


def normalise(text: str) -> str:
    """Case, width, accents, punctuation and spacing folded away; letters and digits kept."""
    return " ".join(fold(text).translate(_UNMARKED).split())


def tokens(text: str) -> list[str]:
    """The words of ``text`` folded as :func:`normalise` folds it: words, each character
    of scripts written without spaces, each emoji; English contractions spelled out."""
    return wording(text).words


class Wording(NamedTuple):
    """A text as tokens (see :func:`tokens`) and where its clauses and sentences part."""

    words: list[str]
    breaks: frozenset[int]  # indexes of the words that follow punctuation
    sentences: list[int]  # indexes of the words that begin a sentence after the first
    asked: frozenset[int]  # which sentences (0 the first) end with a question mark
    names: frozenset[int]  # words capitalised inside a sentence ("my wife Nada")

    def sentence_of(self, word: int) -> int:
        """Which sentence (0 the first) the word at ``word`` is in."""
        return bisect_right(self.sentences, word)

    def sentence_span(self, sentence: int) -> tuple[int, int]:
        """The indexes of the first word of ``sentence`` and of the word after its last."""
        first = self.sentences[sentence - 1] if sentence > 0 else 0
        last = self.sentences[sentence] if sentence < len(self.sentences) else len(self.words)
        return first, last


def wording(text: str) -> Wording:
    """The tokens of ``text``, where punctuation parts them ("No, I like it": a break
    before "i", so a negation is not read across a clause), where sentences begin (after
    . ! ? ; and their CJK, Arabic and Devanagari forms) and which of them are questions."""
    words: list[str] = []
    breaks: set[int] = set()
    sentences: list[int] = []
    asked: set[int] = set()
    names: set[int] = set()
    for written, token in _written_and_folded(text):
        if written != token and written[1:] == token[1:] and words:
            names.add(len(words))  # capitalised; at a sentence's start: dropped below
        if token in (BREAK, STOP, ASK):
            breaks.add(len(words))
            if token != BREAK and words and (not sentences or sentences[-1] != len(words)):
                if token == ASK:
                    asked.add(len(sentences))
                sentences.append(len(words))
        elif token == "t" and words and words[-1] in _NOT_BASES:
            words[-1:] = [_NOT_BASES[words[-1]], "not"]  # don't, can't, won't
        elif token in _SPELLED_OUT and words and (token != "ve" or words[-1] in _HAVING):
            words.append(_SPELLED_OUT[token])  # I'm, we're, I've, I'll, I'd (not Turkish "ve")
        elif token in _NOT_JOINED:
            words += [_NOT_JOINED[token], "not"]  # dont, cannot
        elif token in _RUN_TOGETHER:
            words += _RUN_TOGETHER[token]  # gonna, im, ive
        elif token[:1] in _CONJUNCTIONS and (
            len(token) > _CLITIC_MIN or token[1:] in _JOINED_NEGATORS
        ):
            words += [token[0], token[1:]]  # وأعمل: "and" + "I work"; ولا: "and" + "not"
        else:
            words.append(token)
    names.difference_update(sentences)
    return Wording(words, frozenset(breaks), sentences, frozenset(asked), frozenset(names))


def _written_and_folded(text: str) -> Iterable[tuple[str, str]]:
    """Each token of ``text`` as written (case kept) and case folded."""
    kept = fold_keeping_case(text)
    written, folded = TOKEN.findall(kept), TOKEN.findall(kept.casefold())
    if len(written) == len(folded):
        return zip(written, folded, strict=True)
    return ((token, token.casefold()) for token in written)


# "And" written onto the next word in Arabic (و, ف) and Hebrew (ו): a word of its own, so
# a quote may start after it and a negator after it is seen ("ولا"). Words of three letters
# or fewer are left whole: there the letter is likelier the word's own.
_CONJUNCTIONS = frozenset("\u0648\u0641\u05d5")
_CLITIC_MIN = 3
_JOINED_NEGATORS = frozenset(["لا", "لم", "لن", "לא"])

# The English contractions, so "I'm" and "I am", "don't", "dont" and "do not" are one.
_NOT_BASES = {
    base + "n": base
    for base in (
        "do",
        "does",
        "did",
        "is",
        "are",
        "was",
        "were",
        "have",
        "has",
        "had",
        "could",
        "should",
        "would",
        "must",
        "need",
        "might",
        "ai",
        "sha",
    )
} | {"can": "can", "won": "will", "shan": "shall"}
_NOT_JOINED = {base + "t": verb for base, verb in _NOT_BASES.items()} | {"cannot": "can"}
_SPELLED_OUT = {"m": "am", "re": "are", "ve": "have", "ll": "will", "d": "would"}
_HAVING = frozenset(["i", "we", "you", "they", "could", "would", "should", "might", "must", "who"])
_RUN_TOGETHER = {
    "gonna": ["going", "to"],
    "wanna": ["want", "to"],
    "gotta": ["got", "to"],
    "im": ["i", "am"],
    "ive": ["i", "have"],
    "youre": ["you", "are"],
    "theyre": ["they", "are"],
    "weve": ["we", "have"],
    "theyve": ["they", "have"],
}


def folded_words(words: str) -> list[tuple[str, ...]]:
    """Each space-separated word of a word list, as its tokens."""
    return [tuple(tokens(word)) for word in words.split()]


def word_set(words: str) -> frozenset[str]:
    """The tokens of a word list, for lists of words of one token each."""
    return frozenset(t for phrase in folded_words(words) for t in phrase)


def phrase_index(words: str, *, phrases: Iterable[str] = ()) -> dict[str, list[tuple[str, ...]]]:
    """Each word of a word list, and each of ``phrases``, as its tokens (one word may fold
    to several: Thai ไม่, "dont", 如果), by the last of them, for :func:`ends_with_phrase`."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for phrase in [*folded_words(words), *(tuple(tokens(p)) for p in phrases)]:
        out.setdefault(phrase[-1], []).append(phrase)
    return out


def phrase_ending(
    words: Sequence[str], end: int, phrases: dict[str, list[tuple[str, ...]]]
) -> tuple[str, ...] | None:
    """The one of ``phrases`` that ends just before ``words[end]``, if any."""
    if end <= 0:
        return None
    return next(
        (
            p
            for p in phrases.get(words[end - 1], ())
            if len(p) <= end and tuple(words[end - len(p) : end]) == p
        ),
        None,
    )


def ends_with_phrase(
    words: Sequence[str], end: int, phrases: dict[str, list[tuple[str, ...]]]
) -> bool:
    """Whether one of ``phrases`` ends just before ``words[end]``."""
    return phrase_ending(words, end, phrases) is not None


def is_unspaced(word: str) -> bool:
    """A token of a script written without spaces (one character of it), or an emoji."""
    return bool(UNSPACED.match(word) or EMOJI.match(word))


def cut_at_word(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, not inside a word of a spaced script, so a
    long quote cut to its cap still ends in words the user wrote."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if cut[-1].isalnum() and text[limit].isalnum() and not is_unspaced(cut[-1]):
        head = cut.rsplit(None, 1)
        cut = head[0] if len(head) == 2 else cut
    return cut.rstrip()
