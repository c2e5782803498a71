"""The quote check: is a claim's sourceQuote in the user's own words of the window?

Run in code after the guards, whatever the model said. Both sides are normalised the
same way (compatibility-decomposed, case folded, accents and other combining marks
dropped, punctuation and symbols parting words, invisible format characters removed,
whitespace collapsed, in any script), then the quote is looked for as whole words ("car"
is not in "carpet"); failing that, as a close match: at least ``CLOSE_MATCH`` of the
words of the stretch it spans, on both sides, shared in order with one user message (a
character is a word in scripts written without spaces). A word left out or added in a
long quote still passes; a quote that drops a word the user said in the middle of it
("I like coffee" from "I don't like coffee") does not, and neither does one the user
negated just before it ("I do not like coffee" for "like coffee"). A quote with an
ellipsis ("sold my civic ... bought a tesla") is checked part by part. A quote too short
to say anything (one letter) supports nothing. A claim whose quote fails (or that has
none) is still stored, marked untrusted with the reason: it never ends another fact.
Assistant, system and tool messages do not count: a fact only the assistant asserted is
not the user's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from typing import NamedTuple

from streams.domain.guards import Claim
from streams.events import Message, Role

CLOSE_MATCH = 0.85
_ELLIPSIS = re.compile(r"\.{3,}|…")
_MIN_PART_CHARS = 3  # ellipsis parts shorter than this ("a") say nothing on their own


def normalise(text: str) -> str:
    """Case, width, accents, punctuation and spacing folded away; letters and digits kept."""
    folded = unicodedata.normalize("NFKD", text).casefold().translate(_FOLDS)
    return " ".join(folded.split())


class _Folds(dict[int, str | None]):
    """What each code point becomes (str.translate's table), decided on first sight."""

    def __missing__(self, code: int) -> str | None:
        category = unicodedata.category(chr(code))
        # Vowel signs and diacritics are written or left out alike, and so are invisible
        # format characters (zero-width space, direction marks); punctuation, symbols,
        # separators and controls part words.
        dropped = category in ("Mn", "Cf")
        folded = None if dropped else " " if category[0] in "PSZC" else chr(code)
        if len(self) < _MAX_FOLDS:  # a hostile text of every code point stays bounded
            self[code] = folded
        return folded


_MAX_FOLDS = 20_000
_FOLDS = _Folds()

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
_TOKEN = re.compile(f"[{_UNSPACED_RANGES}]|[^{_UNSPACED_RANGES}\\s]+")
_UNSPACED = re.compile(f"[{_UNSPACED_RANGES}]")

# Words that negate what follows them; a quote the user negated just before is not theirs.
_NEGATING = frozenset(
    {"not", "never", "nicht", "nie", "kein", "keine", "ne", "n", "jamais", "non", "nunca"}
    | {"nao", "не", "ни", "никогда", "нет", "不", "没", "沒", "别", "別", "未", "无", "無"}
)
# Inside a quote's stretch, a left-out "no" (or the "t" of "don't") negates it as well.
_NEGATING_INSIDE = _NEGATING | {"no", "t"}
_MIN_QUOTE_CHARS = 3  # letters and digits; in scripts without spaces, two
_MIN_UNSPACED_QUOTE_CHARS = 2


def tokens(normalised: str) -> list[str]:
    """Words, and each character of scripts written without spaces."""
    return _TOKEN.findall(normalised)


def _negated_before(text: list[str], start: int) -> bool:
    """Whether the word before ``text[start]`` negates it ("not", the "t" of "don't")."""
    before = text[start - 1] if start > 0 else ""
    if before == "t":
        return start > 1 and text[start - 2].endswith("n")
    return before in _NEGATING


class _Said(NamedTuple):
    """One user message, as tokens and as the padded string of them searched first."""

    words: list[str]
    padded: str

    @classmethod
    def of(cls, normalised: str) -> _Said:
        words = tokens(normalised)
        return cls(words, f" {' '.join(words)} ")


def _whole_words_in(part: list[str], said: _Said) -> bool:
    """``part`` as consecutive whole words of the message, not negated just before."""
    needle = f" {' '.join(part)} "
    at = said.padded.find(needle)
    while at >= 0:
        if not _negated_before(said.words, said.padded.count(" ", 0, at)):
            return True
        at = said.padded.find(needle, at + 1)
    return False


def _close_enough(part: list[str], text: list[str]) -> bool:
    """At least CLOSE_MATCH of ``part``'s tokens match, in order, within the stretch of
    ``text`` around their longest shared run; the words of ``text`` inside the stretch
    that ``part`` left out are few (at most one in four) and none negates it."""
    slack = len(part) // 4 + 2
    offset = 0
    if len(text) > len(part) + 2 * slack:
        anchor = SequenceMatcher(None, text, part, autojunk=False).find_longest_match()
        if anchor.size == 0:
            return False
        offset = max(0, anchor.a - anchor.b - slack)
    window = text[offset : offset + len(part) + 2 * slack]
    blocks = [
        b
        for b in SequenceMatcher(None, part, window, autojunk=False).get_matching_blocks()
        if b.size
    ]
    matched = sum(b.size for b in blocks)
    if not blocks or matched < CLOSE_MATCH * len(part):
        return False
    first, last = blocks[0].b, blocks[-1].b + blocks[-1].size
    inside = {i for b in blocks for i in range(b.b, b.b + b.size)}
    left_out = [window[i] for i in range(first, last) if i not in inside]
    if len(left_out) > max(1, len(part) // 4) or _NEGATING_INSIDE.intersection(left_out):
        return False
    return not _negated_before(text, offset + first)


def _too_short(parts: Sequence[list[str]]) -> bool:
    letters = sum(len(word) for part in parts for word in part)
    unspaced = any(_UNSPACED.match(word) for part in parts for word in part)
    return letters < (_MIN_UNSPACED_QUOTE_CHARS if unspaced else _MIN_QUOTE_CHARS)


def _quote_parts(quote: str) -> list[list[str]]:
    parts = [tokens(normalise(p)) for p in _ELLIPSIS.split(quote)]
    long_enough = [p for p in parts if sum(map(len, p)) >= _MIN_PART_CHARS]
    return long_enough or [p for p in parts if p]


def quote_found(quote: str, user_texts: Sequence[str]) -> bool:
    """Whether every part of ``quote`` is (nearly) in one of ``user_texts`` (normalised)."""
    return _found(_quote_parts(quote), [_Said.of(text) for text in user_texts])


def _found(parts: Sequence[list[str]], said: Sequence[_Said]) -> bool:
    if not parts or _too_short(parts):
        return False
    return all(
        any(_whole_words_in(part, s) or _close_enough(part, s.words) for s in said)
        for part in parts
    )


def user_texts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages of the window, normalised for :func:`quote_found`."""
    return [normalise(m.content) for m in messages if m.role is Role.USER]


def check_quotes(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Claim]:
    """Each claim, marked untrusted when its quote is not in the user's messages."""
    said = [_Said.of(text) for text in user_texts(messages)]
    out = []
    for claim in claims:
        reason = _quote_problem(claim.quote, said)
        if reason is not None:
            why = reason if claim.untrusted is None else f"{claim.untrusted}; {reason}"
            claim = replace(claim, untrusted=why[:300])
        out.append(claim)
    return out


def _quote_problem(quote: str, said: Sequence[_Said]) -> str | None:
    if not quote.strip():
        return "no source quote given"
    shown = quote if len(quote) <= 120 else quote[:119] + "…"
    parts = _quote_parts(quote)
    if not parts or _too_short(parts):
        return f"quote {shown!r} is too short to show the claim"
    if _found(parts, said):
        return None
    return f"quote {shown!r} is not in the user's messages"
