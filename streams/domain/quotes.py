"""The quote check: is a claim's sourceQuote in the user's own words of the window?

Run in code after the guards, whatever the model said. Both sides are folded to words the
same way (streams/domain/wording.py: case, accents, punctuation, invisible characters and
digit groups folded, in any script), then the quote is looked for as whole words ("car"
is not in "carpet"); failing that, as a close match: at least ``CLOSE_MATCH`` of its
words shared in order with one user message, where what differs is only a typo fixed, a
contraction spelled out ("I'm" / "I am") or a short word added, and the user's words the
quote leaves out are few. A different word (Munich for Berlin, 5 for 3, hate for love) is
not a close match, nor is a dropped or added negation (streams/domain/negation.py), nor a
quote the user negated just before or after ("I do not really like coffee" for "like
coffee"). A quote with an ellipsis ("sold my civic ... bought a tesla") is checked part by
part, the parts in the order the user wrote them. A quote too short to say anything (one
letter) supports nothing. A claim whose quote fails (or that has none) is still stored,
marked untrusted with the reason: it never ends another fact. Assistant, system and tool
messages do not count: a fact only the assistant asserted is not the user's.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher
from itertools import pairwise

from streams.domain.guards import Claim
from streams.domain.negation import any_negator, negated_after, negated_before
from streams.domain.wording import is_unspaced, normalise, tokens, words_and_breaks
from streams.events import Message, Role

__all__ = ["CLOSE_MATCH", "check_quotes", "normalise", "quote_found", "user_texts"]

CLOSE_MATCH = 0.85
_TYPO = 0.75  # a word this close in letters to the user's is the same word, mended
_SHORT_WORD = 3  # letters of a word a quote may add ("a", "the", "and")
_ELLIPSIS = re.compile(r"\.{3,}|…")
_MIN_PART_CHARS = 3  # ellipsis parts shorter than this ("a") say nothing on their own
_MIN_QUOTE_CHARS = 3  # letters and digits; in scripts without spaces, two
_MIN_UNSPACED_QUOTE_CHARS = 2
# A repetitive message stays cheap: occurrences of a quote examined, positions of one
# pair of words kept for anchoring a close match.
_MAX_HITS = 64
_MAX_SPOTS = 32
_SPELLED_OUT = {"m": "am", "s": "is", "re": "are", "ve": "have", "ll": "will", "d": "would"}


class _Said:
    """One user message as tokens, the words after punctuation, and lookups over them."""

    __slots__ = ("_spots", "breaks", "offsets", "padded", "words")

    def __init__(self, text: str) -> None:
        self.words, self.breaks = words_and_breaks(text)
        self.padded = f" {' '.join(self.words)} "
        self.offsets: list[int] = []  # where " word" of each token begins in padded
        at = 0
        for word in self.words:
            self.offsets.append(at)
            at += len(word) + 1
        self._spots: dict[tuple[str, str], list[int]] | None = None

    def negated(self, start: int, end: int) -> bool:
        return negated_before(self.words, start, self.breaks) or negated_after(
            self.words, end, self.breaks
        )

    def spots(self) -> dict[tuple[str, str], list[int]]:
        """Where each pair of consecutive words occurs (the first few times)."""
        if self._spots is None:
            self._spots = {}
            for i, pair in enumerate(pairwise(self.words)):
                seen = self._spots.setdefault(pair, [])
                if len(seen) < _MAX_SPOTS:
                    seen.append(i)
        return self._spots


def _whole_words_at(part: list[str], said: _Said, lo: int) -> int | None:
    """Where ``part`` ends as consecutive whole words of the message from word ``lo`` on,
    not negated around it; None if nowhere."""
    if lo >= len(said.words):
        return None
    needle = f" {' '.join(part)} "
    at = said.padded.find(needle, said.offsets[lo])
    for _ in range(_MAX_HITS):
        if at < 0:
            return None
        start = bisect_left(said.offsets, at)
        if not said.negated(start, start + len(part)):
            return start + len(part)
        at = said.padded.find(needle, at + 1)
    return None


def _anchor(part: list[str], said: _Said, lo: int) -> int | None:
    """The offset in the message at which most of ``part``'s word pairs line up."""
    votes: Counter[int] = Counter()
    spots = said.spots()
    for b, pair in enumerate(pairwise(part)):
        for a in spots.get(pair, ()):
            if a >= lo:
                votes[a - b] += 1
    return max(votes, key=lambda at: (votes[at], -at)) if votes else None


