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
_EMOJI_RANGES = "\u2600-\u27bf\U0001f000-\U0001f3fa\U0001f400-\U0001faff"
_SKIN_TONES = range(0x1F3FB, 0x1F400)  # modifiers of the emoji before them: dropped
_SINGLE = _UNSPACED_RANGES + _EMOJI_RANGES
_BREAK = "\x1f"  # where punctuation parted a clause, for the words around a quote
_TOKEN = re.compile(f"[{_SINGLE}]|{_BREAK}|[^{_SINGLE}{_BREAK}\\s]+")
_UNSPACED = re.compile(f"[{_UNSPACED_RANGES}]")
_EMOJI = re.compile(f"[{_EMOJI_RANGES}]")
# A separator inside a number written in groups of three: 80,000 · 80.000 · 80 000.
_DIGIT_GROUP = re.compile(r"(?<=\d)[,.'\u2019\u00a0\u2009\u202f](?=\d{3}(?!\d))")


class _Folds(dict[int, str | None]):
    """What each code point becomes (str.translate's table), decided on first sight."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        category = unicodedata.category(char)
        # Vowel signs and diacritics are written or left out alike, and so are invisible
        # format characters (zero-width space, direction marks); punctuation, symbols,
        # separators and controls part words, except emoji, which are words.
        folded: str | None
        if category in ("Mn", "Cf") or code in _SKIN_TONES:
            folded = None
        elif _EMOJI.match(char):
            folded = char
        elif category[0] == "P" and char not in _WITHIN_WORDS:
            folded = f" {_BREAK} "
        else:
            folded = " " if category[0] in "PSZC" else char
        if len(self) < _MAX_FOLDS:  # a hostile text of every code point stays bounded
            self[code] = folded
        return folded


_MAX_FOLDS = 20_000
_FOLDS = _Folds()
# Part words but not clauses: apostrophes (the "t" of "don't" stays by its "don") and
# hyphens.
_WITHIN_WORDS = frozenset("'\u2019\u2018\u02bc`\u00b4-\u2010\u2011")


def _fold(text: str) -> str:
    grouped = _DIGIT_GROUP.sub("", text)
    return unicodedata.normalize("NFKD", grouped).casefold().translate(_FOLDS)


def normalise(text: str) -> str:
    """Case, width, accents, punctuation and spacing folded away; letters and digits kept."""
    return " ".join(_fold(text).replace(_BREAK, " ").split())


def tokens(normalised: str) -> list[str]:
    """Words, and each character of scripts written without spaces, and each emoji."""
    return [t for t in _TOKEN.findall(normalised) if t != _BREAK]


def words_and_breaks(text: str) -> tuple[list[str], frozenset[int]]:
    """The tokens of ``text`` and the indexes of those that follow punctuation ("No, I
    like it": a break before "i"), so a negation is not read across a clause."""
    words: list[str] = []
    breaks: set[int] = set()
    for token in _TOKEN.findall(_fold(text)):
        if token == _BREAK:
            breaks.add(len(words))
        else:
            words.append(token)
    return words, frozenset(breaks)


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
