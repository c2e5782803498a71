"""What each character of a text becomes before it is cut into words.

Compatibility-decomposed, case folded (or not, to tell names), accents and other combining
marks dropped but for those that make another word, invisible format characters removed,
letters written without their stroke alike, digit groups joined, punctuation turned into
marks where clauses, sentences and questions end; streams/domain/wording.py cuts the
result into words. Tables are filled on first sight of each character, bounded, so a
hostile text of every code point costs no more memory than an honest one.
"""

from __future__ import annotations

import re
import unicodedata

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
BREAK = "\x1f"  # where punctuation parted a clause, for the words around a quote
STOP = "\x1e"  # where a sentence ended
ASK = "\x1d"  # where a question ended
MARKS = BREAK + STOP + ASK
TOKEN = re.compile(f"[{_SINGLE}]|[{MARKS}]|[^{_SINGLE}{MARKS}\\s]+")
_LINE_ENDS = frozenset("\n\r\u2028\u2029")
_SENTENCE_ENDS = frozenset(".!;\u3002\uff01\u0964")
_QUESTION_MARKS = frozenset("?\uff1f\u061f\u2e2e\u2047\u2048\u2049")
UNSPACED = re.compile(f"[{_UNSPACED_RANGES}]")
EMOJI = re.compile(f"[{_EMOJI_RANGES}]")
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
        elif EMOJI.match(char):  # a word, and the end of a clause ("I'll call 😊 I'm a")
            folded = f" {char} {BREAK} "
        elif char in _LINE_ENDS:  # a line is a clause of its own
            folded = f" {BREAK} "
        elif char in _SENTENCE_ENDS:
            folded = f" {STOP} "
        elif char in _QUESTION_MARKS:
            folded = f" {ASK} "
        elif category[0] == "P" and char not in _WITHIN_WORDS:
            folded = f" {BREAK} "
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
            and not EMOJI.match(char)
        )
        folded = " " if apart else char
        if len(self) < _MAX_FOLDS:
            self[code] = folded
        return folded


_SYMBOLS = _Symbols()


def fold(text: str) -> str:
    """``text`` with each of its characters folded (see the module doc), case too."""
    return fold_keeping_case(text).casefold()


def fold_keeping_case(text: str) -> str:
    """``text`` folded as :func:`fold` folds it but for case, which tells a name."""
    if " -" in text:  # a hyphen between spaces is a dash: "I'll write back - I'm a mom"
        text = _SPACED_HYPHEN.sub("\u2013", text)
    grouped = _DIGIT_GROUP.sub("", text).translate(_SYMBOLS)
    return unicodedata.normalize("NFKD", grouped).translate(_FOLDS)


_SPACED_HYPHEN = re.compile(r"(?<=\s)-+(?=\s|$)")
