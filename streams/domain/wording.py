"""Text folded to words, the same way for what the user wrote and what a model quotes.

Compatibility-decomposed, case folded, accents and other combining marks dropped,
invisible format characters removed, punctuation and symbols parting words, whitespace
collapsed, in any script; digit groups joined ("80,000" and "80000" are one number).
A character is a word of its own in scripts written without spaces, and so is an emoji
(a heart is not a broken heart).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import NamedTuple

# Scripts written without spaces between words: each of their characters is a token.
_UNSPACED_RANGES = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003ffff"  # CJK extensions B on
)
_EMOJI_RANGES = "\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001f3fa\U0001f400-\U0001faff"
_SKIN_TONES = range(0x1F3FB, 0x1F400)  # modifiers of the emoji before them: dropped
_SINGLE = _UNSPACED_RANGES + _EMOJI_RANGES
_BREAK = "\x1f"  # where punctuation parted a clause, for the words around a quote
_STOP = "\x1e"  # where a sentence ended
_ASK = "\x1d"  # where a question ended
_MARKS = _BREAK + _STOP + _ASK
_TOKEN = re.compile(f"[{_SINGLE}]|[{_MARKS}]|[^{_SINGLE}{_MARKS}\\s]+")
_LINE_ENDS = frozenset("\n\r\u2028\u2029")
_SENTENCE_ENDS = frozenset(".!;\u3002\uff01\u0964")
_QUESTION_MARKS = frozenset("?\uff1f\u061f\u2e2e\u2047\u2048\u2049")
_UNSPACED = re.compile(f"[{_UNSPACED_RANGES}]")
_EMOJI = re.compile(f"[{_EMOJI_RANGES}]")
# A separator inside a number written in groups of three (80,000 · 80.000 · 80 000), or
# in the Indian way, in twos before the last three (1,00,000).
_DIGIT_GROUP = re.compile(
    r"(?<=\d)[,.' \u2019\u00a0\u2009\u202f](?=\d{3}(?!\w))|(?<=\d),(?=\d\d,\d)"
)
# Letters that do not decompose but are written without their stroke alike.
_LETTERS = {"ı": "i", "ł": "l", "đ": "d", "ø": "o", "ħ": "h", "ŧ": "t",
            # Arabic letters written alike in much of the Arab world and in Persian:
            # dotless ى (and Persian ی) for ي, ة for ه at a word's end, Persian ک for ك.
            "ى": "ي", "ی": "ي", "ة": "ه", "ک": "ك"}  # fmt: skip


class _Folds(dict[int, str | None]):
    """What each code point becomes (str.translate's table), decided on first sight."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        category = unicodedata.category(char)
        # Vowel signs and diacritics are written or left out alike, and so are invisible
        # format characters (zero-width space, direction marks); punctuation, symbols,
        # separators and controls part words, except emoji, which are words.
        folded: str | None
        if category == "Nd":
            folded = str(unicodedata.digit(char))  # ٣ and ३ are 3
        elif char.lower() in _LETTERS:
            folded = _LETTERS[char.lower()]
        elif category == "Mn" and _keeps_mark(code):
            folded = char
        elif category in ("Mn", "Cf") or code in _SKIN_TONES:
            folded = None
        elif _EMOJI.match(char):  # a word, and the end of a clause ("I'll call 😊 I'm a")
            folded = f" {char} {_BREAK} "
        elif char in _LINE_ENDS:  # a line is a clause of its own
            folded = f" {_BREAK} "
        elif char in _SENTENCE_ENDS:
            folded = f" {_STOP} "
        elif char in _QUESTION_MARKS:
            folded = f" {_ASK} "
        elif category[0] == "P" and char not in _WITHIN_WORDS:
            folded = f" {_BREAK} "
        else:
            folded = " " if category[0] in "PSZC" else char
        if len(self) < _MAX_FOLDS:  # a hostile text of every code point stays bounded
            self[code] = folded
        return folded


def _keeps_mark(code: int) -> bool:
    """Marks that make another word, not another spelling: Thai and Lao tone and vowel
    marks (ไม้ "wood" is not ไม่ "not"), and the vowel signs of Indic scripts (ने is not
    न); their nasal marks and nukta are written or left out alike."""
    if 0x0E00 <= code <= 0x0EFF:
        return True
    return 0x0900 <= code <= 0x0DFF and (code & 0x7F) not in _INDIC_OPTIONAL


_INDIC_OPTIONAL = frozenset({0x00, 0x01, 0x02, 0x03, 0x3C})  # candrabindu, anusvara, nukta
_MAX_FOLDS = 20_000
_FOLDS = _Folds()
# Part words but not clauses: apostrophes (the "t" of "don't" stays by its "don") and
# hyphens.
_WITHIN_WORDS = frozenset("'\u2019\u2018\u02bc`\u00b4-\u2010\u2011")


class _Symbols(dict[int, str | None]):
    """Symbols and number forms whose compatibility decomposition would glue letters or
    digits to a word ("Acme™" is not "acmetm", "1½" is not "112"): a space instead."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        apart = (
            unicodedata.category(char) in ("So", "No", "Sm", "Sc", "Sk")
            and unicodedata.decomposition(char).startswith("<")
            and not _EMOJI.match(char)
        )
        folded = " " if apart else char
        if len(self) < _MAX_FOLDS:
            self[code] = folded
        return folded


_SYMBOLS = _Symbols()


def _fold(text: str) -> str:
    return _fold_keeping_case(text).casefold()


def _fold_keeping_case(text: str) -> str:
    if " -" in text:  # a hyphen between spaces is a dash: "I'll write back - I'm a mom"
        text = _SPACED_HYPHEN.sub("\u2013", text)
    grouped = _DIGIT_GROUP.sub("", text).translate(_SYMBOLS)
    return unicodedata.normalize("NFKD", grouped).translate(_FOLDS)


_SPACED_HYPHEN = re.compile(r"(?<=\s)-+(?=\s|$)")
_UNMARKED = str.maketrans(dict.fromkeys(_MARKS, " "))


def normalise(text: str) -> str:
    """Case, width, accents, punctuation and spacing folded away; letters and digits kept."""
    return " ".join(_fold(text).translate(_UNMARKED).split())


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
        if token in (_BREAK, _STOP, _ASK):
            breaks.add(len(words))
            if token != _BREAK and words and (not sentences or sentences[-1] != len(words)):
                if token == _ASK:
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
    kept = _fold_keeping_case(text)
    written, folded = _TOKEN.findall(kept), _TOKEN.findall(kept.casefold())
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
    return bool(_UNSPACED.match(word) or _EMOJI.match(word))


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