def _close_at(part: list[str], said: _Said, lo: int) -> int | None:
    """Where a close match of ``part`` ends in the message from word ``lo`` on (see the
    module doc); None if there is none."""
    if len(part) < 2:
        return None
    slack = len(part) // 4 + 2
    offset = lo
    if len(said.words) - lo > len(part) + 2 * slack:
        anchor = _anchor(part, said, lo)
        if anchor is None:
            return None
        offset = max(lo, anchor - slack)
    window = said.words[offset : offset + len(part) + 2 * slack]
    ops = SequenceMatcher(None, part, window, autojunk=False).get_opcodes()
    equal = [op for op in ops if op[0] == "equal"]
    if not equal or sum(i2 - i1 for _, i1, i2, _, _ in equal) < CLOSE_MATCH * len(part):
        return None
    first, last = equal[0][3], equal[-1][4]
    left_out: list[str] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        inside = first <= j1 and j2 <= last
        if inside:
            left_out += window[j1:j2]
        context = window[j1:j2] if inside else _nearest(window, j1, j2, i2 - i1, first)
        if not _mended(part[i1:i2], context):
            return None
    if len(left_out) > max(1, len(part) // 4) or not _may_leave_out(left_out):
        return None
    if said.negated(offset + first, offset + last):
        return None
    return offset + last


def _nearest(window: list[str], j1: int, j2: int, count: int, first: int) -> list[str]:
    """The ``count`` message words next to a quote's words added before or after the
    stretch it matches: what they would stand for."""
    return window[max(j1, j2 - count) : j2] if j2 <= first else window[j1 : j1 + count]


def _mended(added: list[str], theirs: list[str]) -> bool:
    """Whether the quote's ``added`` words, where the user wrote ``theirs``, keep the
    user's meaning: none at all, the same words mended (a typo, "I'm" for "I am"), or
    short plain words."""
    if not added:
        return True
    if any_negator(added) != any_negator(theirs) and any_negator(added):
        return False
    if _same_words(added, theirs):
        return True
    return all(len(w) <= _SHORT_WORD and not _weighty(w) for w in added) and not _substitutes(
        added, theirs
    )


def _same_words(added: list[str], theirs: list[str]) -> bool:
    ours = "".join(added)
    spelled = "".join(_SPELLED_OUT.get(w, w) for w in theirs)
    if not theirs or any(is_unspaced(w) for w in [*added, *theirs]):
        return False
    if _digits(ours) != _digits(spelled):
        return False
    return SequenceMatcher(None, ours, spelled, autojunk=False).ratio() >= _TYPO


def _substitutes(added: list[str], theirs: list[str]) -> bool:
    """A short word standing where the user wrote a different word (Bob for Tom)."""
    return bool(theirs) and len(added) == len(theirs)


def _weighty(word: str) -> bool:
    return is_unspaced(word) or any(c.isdigit() for c in word) or any_negator([word])


def _digits(text: str) -> list[str]:
    return re.findall(r"\d+", text)


def _may_leave_out(words: list[str]) -> bool:
    """The user's words a quote may skip: no negation, no number."""
    return not any_negator(words) and not any(_digits(w) for w in words)


def _too_short(parts: Sequence[list[str]]) -> bool:
    letters = sum(len(word) for part in parts for word in part)
    unspaced = any(is_unspaced(word) for part in parts for word in part)
    return letters < (_MIN_UNSPACED_QUOTE_CHARS if unspaced else _MIN_QUOTE_CHARS)


def _quote_parts(quote: str) -> list[list[str]]:
    parts = [tokens(normalise(p)) for p in _ELLIPSIS.split(quote)]
    long_enough = [p for p in parts if sum(map(len, p)) >= _MIN_PART_CHARS]
    return long_enough or [p for p in parts if p]


def quote_found(quote: str, texts: Sequence[str]) -> bool:
    """Whether every part of ``quote`` is (nearly) in ``texts``, the parts in order."""
    return _found(_quote_parts(quote), [_Said(text) for text in texts])


def _found(parts: Sequence[list[str]], said: Sequence[_Said]) -> bool:
    if not parts or _too_short(parts):
        return False
    message, word = 0, 0  # each part is looked for after the one before it
    for part in parts:
        for m in range(message, len(said)):
            lo = word if m == message else 0
            end = _whole_words_at(part, said[m], lo)
            if end is None:
                end = _close_at(part, said[m], lo)
            if end is not None:
                message, word = m, end
                break
        else:
            return False
    return True


def user_texts(messages: Sequence[Message]) -> list[str]:
    """The user's own messages of the window, for :func:`quote_found`."""
    return [m.content for m in messages if m.role is Role.USER]


def check_quotes(claims: Sequence[Claim], messages: Sequence[Message]) -> list[Claim]:
    """Each claim, marked untrusted when its quote is not in the user's messages."""
    said = [_Said(text) for text in user_texts(messages)]
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
