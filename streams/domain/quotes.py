"""The quote check: is a claim's sourceQuote in the user's own words of the window?

Run in code after the guards, whatever the model said. Both sides are normalised the
same way (NFKC, case folded, punctuation, symbols and combining marks dropped, whitespace
collapsed, in any script), then the quote is looked for as a whole; failing that, as a
close match: at least ``CLOSE_MATCH`` of its words (characters, in scripts written
without spaces) found in order in the stretch of one user message it overlaps best, so
a word left out or added still passes and a different claim does not. A quote with an
ellipsis ("sold my civic ... bought a tesla") is checked part by part. A claim whose
quote fails (or that has none) is still stored, marked untrusted with the reason: it
never ends another fact. Assistant, system and
tool messages do not count: a fact only the assistant asserted is not the user's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher

from streams.domain.guards import Claim
from streams.events import Message, Role

CLOSE_MATCH = 0.85
_ELLIPSIS = re.compile(r"\.{3,}|…")
_MIN_PART_CHARS = 3  # ellipsis parts shorter than this ("a") say nothing on their own


def normalise(text: str) -> str:
    """Case, width, punctuation, marks and spacing folded away; letters and digits kept."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_FOLDS)
    return " ".join(folded.split())


class _Folds(dict[int, str | None]):
    """What each code point becomes (str.translate's table), decided on first sight."""

    def __missing__(self, code: int) -> str | None:
        category = unicodedata.category(chr(code))
        # Vowel signs and diacritics are written or left out alike; punctuation, symbols,
        # separators and controls part words.
        folded = None if category == "Mn" else " " if category[0] in "PSZC" else chr(code)
        if len(self) < _MAX_FOLDS:  # a hostile text of every code point stays bounded
            self[code] = folded
        return folded


_MAX_FOLDS = 20_000
_FOLDS = _Folds()

# Scripts written without spaces between words: each of their characters is a token.
_UNSPACED = re.compile(
    "[\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003ffff]"  # CJK extensions B on
)


def tokens(normalised: str) -> list[str]:
    out: list[str] = []
    for word in normalised.split():
        if _UNSPACED.search(word):
            out.extend(word)
        else:
            out.append(word)
    return out


def _close_enough(part: list[str], text: list[str]) -> bool:
    """At least CLOSE_MATCH of ``part``'s tokens match, in order, within the stretch of
    ``text`` around their longest shared run."""
    slack = len(part) // 4 + 2
    if len(text) > len(part) + 2 * slack:
        anchor = SequenceMatcher(None, text, part, autojunk=False).find_longest_match()
        if anchor.size == 0:
            return False
        start = max(0, anchor.a - anchor.b - slack)
        text = text[start : start + len(part) + 2 * slack]
    blocks = SequenceMatcher(None, part, text, autojunk=False).get_matching_blocks()
    return sum(b.size for b in blocks) >= CLOSE_MATCH * len(part)


def quote_found(quote: str, user_texts: Sequence[str]) -> bool:
    """Whether every part of ``quote`` is (nearly) in one of ``user_texts`` (normalised)."""
    parts = [normalise(p) for p in _ELLIPSIS.split(quote)]
    parts = [p for p in parts if len(p) >= _MIN_PART_CHARS] or [p for p in parts if p]
    if not parts:
        return False
    words: list[list[str]] | None = None  # the texts' tokens, made only when needed
    for part in parts:
        if any(part in text for text in user_texts):
            continue
        if words is None:
            words = [tokens(text) for text in user_texts]
        part_words = tokens(part)
        if not any(_close_enough(part_words, text_words) for text_words in words):
            return False
    return True


def user_texts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages of the window, normalised for :func:`quote_found`."""
    return [normalise(m.content) for m in messages if m.role is Role.USER]


def check_quotes(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Claim]:
    """Each claim, marked untrusted when its quote is not in the user's messages."""
    texts = user_texts(messages)
    out = []
    for claim in claims:
        reason = _quote_problem(claim.quote, texts)
        if reason is not None:
            why = reason if claim.untrusted is None else f"{claim.untrusted}; {reason}"
            claim = replace(claim, untrusted=why[:300])
        out.append(claim)
    return out


def _quote_problem(quote: str, texts: Sequence[str]) -> str | None:
    if not quote.strip():
        return "no source quote given"
    if quote_found(quote, texts):
        return None
    shown = quote if len(quote) <= 120 else quote[:119] + "…"
    return f"quote {shown!r} is not in the user's messages"
